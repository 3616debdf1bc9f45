import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// An ``ImmediateResponder``'s answer leaves from the I/O thread with the bytes the task path writes for the same
/// response (RFC 9112 §4, §6: status line, fields, `Content-Length`, `Connection`), only `Date` aside; a request it
/// declines goes to ``HTTPResponder/respond(to:)``; and a client that pipelines many such requests is answered
/// in order without keeping the thread to itself.
@Suite("Immediate answers")
struct ImmediateResponderTests {
    /// Answers `/prepared` (and `/304`, `/204`) the same way through both paths, and counts what came through the pool.
    final class Responder: HTTPResponder, ImmediateResponder {
        let answersImmediately: Bool
        let pooled = Atomic<Int>(0)

        init(answersImmediately: Bool) { self.answersImmediately = answersImmediately }

        static func response(for request: HTTPRequest) -> HTTPResponse? {
            switch request.path {
            case "/prepared":
                var response = HTTPResponse.html("<html>prepared</html>")
                response.fields["ETag"] = "\"abc-15\""
                response.fields["Cache-Control"] = "public, max-age=3600"
                response.fields["X-Content-Type-Options"] = "nosniff"
                return response
            case "/304": return HTTPResponse(status: .notModified, fields: ["ETag": "\"abc-15\""], body: Array("dropped".utf8))
            case "/204": return HTTPResponse(status: .noContent, fields: ["Allow": "GET, HEAD, OPTIONS"])
            default: return nil
            }
        }

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            pooled.add(1, ordering: .relaxed)
            if request.method == "POST" { return .text("posted") }
            return Self.response(for: request) ?? .status(.notFound)
        }

        func immediateResponse(to request: HTTPRequest) -> PreparedResponse? {
            guard answersImmediately, request.method == "GET" || request.method == "HEAD" else { return nil }
            return Self.response(for: request).flatMap { PreparedResponse($0) }
        }
    }

    static func start(_ responder: Responder) throws -> (HTTPServer, Int) {
        let server = HTTPServer(configuration: .onTestExecutor(), responder: responder)
        return (server, try server.start())
    }

    /// The reply's bytes with its `Date` line cut out.
    static func withoutDate(_ text: String) -> String {
        text.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
    }

    static let requests: [String] = [
        "GET /prepared HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n",
        "HEAD /prepared HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n",
        "GET /prepared HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /prepared HTTP/1.0\r\n\r\n",
        "GET /prepared HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\nGET /304 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\nGET /204 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n",
        "HEAD /304 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nConnection: close\r\n\r\n",
    ]

    @Test(arguments: requests)
    func anImmediateAnswerIsTheBytesTheTaskPathWritesButDate(_ request: String) async throws {
        let immediate = Responder(answersImmediately: true), pooled = Responder(answersImmediately: false)
        let (fast, fastPort) = try Self.start(immediate)
        let (slow, slowPort) = try Self.start(pooled)
        let fastReply = await TestClient.exchange(port: fastPort, request.replacingOccurrences(of: "PORT", with: "\(fastPort)")).text
        let slowReply = await TestClient.exchange(port: slowPort, request.replacingOccurrences(of: "PORT", with: "\(slowPort)")).text
        #expect(fastReply.contains("Date: "))
        #expect(Self.withoutDate(fastReply) == Self.withoutDate(slowReply))
        #expect(!slowReply.isEmpty)
        #expect(immediate.pooled.load(ordering: .relaxed) == 0, "an immediate answer went through the pool")
        #expect(pooled.pooled.load(ordering: .relaxed) > 0)
        await fast.shutdown(timeout: .seconds(1))
        await slow.shutdown(timeout: .seconds(1))
    }

    @Test func aRequestTheImmediateResponderDeclinesGoesToTheResponder() async throws {
        let responder = Responder(answersImmediately: true)
        let (server, port) = try Self.start(responder)
        let reply = await TestClient.exchange(port: port, "POST /prepared HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").text
        #expect(TestClient.statuses(reply) == [200])
        #expect(reply.hasSuffix("posted"))
        #expect(responder.pooled.load(ordering: .relaxed) == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func thousandsOfPipelinedImmediateAnswersComeBackInOrderWhileAnotherClientIsServed() async throws {
        let responder = Responder(answersImmediately: true)
        let (server, port) = try Self.start(responder)
        let count = 1_000  // about 37 KB of requests: all of it fits the server's receive buffer before the client reads
        let pipelined =
            String(repeating: "GET /prepared HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\nGET /304 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", count: count / 2)
            + "GET /204 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
        async let flood = TestClient.exchange(port: port, pipelined).text
        let other = await TestClient.exchange(port: port, "GET /prepared HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n").text
        #expect(TestClient.statuses(other) == [200])
        let statuses = TestClient.statuses(await flood)
        #expect(statuses.count == count + 1)
        var expected: [Int] = []
        for _ in 0..<(count / 2) { expected += [200, 304] }
        #expect(statuses == expected + [204])
        #expect(responder.pooled.load(ordering: .relaxed) == 0)
        await server.shutdown(timeout: .seconds(1))
    }

    /// The bytes of a ``PreparedResponse`` equal the serializer's for the response it was made from, for every
    /// combination the server writes (RFC 9110 §9.3.2 HEAD; RFC 9112 §9.3 `Connection`; no body for 204/304).
    @Test(arguments: [false, true], [(keepAlive: true, http10: false), (keepAlive: false, http10: false), (keepAlive: true, http10: true)])
    func aPreparedResponseSerializesAsTheResponseItWasMadeFrom(isHead: Bool, connection: (keepAlive: Bool, http10: Bool)) throws {
        let date = Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)
        var injected = HTTPResponse.text("x")
        injected.fields.append(name: "X-Bad", value: "a\r\nSet-Cookie: b")
        injected.fields.append(name: "Content-Length", value: "99")
        for response in [
            HTTPResponse.html("<p>hi</p>"), .status(.notFound), HTTPResponse(status: .notModified, fields: ["ETag": "\"1\""]),
            HTTPResponse(status: .noContent), injected,
        ] {
            let prepared = try #require(PreparedResponse(response))
            let expected = ResponseSerializer.serialize(response, isHead: isHead, keepAlive: connection.keepAlive, http10: connection.http10, dateLine: date)
            let actual = ResponseSerializer.serialize(prepared, isHead: isHead, keepAlive: connection.keepAlive, http10: connection.http10, dateLine: date)
            #expect(actual.bytes == expected.bytes)
            #expect(actual.ownedByteCount == expected.ownedByteCount)
        }
    }
}
