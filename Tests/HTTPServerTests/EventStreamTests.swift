import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Streamed responses (``HTTPBodyStream``) over real sockets: server-sent events as the WHATWG HTML
/// standard describes them (https://html.spec.whatwg.org/multipage/server-sent-events.html), framed by
/// the connection's close (RFC 9112 §6.3), kept alive past the idle timeout, ended by shutdown, and
/// counted in the connection caps.
// Serialized: its servers' caps are fitted to the process's one descriptor limit (`DescriptorLimit.swift`), and a
// stream another test of it holds open counts against them.
@Suite("Event streams over real sockets", .serialized)
struct EventStreamTests {
    /// The producer side of the route's stream, and whether the server has ended it.
    final class Producer: Sendable {
        let continuations = Mutex<[AsyncStream<[UInt8]>.Continuation]>([])
        let terminated = Mutex(0)

        func stream() -> AsyncStream<[UInt8]> {
            let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
            continuation.onTermination = { [self] _ in terminated.withLock { $0 += 1 } }
            continuations.withLock { $0.append(continuation) }
            return stream
        }

        func send(_ name: String, _ data: String) {
            for continuation in continuations.withLock({ $0 }) { continuation.yield(HTTPResponse.serverSentEvent(name, data: data)) }
        }
    }

    static func makeServer(
        heartbeat: Duration = .seconds(60), _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    )
        throws -> (HTTPServer, Int, Producer)
    {
        let producer = Producer()
        var router = Router<BasicRequestContext>()
        router.get("/") { _, _ in .html("<html>home</html>") }
        router.get("/events") { _, _ in .eventStream(HTTPBodyStream(chunks: producer.stream(), heartbeatInterval: heartbeat)) }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderPlacement = .executor(ServerExecutor.shared)
        configuration.timeouts = HTTPTimeouts(idle: .seconds(60), head: .seconds(60), body: .seconds(60))
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: router)
        return (server, try server.start(), producer)
    }

    /// Reads until `text` holds `needle` `count` times, the peer closes, or the receive timeout passes.
    static func read(_ fd: Int32, until needle: String, count: Int = 1) -> (text: String, closed: Bool) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let text = String(decoding: data, as: UTF8.self)
            if text.components(separatedBy: needle).count - 1 >= count { return (text, false) }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { data += buffer[0..<n]; continue }
            return (text, n == 0)
        }
    }

    static func openStream(port: Int, source: String? = nil) async -> (fd: Int32, head: String) {
        await TestClient.onThread {
            let fd = TestClient.connect(port: port, source: source)
            TestClient.send(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            return (fd, read(fd, until: "\r\n\r\n").text)
        }
    }

    /// Waits (deadline 10 s) until the producer's stream has been ended `count` times.
    static func waitTerminated(_ producer: Producer, count: Int = 1) async -> Bool {
        await eventually { producer.terminated.withLock { $0 } >= count }
    }

    @Test func theHeadIsAnEventStreamWithoutLengthAndEachEventIsWrittenAsItComes() async throws {
        let (server, port, producer) = try Self.makeServer()
        let (fd, head) = await Self.openStream(port: port)
        defer { close(fd) }
        let lines = head.lowercased().components(separatedBy: "\r\n")
        #expect(lines.first == "http/1.1 200 ok")
        #expect(lines.contains("content-type: text/event-stream; charset=utf-8"))
        #expect(lines.contains("cache-control: no-store"))
        #expect(lines.contains("connection: close"), "the body ends with the connection (RFC 9112 §6.3)")
        #expect(!lines.contains { $0.hasPrefix("content-length:") || $0.hasPrefix("transfer-encoding:") })
        producer.send("live", "<p>one</p>\n<p>two</p>")
        let event = await TestClient.onThread { Self.read(fd, until: "\n\n") }
        #expect(event.text == "event: live\ndata: <p>one</p>\ndata: <p>two</p>\n\n")
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aSilentStreamGetsKeepAliveCommentsAndOutlivesTheIdleTimeout() async throws {
        let (server, port, producer) = try Self.makeServer(heartbeat: .milliseconds(100)) {
            $0.timeouts.idle = .milliseconds(150)
            $0.timeouts.firstByte = .milliseconds(150)
        }
        let (fd, _) = await Self.openStream(port: port)
        defer { close(fd) }
        // Four comments are at least 400 ms of silence, well past the 150 ms idle timeout.
        let comments = await TestClient.onThread { Self.read(fd, until: ": keep-alive\n\n", count: 4) }
        #expect(!comments.closed)
        #expect(comments.text.components(separatedBy: ": keep-alive\n\n").count - 1 >= 4)
        producer.send("live", "still here")
        let event = await TestClient.onThread { Self.read(fd, until: "data: still here\n\n") }
        #expect(event.text.hasSuffix("event: live\ndata: still here\n\n"))
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func shutdownEndsAnOpenStreamAndItsProducer() async throws {
        let (server, port, producer) = try Self.makeServer()
        let (fd, head) = await Self.openStream(port: port)
        defer { close(fd) }
        #expect(head.hasPrefix("HTTP/1.1 200"))
        let stopped = Task { await server.shutdown(timeout: .seconds(30)) }
        let rest = await TestClient.onThread { TestClient.readAll(fd) }
        #expect(rest.closed, "the stream stayed open after shutdown began")
        await stopped.value
        #expect(await Self.waitTerminated(producer))
    }

    @Test func aHeadRequestGetsTheHeadOnlyAndEndsTheProducer() async throws {
        let (server, port, producer) = try Self.makeServer()
        let reply = await TestClient.exchange(port: port, "HEAD /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(reply.closed)
        #expect(reply.text.hasPrefix("HTTP/1.1 200 OK\r\n") && reply.text.hasSuffix("\r\n\r\n"))
        #expect(reply.text.contains("text/event-stream"))
        #expect(await Self.waitTerminated(producer))
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aClientThatLeavesEndsTheProducer() async throws {
        let (server, port, producer) = try Self.makeServer()
        let (fd, _) = await Self.openStream(port: port)
        close(fd)
        #expect(await Self.waitTerminated(producer))
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func anOpenStreamCountsAgainstThePerAddressCap() async throws {
        let (server, port, _) = try Self.makeServer { $0.maxConnectionsPerAddress = 1 }
        let (fd, head) = await Self.openStream(port: port, source: "127.0.0.2")
        defer { close(fd) }
        #expect(head.hasPrefix("HTTP/1.1 200"))
        let refused = await TestClient.onThread { () -> (text: String, closed: Bool) in
            let second = TestClient.connect(port: port, source: "127.0.0.2")
            defer { close(second) }
            TestClient.send(second, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            return TestClient.readAll(second)
        }
        #expect(TestClient.statuses(refused.text) == [503])
        #expect(await server.statistics()?.openByAddress["127.0.0.2"] == 1)
        await server.shutdown(timeout: .seconds(1))
    }
}
