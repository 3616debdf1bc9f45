import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

@testable import TipJarScenario

/// What the runner sends: a real `HTTPServer` on a loopback port whose responder keeps every
/// request and answers like the dashboard would, so the requests themselves can be read.
@Suite("scenario requests")
struct ScenarioRequestTests {
    final class Recorder: Sendable {
        let requests = Mutex<[(method: String, path: String, body: String, contentType: String?)]>([])
    }

    static func withRecordingServer(_ body: (ScenarioHTTPClient, Recorder) async throws -> Void) async throws {
        let recorder = Recorder()
        let server = HTTPServer(
            configuration: .asServed(),
            responder: ClosureResponder { request in
                recorder.requests.withLock {
                    $0.append((request.method, request.target, String(decoding: request.body, as: UTF8.self), request.fields["Content-Type"]))
                }
                let answer = request.path == "/api/installs" ? #"{"id":"i-1","hearts":0}"# : #"{"outcome":"cancelled","hearts":0}"#
                return .json(data: Array(answer.utf8), status: request.path == "/api/installs" ? .created : .ok)
            }, accessLog: nil)
        let port = try server.start()
        do {
            try await body(ScenarioHTTPClient(host: "127.0.0.1", port: port), recorder)
        } catch {
            await server.shutdown(timeout: .seconds(2))
            throw error
        }
        await server.shutdown(timeout: .seconds(2))
    }

    @Test func userActionAndTheProductArePassedThroughAndTabsSendThatManyTaps() async throws {
        try await Self.withRecordingServer { client, recorder in
            let text =
                #"{"name":"x","steps":[{"step":"createInstall","install":"a","account":"ana","label":"L"},{"step":"purchase","install":"a","productID":"p","userAction":"cancel","tabs":3,"expect":{"statuses":[200,200,200],"outcome":"cancelled"}}]}"#
            let result = await ScenarioRunner(transport: client, output: { _ in }).run(
                try Scenario(data: Data(text.utf8), file: "x.json"), file: "x.json",
                accountSuffix: "run1")
            #expect(result.passed, "\(result.firstFailure?.line ?? "")")
            let requests = recorder.requests.withLock { $0 }
            #expect(requests.first?.path == "/api/installs")
            #expect(try JSONValue(parsing: Data(requests[0].body.utf8)) == .object(["accountID": .string("ana-run1"), "label": .string("L")]))
            let taps = requests.filter { $0.path == "/api/installs/i-1/purchases" }
            #expect(taps.count == 3)
            for tap in taps {
                #expect(tap.method == "POST")
                #expect(tap.contentType == "application/json")
                #expect(try JSONValue(parsing: Data(tap.body.utf8)) == .object(["productID": .string("p"), "userAction": .string("cancel")]))
            }
        }
    }

    /// A `store` step is a JSON Merge Patch (RFC 7396): `PATCH /api/store` with `application/merge-patch+json`.
    @Test func aResetStoreStepSendsEveryDefaultWithThePatchMergedIn() async throws {
        try await Self.withRecordingServer { client, recorder in
            let text = #"{"name":"x","steps":[{"step":"store","reset":true,"settings":{"listenerReemits":2,"failures":{"sync":"networkError"}}}]}"#
            _ = await ScenarioRunner(transport: client, output: { _ in }).run(try Scenario(data: Data(text.utf8), file: "x.json"), file: "x.json")
            let request = try #require(recorder.requests.withLock { $0.first })
            #expect(request.method == "PATCH")
            #expect(request.contentType == "application/merge-patch+json")
            let body = try JSONValue(parsing: Data(request.body.utf8))
            #expect(body["listenerReemits"] == .number(2))
            #expect(body["catalog"] == .string("normal"))
            #expect(body["failures"] == .object(["loadProducts": .null, "purchase": .null, "verification": .null, "sync": .string("networkError"), "refundRequest": .null]))
        }
    }

    @Test func theHelpNamesTheScenarioCommandAndItsOptions() async throws {
        #expect(try await CommandLineTests.run(["--help"]).output.contains("scenario run"))
        let help = try await CommandLineTests.run(["scenario", "--help"])
        #expect(help.status == 0)
        for option in ["--junit", "--url", "--admin-token", "Exits 0", "64"] { #expect(help.output.contains(option), "\(option)") }
    }
}

/// Answers that are not what the dashboard sends are step failures that say so, never a crash.
@Suite("scenario client answers")
struct ScenarioClientAnswerTests {
    static func parse(_ text: String) throws(ScenarioHTTPClient.Failure) -> ScenarioHTTPClient.Answer {
        try ScenarioHTTPClient.parse(Array(text.utf8), host: "127.0.0.1", port: 9)
    }

    @Test(arguments: [
        ("", "without a complete HTTP answer"), ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", "without a complete HTTP answer"),
        ("SSH-2.0-OpenSSH_9.6\r\n\r\n", "not HTTP/1.1"), ("HTTP/1.1 OK\r\n\r\n", "not HTTP/1.1"),
    ])
    func aBrokenAnswerIsAFailureThatSaysWhy(_ text: String, _ problem: String) {
        #expect(throws: ScenarioHTTPClient.Failure.self) { try Self.parse(text) }
        do { _ = try Self.parse(text) } catch { #expect(error.description.contains(problem), "\(error)") }
    }

    @Test func theBodyStopsAtContentLengthAndNonJSONIsKeptRaw() throws {
        let answer = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}garbage")
        #expect(answer.status == 200)
        #expect(answer.json == .object([:]))
        let html = try Self.parse("HTTP/1.1 404 Not Found\r\n\r\n<html>")
        #expect(html.status == 404)
        #expect(html.json == nil)
        #expect(html.body == Array("<html>".utf8))
    }

    @Test func aURLThatIsNotPlainHTTPIsAUsageError() {
        #expect(throws: ScenarioHTTPClient.Failure.self) { try ScenarioHTTPClient(url: "https://127.0.0.1:8080") }
        #expect(throws: ScenarioHTTPClient.Failure.self) { try ScenarioHTTPClient(url: "127.0.0.1:8080") }
        #expect((try? ScenarioHTTPClient(url: "http://[::1]:9000"))?.host == "::1")
        #expect((try? ScenarioHTTPClient(url: "http://localhost"))?.port == 80)
    }
}
