import Foundation

#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// One attempt to post a notification, against a real receiver on an ephemeral port (``ScriptedReceiver``), named
/// with Apple's `sendAttemptResult` (https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult;
/// the mapping and the redirect rules are Sources/TipJarDashboard/Notifications/NotificationTransport.swift's and
/// SocketNotificationHop.swift's).
@Suite("Notification transport")
struct NotificationTransportTests {
    static let body = Data(#"{"signedPayload":"x"}"#.utf8)

    static func post(
        _ script: @escaping @Sendable (Int) -> ScriptedReceiver.Answer, timeout: TimeInterval = 10
    ) async throws -> (NotificationAttemptOutcome, [Data]) {
        let receiver = try ScriptedReceiver(script)
        defer { receiver.stop() }
        let outcome = await HTTPNotificationTransport().post(body, to: try #require(URL(string: receiver.url)), timeout: timeout)
        return (outcome, receiver.bodies)
    }

    @Test func anAnswerFrom200To206IsSuccessAndTheBodyIsTheSignedPayloadObject() async throws {
        let (outcome, bodies) = try await Self.post { _ in ScriptedReceiver.status(206) }
        #expect(outcome.result == .success && outcome.detail == "HTTP 206")
        #expect(bodies == [Self.body])
    }

    @Test func anAnswerOf500IsUnsuccessfulHTTPResponseCodeWithTheStatusInWords() async throws {
        let (outcome, _) = try await Self.post { _ in ScriptedReceiver.status(500) }
        #expect(outcome.result == .unsuccessfulHTTPResponseCode && outcome.detail == "HTTP 500")
        #expect(try await Self.post { _ in ScriptedReceiver.status(404) }.0.result == .unsuccessfulHTTPResponseCode)
    }

    @Test func aServerThatNeverAnswersIsTimedOutAtTheDeadline() async throws {
        let (outcome, _) = try await Self.post({ _ in .silence }, timeout: 0.5)
        #expect(outcome.result == .timedOut && outcome.detail == "no answer within 0.5 s")
    }

    @Test func aRefusedConnectionIsNoResponse() async throws {
        // A port bound and never listened on refuses every connection, and no other process can take it meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        #expect(bound)
        let url = try #require(URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/notifications"))
        let outcome = await HTTPNotificationTransport().post(Self.body, to: url, timeout: 5)
        #expect(outcome.result == .noResponse && outcome.detail.contains("connection refused"), "\(outcome)")
    }

    @Test func aRedirectBackToAURLAlreadyVisitedIsCircularRedirect() async throws {
        let (outcome, bodies) = try await Self.post { _ in ScriptedReceiver.status(307, "Location: /notifications\r\n") }
        #expect(outcome.result == .circularRedirect, "\(outcome)")
        #expect(bodies.count == 1, "the URL it points back to is never posted to twice")
    }

    @Test func moreThanFiveRedirectsIsCircularRedirect() async throws {
        let (outcome, bodies) = try await Self.post { number in ScriptedReceiver.status(308, "Location: /hop\(number)\r\n") }
        #expect(outcome.result == .circularRedirect && outcome.detail == "more than 5 redirects", "\(outcome)")
        #expect(bodies.count == HTTPNotificationTransport.maximumRedirects + 1)
    }

    @Test func a307IsFollowedWithTheSameBodyAndItsTargetDecides() async throws {
        let (outcome, bodies) = try await Self.post { number in
            number == 0 ? ScriptedReceiver.status(307, "Location: /moved\r\n") : ScriptedReceiver.status(200)
        }
        #expect(outcome.result == .success && outcome.url.hasSuffix("/moved"), "\(outcome)")
        #expect(bodies == [Self.body, Self.body], "RFC 9110 §15.4.8: the POST and its body are repeated")
    }

    @Test func aHopStartedAfterTheDeadlineConnectsToNoOne() throws {
        let receiver = try ScriptedReceiver { _ in ScriptedReceiver.status(200) }
        defer { receiver.stop() }
        let url = try #require(URL(string: receiver.url))
        let spent = DispatchTime.now().uptimeNanoseconds - 1
        let late = SocketNotificationHop.postBlocking(Self.body, to: url, deadline: spent, timeout: 5, policy: NotificationURLPolicy())
        #expect(late == .failed(.timedOut, "no answer within 5 s"))
        // Connections are accepted in the order they were made: one the late hop had opened would come first, empty.
        let inTime = SocketNotificationHop.postBlocking(
            Self.body, to: url, deadline: DispatchTime.now().uptimeNanoseconds + 5_000_000_000, timeout: 5, policy: NotificationURLPolicy())
        #expect(inTime == .answered(status: 200, location: nil))
        #expect(receiver.bodies == [Self.body], "the receiver never sees a connection the attempt had no time left for")
    }

    @Test func a302IsNotFollowedBecauseItWouldLoseTheBody() async throws {
        let (outcome, bodies) = try await Self.post { _ in ScriptedReceiver.status(302, "Location: /elsewhere\r\n") }
        #expect(outcome.result == .unsuccessfulHTTPResponseCode && outcome.detail.hasPrefix("HTTP 302, not followed"), "\(outcome)")
        #expect(bodies.count == 1)
    }

    @Test func aRedirectToALinkLocalAddressIsRefused() async throws {
        let (outcome, bodies) = try await Self.post { _ in ScriptedReceiver.status(307, "Location: http://169.254.169.254/latest/meta-data\r\n") }
        #expect(outcome.result == .other && outcome.detail.contains("link-local"), "\(outcome)")
        #expect(bodies.count == 1)
    }

    @Test func aHugeAnswerIsJudgedByItsStatusLineAndNeverRead() async throws {
        // 1 GB announced, a few bytes sent, the connection held: an attempt that read the body would time out.
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\nContent-Type: application/octet-stream\r\n\r\n" + String(repeating: "x", count: 1_000)
        #expect(try await Self.post({ _ in .bytesThenSilence(head) }, timeout: 5).0.result == .success)
    }

    @Test func aHeadThatNeverEndsIsInvalidResponseAfter64KiB() async throws {
        let head = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: " + String(repeating: "y", count: 100) + "\r\n", count: 1_000)
        let (outcome, _) = try await Self.post({ _ in .bytesThenSilence(head) }, timeout: 5)
        #expect(outcome.result == .invalidResponse && outcome.detail.contains("64 KiB"), "\(outcome)")
    }

    @Test func anInterimAnswerIsSkippedForTheFinalOne() async throws {
        let (outcome, _) = try await Self.post { _ in .bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n") }
        #expect(outcome.result == .success && outcome.detail == "HTTP 201")
    }

    @Test func aConnectionClosedWithoutAnAnswerIsPrematureClose() async throws {
        let (outcome, _) = try await Self.post { _ in .close }
        #expect(outcome.result == .prematureClose, "\(outcome)")
    }

    @Test func anAnswerThatIsNotHTTPIsInvalidResponse() async throws {
        let (outcome, _) = try await Self.post { _ in .bytes("SSH-2.0-OpenSSH_9.2\r\n") }
        #expect(outcome.result == .invalidResponse && outcome.detail.contains("SSH-2.0"), "\(outcome)")
        #expect(try await Self.post { _ in .bytes("<html>HTTP/0.9 has no status line</html>") }.0.result == .invalidResponse)
    }

    static func postAll(_ count: Int, _ script: @escaping @Sendable (Int) -> ScriptedReceiver.Answer) async throws -> (
        [NotificationAttemptOutcome], ScriptedReceiver
    ) {
        let receiver = try ScriptedReceiver(script)
        let bodies = (0..<count).map { Data(#"{"signedPayload":"\#($0)"}"#.utf8) }
        return (await HTTPNotificationTransport().postAll(bodies, to: try #require(URL(string: receiver.url)), timeout: 5), receiver)
    }

    @Test func aBatchTravelsOverOneConnectionTheServerKeeps() async throws {
        let (outcomes, receiver) = try await Self.postAll(5) { number in number % 2 == 0 ? ScriptedReceiver.kept(204) : ScriptedReceiver.kept(200, body: "ok") }
        defer { receiver.stop() }
        #expect(outcomes.map(\.result) == Array(repeating: .success, count: 5))
        #expect(receiver.bodies.map { String(decoding: $0, as: UTF8.self) } == (0..<5).map { #"{"signedPayload":"\#($0)"}"# })
        #expect(receiver.connections == 1, "RFC 9112 §9.3: the connection persists")
    }

    @Test func theNextBatchTakesOverTheConnectionTheBatchBeforeLeftOpen() async throws {
        let receiver = try ScriptedReceiver { _ in ScriptedReceiver.kept(200) }
        defer { receiver.stop() }
        let url = try #require(URL(string: receiver.url))
        let transport = HTTPNotificationTransport()
        let first = await transport.postAll((0..<2).map { Data(#"{"signedPayload":"\#($0)"}"#.utf8) }, to: url, timeout: 5)
        let second = await transport.postAll([Data(#"{"signedPayload":"2"}"#.utf8)], to: url, timeout: 5)
        #expect((first + second).map(\.result) == Array(repeating: .success, count: 3))
        #expect(receiver.bodies.count == 3)
        #expect(receiver.connections == 1, "RFC 9112 §9.3: kept between batches, not only within one")
        #expect(transport.connections.count == 1)
    }

    @Test func keptConnectionsAreBoundedAndOneIdleTooLongIsClosedNotReused() throws {
        func connected() -> KeptConnection {
            let connection = KeptConnection()
            connection.fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            return connection
        }
        let bounded = KeptConnections(limit: 2)
        let three = [connected(), connected(), connected()]
        for connection in three { bounded.giveBack(connection) }
        #expect(bounded.count == 2 && three[2].fd == -1, "the one past the limit is closed")
        #expect(bounded.take() === three[1], "the most recently used first")

        let stale = KeptConnections(limit: 2, maximumIdle: 0)
        let old = connected()
        stale.giveBack(old)
        let taken = stale.take()
        #expect(taken !== old && taken.fd == -1, "a new, unconnected one instead")
        #expect(old.fd == -1 && stale.count == 0, "the stale one is closed")

        let closed = KeptConnection()
        bounded.giveBack(closed)
        #expect(bounded.count == 1, "a connection the server closed is not kept")
    }

    @Test func aBatchStopsAtItsFirstAttemptThatIsNotASuccess() async throws {
        let (outcomes, receiver) = try await Self.postAll(4) { number in ScriptedReceiver.kept(number == 1 ? 500 : 200) }
        defer { receiver.stop() }
        #expect(outcomes.map(\.result) == [.success, .unsuccessfulHTTPResponseCode], "the two after it are not posted")
        #expect(receiver.bodies.count == 2)
    }

    @Test func anAnswerThatClosesOrCannotBeFramedEndsTheConnectionNotTheBatch() async throws {
        // `Connection: close`, then an answer without Content-Length (its end is the connection's), then kept ones.
        let (outcomes, receiver) = try await Self.postAll(4) { number in
            switch number {
            case 0: ScriptedReceiver.status(200)
            case 1: .bytes("HTTP/1.1 200 OK\r\n\r\nthe body runs to the close")
            default: ScriptedReceiver.kept(200)
            }
        }
        defer { receiver.stop() }
        #expect(outcomes.map(\.result) == Array(repeating: .success, count: 4))
        #expect(receiver.connections == 3)
    }

    @Test func aKeptConnectionTheServerClosedIsReplacedAndThePostSentAgain() async throws {
        // The first answer says nothing of closing, and the server closes right after it (an idle timeout racing the
        // next request, RFC 9112 §9.3.1): the second post fails before any answer, and goes again on a new connection.
        let (outcomes, receiver) = try await Self.postAll(3) { number in
            number == 0 ? .bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") : ScriptedReceiver.kept(200)
        }
        defer { receiver.stop() }
        #expect(outcomes.map(\.result) == Array(repeating: .success, count: 3))
        #expect(receiver.bodies.count == 3 && receiver.connections == 2)
    }

    @Test func aStoppedBatchKeepsWhatWasPostedCutsTheOneUnderWayAndPostsNoMore() async throws {
        let receiver = try ScriptedReceiver { number in number == 0 ? ScriptedReceiver.kept(200) : .silence }
        defer { receiver.stop() }
        let url = try #require(URL(string: receiver.url))
        let bodies = (0..<3).map { Data(#"{"signedPayload":"\#($0)"}"#.utf8) }
        let batch = Task { await HTTPNotificationTransport().postAll(bodies, to: url, timeout: 30) }
        #expect(await eventually { receiver.bodies.count == 2 })
        batch.cancel()
        let outcomes = await batch.value
        #expect(outcomes.map(\.result) == [.success, .other])
        #expect(outcomes.last?.detail == HTTPNotificationTransport.cutShort)
    }

    @Test func everyURLErrorNamesOneOfApplesResults() {
        #expect(URLSessionNotificationHop.result(for: URLError(.timedOut)) == .timedOut)
        #expect(URLSessionNotificationHop.result(for: URLError(.cannotConnectToHost)) == .noResponse)
        #expect(URLSessionNotificationHop.result(for: URLError(.networkConnectionLost)) == .prematureClose)
        #expect(URLSessionNotificationHop.result(for: URLError(.secureConnectionFailed)) == .tlsIssue)
        #expect(URLSessionNotificationHop.result(for: URLError(.httpTooManyRedirects)) == .circularRedirect)
        #expect(URLSessionNotificationHop.result(for: URLError(.badServerResponse)) == .invalidResponse)
        #expect(URLSessionNotificationHop.result(for: URLError(.unknown)) == .socketIssue)
        #expect(URLSessionNotificationHop.result(for: CocoaError(.fileNoSuchFile)) == .other)
    }
}

/// Which notifications URLs are accepted (Sources/TipJar/Model/NotificationURLPolicy.swift).
@Suite("Notification URL policy")
struct NotificationURLPolicyTests {
    static func refusal(_ text: String, _ policy: NotificationURLPolicy = NotificationURLPolicy()) -> String? {
        do {
            _ = try policy.checked(text)
            return nil
        } catch TipJarError.invalidValue(_, let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test func loopbackAndPrivateReceiversAreAccepted() {
        for url in ["http://127.0.0.1:9000/n", "https://example.com/hook?x=1", "http://[::1]:8080/", "http://10.0.0.5/n", "http://localhost/n"] {
            #expect(Self.refusal(url) == nil, "\(url)")
        }
    }

    @Test func urlsThatCanNeverWorkAreRefusedWithTheReason() {
        #expect(Self.refusal("http://127.0.0.1:0/n")?.contains("port") == true)
        #expect(Self.refusal("http://127.0.0.1:99999/n") != nil)
        #expect(Self.refusal("http://127.0.0.1/a\nb")?.contains("U+000A") == true)
        #expect(Self.refusal("http://127.0.0.1/a\u{0}b")?.contains("U+0000") == true)
        #expect(Self.refusal("http://exa\u{202E}mple.com/")?.contains("U+202E") == true)
        #expect(Self.refusal("http://user:secret@127.0.0.1/n")?.contains("user name") == true)
        #expect(Self.refusal("ftp://127.0.0.1/n") != nil)
        #expect(Self.refusal("/relative") != nil)
    }

    @Test func linkLocalAndMetadataAddressesAreRefusedUnlessAllowed() {
        for url in [
            "http://169.254.169.254/latest/meta-data", "http://[fe80::1]/n", "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.google.internal./", "http://[::ffff:169.254.169.254]/", "http://[fd00:ec2::254]/", "http://100.100.100.200/",
        ] {
            #expect(Self.refusal(url)?.contains("--notifications-allow-link-local") == true, "\(url)")
            #expect(Self.refusal(url, NotificationURLPolicy(allowsLinkLocal: true)) == nil, "\(url)")
        }
    }

    @Test func resolvedLinkLocalAddressesAreRecognisedInEveryForm() {
        #expect(NotificationURLPolicy.isLinkLocalOrMetadata(address: [169, 254, 0, 1]))
        #expect(!NotificationURLPolicy.isLinkLocalOrMetadata(address: [127, 0, 0, 1]))
        #expect(NotificationURLPolicy.isLinkLocalOrMetadata(address: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]))
        #expect(!NotificationURLPolicy.isLinkLocalOrMetadata(address: [UInt8](repeating: 0, count: 15) + [1]), "::1 is loopback")
    }
}
