import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// One attempt to post a notification, against a real receiver on an ephemeral port (``ScriptedReceiver``), named
/// with Apple's `sendAttemptResult` (https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult;
/// the mapping is Sources/TipJarDashboard/Notifications/NotificationTransport.swift's).
@Suite("Notification transport")
struct NotificationTransportTests {
    static let body = Data(#"{"signedPayload":"x"}"#.utf8)

    static func post(_ script: @escaping @Sendable (Int) -> ScriptedReceiver.Answer, timeout: TimeInterval = 10) async throws -> (SendAttemptResult, [Data]) {
        let receiver = try ScriptedReceiver(script)
        defer { receiver.stop() }
        let result = await URLSessionNotificationTransport().post(body, to: try #require(URL(string: receiver.url)), timeout: timeout)
        return (result, receiver.bodies)
    }

    @Test func anAnswerFrom200To206IsSuccessAndTheBodyIsTheSignedPayloadObject() async throws {
        let (result, bodies) = try await Self.post { _ in ScriptedReceiver.status(206) }
        #expect(result == .success)
        #expect(bodies == [Self.body])
    }

    @Test func anAnswerOf500IsUnsuccessfulHTTPResponseCode() async throws {
        #expect(try await Self.post { _ in ScriptedReceiver.status(500) }.0 == .unsuccessfulHTTPResponseCode)
        #expect(try await Self.post { _ in ScriptedReceiver.status(404) }.0 == .unsuccessfulHTTPResponseCode)
    }

    @Test func aServerThatNeverAnswersIsTimedOut() async throws {
        #expect(try await Self.post({ _ in .silence }, timeout: 1).0 == .timedOut)
    }

    @Test func aRefusedConnectionIsNoResponse() async throws {
        let receiver = try ScriptedReceiver { _ in .close }
        receiver.stop()
        let result = await URLSessionNotificationTransport().post(Self.body, to: try #require(URL(string: receiver.url)), timeout: 5)
        #expect(result == .noResponse)
    }

    @Test func aRedirectToAnAddressAlreadyVisitedIsCircularRedirect() async throws {
        let (result, bodies) = try await Self.post { _ in
            ScriptedReceiver.status(307, "Location: /loop\r\n")
        }
        #expect(result == .circularRedirect)
        #expect(bodies.count <= URLSessionNotificationTransport.maximumRedirects + 1)
    }

    @Test func aHugeAnswerIsJudgedByItsStatusLineAndNeverRead() async throws {
        // 1 GB announced, a few bytes sent, the connection held: an attempt that read the body would time out.
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\nContent-Type: application/octet-stream\r\n\r\n" + String(repeating: "x", count: 1_000)
        #expect(try await Self.post({ _ in .bytesThenSilence(head) }, timeout: 5).0 == .success)
    }

    @Test func aConnectionClosedWithoutAnAnswerIsInvalidResponse() async throws {
        #expect(try await Self.post { _ in .close }.0 == .invalidResponse)
    }

    @Test func anAnswerThatIsNotHTTPIsInvalidResponse() async throws {
        let result = try await Self.post { _ in .bytes("SSH-2.0-OpenSSH_9.2\r\n") }.0
        #expect(result == .invalidResponse, "\(result)")
    }

    @Test func everyURLErrorNamesOneOfApplesResults() {
        #expect(URLSessionNotificationTransport.result(for: URLError(.timedOut)) == .timedOut)
        #expect(URLSessionNotificationTransport.result(for: URLError(.cannotConnectToHost)) == .noResponse)
        #expect(URLSessionNotificationTransport.result(for: URLError(.networkConnectionLost)) == .prematureClose)
        #expect(URLSessionNotificationTransport.result(for: URLError(.secureConnectionFailed)) == .tlsIssue)
        #expect(URLSessionNotificationTransport.result(for: URLError(.httpTooManyRedirects)) == .circularRedirect)
        #expect(URLSessionNotificationTransport.result(for: URLError(.badServerResponse)) == .invalidResponse)
        #expect(URLSessionNotificationTransport.result(for: URLError(.unknown)) == .socketIssue)
        #expect(URLSessionNotificationTransport.result(for: CocoaError(.fileNoSuchFile)) == .other)
    }
}
