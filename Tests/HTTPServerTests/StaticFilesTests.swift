import Testing

@testable import HTTPServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

@Suite("StaticFiles")
struct StaticFilesTests {
    let base: URL
    let files: StaticFiles

    init() throws {
        let base = URL(fileURLWithPath: "/tmp/httpserver-static-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let root = base.appendingPathComponent("public")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("body{}".utf8).write(to: root.appendingPathComponent("app.css"))
        try Data("secret".utf8).write(to: root.appendingPathComponent(".env"))
        try Data("outside".utf8).write(to: base.appendingPathComponent("outside.txt"))
        symlink(base.appendingPathComponent("outside.txt").path, root.appendingPathComponent("escape.txt").path)
        self.base = base
        files = StaticFiles(root: root)
    }

    func get(_ path: String, method: String = "GET", fields: HTTPFields = HTTPFields()) -> HTTPResponse? {
        files.response(for: HTTPRequest(method: method, target: path, fields: fields))
    }

    @Test func servesFileWithTypeETagAndCacheControl() throws {
        let response = try #require(get("/app.css"))
        #expect(response.status == .ok)
        #expect(response.body == Array("body{}".utf8))
        #expect(response.fields["Content-Type"] == "text/css; charset=utf-8")
        #expect(response.fields["Cache-Control"] == "public, max-age=3600")
        #expect(response.fields["ETag"]?.hasPrefix("\"") == true)
    }

    @Test func ifNoneMatchGives304() throws {
        let etag = try #require(get("/app.css")?.fields["ETag"])
        #expect(get("/app.css", fields: ["If-None-Match": "W/\(etag)"])?.status == .notModified)
        #expect(get("/app.css", fields: ["If-None-Match": "\"other\""])?.status == .ok)
    }

    @Test func refusesDotfilesDirectoriesAndSymlinkEscape() {
        #expect(get("/.env") == nil)
        #expect(get("/sub") == nil)
        #expect(get("/") == nil)
        #expect(get("/escape.txt") == nil)
        #expect(get("/missing.css") == nil)
    }

    @Test func otherMethodsGet405WithAllow() {
        let response = get("/app.css", method: "DELETE")
        #expect(response?.status == .methodNotAllowed)
        #expect(response?.fields["Allow"] == "GET, HEAD, OPTIONS")
    }

    @Test func servesFromMemoryAfterFirstRead() throws {
        #expect(get("/app.css")?.status == .ok)
        try FileManager.default.removeItem(at: base.appendingPathComponent("public/app.css"))
        #expect(get("/app.css")?.body == Array("body{}".utf8))
    }

    @Test func mimeTypes() {
        #expect(MIMETypes.type(forPath: "/a.WOFF2") == "font/woff2")
        #expect(MIMETypes.type(forPath: "/a.svg") == "image/svg+xml")
        #expect(MIMETypes.type(forPath: "/noext") == "application/octet-stream")
    }
}
