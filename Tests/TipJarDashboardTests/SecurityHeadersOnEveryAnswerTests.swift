import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import TipJarDashboard

#if canImport(Glibc)
import Glibc
#endif

/// Black-box, over a real socket on an ephemeral port: every kind of answer carries the security headers whatever
/// road it took (a route in a task, the I/O thread's stored page or file, the server's own framing error, a stream's
/// head), because the serializer adds the server's defaults to every answer it writes (`ResponseDefaults`,
/// `Sources/HTTPServer/Messages/ResponseSerializer.swift`); and with an admin token every road asks for it
/// (RFC 9110 §15.5.2, RFC 6750 §3).
@Suite("Security headers on every answer")
struct SecurityHeadersOnEveryAnswerTests {
    /// The header fields that every answer must carry, with their values (`Cache-Control` aside: a static file has its own).
    static let required: [(String, String)] = [
        ("Content-Security-Policy", SecurityHeaders.contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
    ]

    static func expectHeaders(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, value) in required {
            #expect(reply[name] == value, "\(what): \(name)", sourceLocation: sourceLocation)
        }
        #expect(reply["Cache-Control"] != nil, "\(what): Cache-Control", sourceLocation: sourceLocation)
        let fieldNames = reply.fields.map { $0.name.lowercased() }
        for (name, _) in required {
            #expect(fieldNames.filter { $0 == name.lowercased() }.count == 1, "\(what): \(name) once", sourceLocation: sourceLocation)
        }
    }

    /// Sends `raw` on a fresh connection and parses the first answer.
    static func raw(_ server: LiveServer, _ text: String) async -> HTTPReply {
        await TestClient.reply(port: server.port, text.replacingOccurrences(of: "HOST", with: "127.0.0.1:\(server.port)"))
    }

    /// The head of the answer to `GET path` that starts an event stream, read up to its empty line; the connection is
    /// closed then (the stream ends with it).
    static func streamHead(port: Int, path: String) async -> HTTPReply {
        await TestClient.onThread {
            let fd = TestClient.connect(port: port)
            guard fd >= 0 else { return HTTPReply(parsing: "") }
            defer { close(fd) }
            TestClient.send(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                bytes += buffer[0..<count]
            }
            return HTTPReply(parsing: String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test func everyKindOfAnswerCarriesTheSecurityHeadersWhateverItsRoad() async throws {
        try await withLiveServer(transport: .live) { server in
            let page = await server.send("GET", "/catalog")
            #expect(page.status == 200)
            Self.expectHeaders(page, "a page")
            let stored = await server.send("GET", "/catalog")
            #expect(stored.status == 200 && stored.body == page.body)
            Self.expectHeaders(stored, "the same page from the page cache")
            let head = await server.send("HEAD", "/catalog")
            #expect(head.status == 200 && head.body.isEmpty)
            Self.expectHeaders(head, "HEAD")
            for round in 1...2 {
                let file = await server.send("GET", "/app.css")
                #expect(file.status == 200)
                Self.expectHeaders(file, "a static file (\(round))")
                #expect(file["Cache-Control"] != "no-store", "a static file keeps its own cache policy")
            }
            let missing = await server.send("GET", "/no-such-page")
            #expect(missing.status == 404)
            Self.expectHeaders(missing, "404")
            let unknownMethod = await Self.raw(server, "BREW / HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n")
            #expect(unknownMethod.status == 501)
            Self.expectHeaders(unknownMethod, "501")
            let malformed = await Self.raw(server, "GET  / HTTP/1.1\r\nHost: HOST\r\n\r\n")
            #expect(malformed.status == 400)
            Self.expectHeaders(malformed, "a malformed request line's 400")
            let noJWT = await server.send("GET", "/inApps/v1/transactions/1000000000000001")
            #expect(noJWT.status == 401)
            Self.expectHeaders(noJWT, "/inApps without a JWT")
            let created = await server.json("POST", "/api/installs", #"{"locale": "en", "launch": true}"#)
            #expect(created.status == 201)
            Self.expectHeaders(created, "the JSON API's POST")
            let id = try #require(created.object["id"] as? String)
            for round in 1...2 {
                let json = await server.send("GET", "/api/installs/\(id)")
                #expect(json.status == 200)
                Self.expectHeaders(json, "the JSON API (\(round))")
            }
            let stream = await Self.streamHead(port: server.port, path: "/installs/\(id)/events")
            #expect(stream.status == 200)
            #expect(stream["Content-Type"]?.hasPrefix("text/event-stream") == true)
            Self.expectHeaders(stream, "an event stream's head")
        }
    }

    @Test func withAnAdminTokenEveryRoadAnswers401WithoutIt() async throws {
        let token = String(repeating: "c3", count: 16)
        try await withLiveServer(transport: .live, adminToken: token) { server in
            let bearer = [("Authorization", "Bearer \(token)")]
            let created = await server.send(
                "POST", "/api/installs", fields: bearer + [("Content-Type", "application/json")], body: #"{"locale": "en"}"#)
            #expect(created.status == 201)
            let id = try #require(created.object["id"] as? String)
            // Each answer twice with the token, so the page cache and the static files hold it.
            for path in ["/catalog", "/app.css", "/api/installs/\(id)"] {
                for _ in 1...2 { #expect(await server.send("GET", path, fields: bearer).status == 200, "\(path) with the token") }
            }
            for path in ["/catalog", "/app.css", "/no-such-page", "/api/installs/\(id)", "/api/installs"] {
                let refused = await server.send("GET", path)
                #expect(refused.status == 401, "\(path) without the token")
                #expect(refused["WWW-Authenticate"] == AdminTokenCheck.challenge, "\(path)")
                Self.expectHeaders(refused, "\(path) without the token")
                let head = await server.send("HEAD", path)
                #expect(head.status == 401, "HEAD \(path) without the token")
            }
        }
    }
}
