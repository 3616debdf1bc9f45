import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import TipJarDashboard

/// Admin-token mode: the token never reaches the access log, and the `?token=` sign-in link
/// redirects only within this origin.
@Suite("Admin-token mode")
struct AdminTokenModeTests {
    static let token = "0123456789abcdef0123456789abcdef"

    static func entry(_ target: String) -> AccessLogEntry {
        AccessLogEntry(
            method: "GET", target: target, status: 303, bytes: 0, durationMilliseconds: 1, requestID: "1-1",
            remoteAddress: "127.0.0.1:5")
    }

    @Test(arguments: [
        ("/installs?%74oken=\(token)", "/installs?%74oken=REDACTED"),
        ("/installs?%74%6F%6B%65%6E=\(token)&q=x", "/installs?%74%6F%6B%65%6E=REDACTED&q=x"),
        ("/installs?q=\(token)", "/installs?q=REDACTED"),
        ("/installs?page=2&next=%30123456789abcdef0123456789abcdef", "/installs?page=2&next=REDACTED"),
        ("/installs?q=\(token.uppercased())", "/installs?q=REDACTED"),
        ("/installs?q=x\(token)y", "/installs?q=REDACTED"),
        ("/installs?\(token)", "/installs?REDACTED"),
        ("/installs/\(token)/live", "/installs/REDACTED/live"),
        ("/installs/%30123456789abcdef0123456789abcdef", "/installs/REDACTED"),
        ("/installs?csrf%54oken=abc&q=1", "/installs?csrf%54oken=REDACTED&q=1"),
    ])
    func theTokenIsRedactedWhateverItsNameOrEncoding(_ target: String, _ logged: String) {
        let line = AccessLogRedaction.redact(Self.entry(target), adminToken: Self.token)
        #expect(line.target == logged)
        #expect(!line.description.lowercased().contains(Self.token))
    }

    @Test func targetsWithoutTheTokenAreLoggedAsTheyCame() {
        for target in ["/installs?q=0123456789abcdef", "/installs/abc", "/app.css", "/%7Euser?x=%41"] {
            #expect(AccessLogRedaction.redact(Self.entry(target), adminToken: Self.token).target == target)
        }
    }

    @Test(arguments: [
        ("//evil.example/", "/"), ("/\\evil.example", "/"), ("///evil", "/"), ("http://evil.example/", "/"),
        ("https:evil.example", "/"), ("javascript:alert(1)", "/"), ("", "/"), ("*", "/"),
        ("/installs", "/installs"), ("/installs/a b", "/installs/a%20b"), ("/a?b#c", "/a%3Fb%23c"), ("/a/\\b", "/a/%5Cb"),
        ("/%2F%2Fevil", "/%252F%252Fevil"),
    ])
    func theSignInRedirectStaysOnThisOrigin(_ path: String, _ location: String) {
        #expect(AdminTokenCheck.sameOriginPath(path) == location)
    }

    @Test func aRequestWithoutTheTokenThatAnnouncesABodyIsRefusedFromItsHeadAndClosed() async throws {
        try await withLiveServer(transport: .live, adminToken: Self.token) { server in
            let host = "Host: 127.0.0.1:\(server.port)"
            // The body is announced and never sent: the 401 can only have come from the head.
            let refused = await TestClient.exchange(
                port: server.port, "POST /installs HTTP/1.1\r\n\(host)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n")
            #expect(TestClient.statuses(refused.text) == [401])
            #expect(refused.text.contains("WWW-Authenticate: Bearer realm=\"tipjar\""))
            #expect(refused.closed)
            let body = #"{"locale":"en","launch":true}"#
            let signedIn = await TestClient.exchange(
                port: server.port,
                "POST /api/installs HTTP/1.1\r\n\(host)\r\nAuthorization: Bearer \(Self.token)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            #expect(TestClient.statuses(signedIn.text) == [201], "\(signedIn.text.prefix(300))")
        }
    }

    @Test func aPercentEncodedTokenNameSignsInAndEveryRedirectIsSameOrigin() async throws {
        try await withLiveServer(transport: .live, adminToken: Self.token) { server in
            let encoded = await server.send("GET", "/installs?%74oken=\(Self.token)&q=a")
            #expect(encoded.status == 303)
            #expect(encoded["Location"] == "/installs?q=a")
            let host = "Host: 127.0.0.1:\(server.port)"
            for target in [
                "//evil.example/", "/\\evil.example", "/%2F%2Fevil", "http://127.0.0.1:\(server.port)//evil.example/",
                "http://evil.example/", "//evil.example/%2e%2e/",
            ] {
                let raw = "GET \(target)?token=\(Self.token) HTTP/1.1\r\n\(host)\r\nConnection: close\r\n\r\n"
                let reply = await TestClient.reply(port: server.port, raw)
                #expect(reply.status != 0, "\(target) answered")
                if reply.status == 303 {
                    let location = try #require(reply["Location"])
                    #expect(location == "/", "\(target) redirected to \(location)")
                }
            }
        }
    }
}
