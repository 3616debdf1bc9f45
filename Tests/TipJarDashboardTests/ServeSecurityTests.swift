import Foundation
import TestSupport
import Testing

/// `tipjar serve` in admin-token mode, as an operator runs it: what its access log writes and
/// which `Host` names it answers.
@Suite("tipjar serve security")
struct ServeSecurityTests {
    @Test func theAccessLogNeverShowsTheTokenAndOnlyTheAllowedHostsAreServed() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try ChildProcess(
            CommandLineTests.binary,
            arguments: [
                "serve", "--port", "0", "--database", directory.appendingPathComponent("tipjar.sqlite3").path,
                "--admin-token", token, "--allowed-host", "tipjar.test", "--allowed-host", "proxy.test:8443",
            ])
        let text = await onThread { CommandLineTests.banner(process.standardOutput) }
        let port = try #require(text.range(of: "http://127.0.0.1:").flatMap { Int(text[$0.upperBound...].prefix { $0.isNumber }) })
        func get(_ target: String, host: String? = nil) async -> HTTPReply {
            let raw = "GET \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n\r\n"
            return await TestClient.reply(port: port, raw)
        }
        #expect(await get("/installs?%74oken=\(token)").status == 303, "a percent-encoded name signs in")
        #expect(await get("/installs?q=\(token)").status == 401)
        #expect(await get("/installs/\(token)").status == 401)
        #expect(await get("//evil.example/?token=\(token)")["Location"] == "/")
        #expect(await get("/", host: "tipjar.test:\(port)").status == 401, "an allowed name reaches the dashboard")
        #expect(await get("/", host: "proxy.test:8443").status == 401)
        #expect(await get("/", host: "evil.example:\(port)").status == 421)
        kill(process.processIdentifier, SIGTERM)
        let log = await onThread {
            let log = String(decoding: ChildProcess.readToEnd(process.standardError), as: UTF8.self)
            process.waitUntilExit()
            return log
        }
        #expect(process.terminationStatus == 0)
        #expect(log.contains("REDACTED"))
        #expect(log.contains("status=421"))
        #expect(!log.contains(token), "the access log holds the token: \(log)")
    }
}
