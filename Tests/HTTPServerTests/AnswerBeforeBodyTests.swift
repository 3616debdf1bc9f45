import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A refusal that no body can change is given from the head (``ImmediateResponder/answerBeforeBody(_:)``): the client
/// that lacks the credential gets its 401 at once and the connection closes (RFC 9112 §9.6), instead of holding a slot
/// for as long as it takes to send (or trickle) the body it announced. A request that carries the credential is read
/// whole and answered as usual. The body deadline is 60 s here, so an answer within the client's 10 s came from the head.
@Suite("Answers before the body", .serialized)
struct AnswerBeforeBodyTests {
    /// Refuses, from the head, every request without an `Authorization` field; echoes the rest.
    final class Gatekeeper: HTTPResponder, ImmediateResponder {
        let pooled = Atomic<Int>(0)

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            pooled.add(1, ordering: .relaxed)
            return HTTPResponse(status: .ok, body: request.body)
        }

        func immediateResponse(to request: HTTPRequest) -> PreparedResponse? { nil }

        func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
            guard head.fields["Authorization"] == nil else { return nil }
            return PreparedResponse(HTTPResponse(status: .unauthorized, fields: ["WWW-Authenticate": #"Bearer realm="test""#]))
        }
    }

    static func start(_ responder: Gatekeeper) throws -> (HTTPServer, Int) {
        var configuration = HTTPServerConfiguration.onTestExecutor()
        configuration.timeouts = HTTPTimeouts(idle: .seconds(60), head: .seconds(60), body: .seconds(60))
        let server = HTTPServer(configuration: configuration, responder: responder)
        return (server, try server.start())
    }

    @Test(arguments: ["Content-Length: 100000\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 100000\r\nExpect: 100-continue\r\n"])
    func aHeadWithoutTheCredentialIsRefusedBeforeItsBodyAndTheConnectionCloses(_ framing: String) async throws {
        let gatekeeper = Gatekeeper()
        let (server, port) = try Self.start(gatekeeper)
        // The head and one byte of the body; the rest never comes.
        let reply = await TestClient.exchange(port: port, "POST /x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(framing)\r\n1")
        #expect(TestClient.statuses(reply.text) == [401], "\(reply.text)")
        #expect(!reply.text.contains("100 Continue"), "a body the server will not read was invited")
        #expect(reply.text.contains("Connection: close"))
        #expect(reply.closed, "the connection stayed open waiting for a body that cannot change the answer")
        #expect(gatekeeper.pooled.load(ordering: .relaxed) == 0)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aHeadWithTheCredentialHasItsBodyReadAndAnswered() async throws {
        let gatekeeper = Gatekeeper()
        let (server, port) = try Self.start(gatekeeper)
        let reply = await TestClient.exchange(
            port: port, "POST /x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(TestClient.statuses(reply.text) == [200])
        #expect(reply.text.hasSuffix("hello"))
        #expect(gatekeeper.pooled.load(ordering: .relaxed) == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aRefusedHeadCostsItsAddressNoSlotWhileItsBodyTrickles() async throws {
        let gatekeeper = Gatekeeper()
        let (server, port) = try Self.start(gatekeeper)
        let replies = await TestClient.onThread {
            (0..<20).map { _ in
                let fd = TestClient.connect(port: port, timeoutMs: 10_000, source: "127.0.0.2")
                defer { close(fd) }
                TestClient.send(fd, "POST /x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 100000\r\n\r\n")
                return TestClient.readAll(fd)
            }
        }
        #expect(replies.allSatisfy { TestClient.statuses($0.text) == [401] && $0.closed })
        let stats = await ConnectionResourceTests.statistics(of: server) { $0.openByAddress["127.0.0.2"] == nil }
        #expect(stats?.openByAddress["127.0.0.2"] == nil, "refused connections still counted against their address")
        await server.shutdown(timeout: .seconds(1))
    }
}
