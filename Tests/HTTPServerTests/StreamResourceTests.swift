import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// What open event streams may cost the server, over real sockets: a budget of their own per address
/// and in total (HTTPServerConfiguration.maxStreams, .maxStreamsPerAddress) answered with 503 and
/// `Retry-After` (RFC 9110 §15.6.4, §10.2.3) so that ordinary requests keep their slots; a cap on
/// what the server holds for a client that does not read, per stream and, with every other unsent
/// response, in total; and a request sent with the client's FIN (RFC 9293 §3.6) gets no stream.
// Serialized: each test opens dozens of sockets against caps the server fits to the process's descriptor limit
// (Sources/HTTPServer/EventLoop/DescriptorLimit.swift, getrlimit(2) RLIMIT_NOFILE), one limit for the whole test process, and
// reads the server's statistics as its conditions; run side by side, the tests' sockets and threads are shared.
@Suite("Event stream resources over real sockets", .serialized)
struct StreamResourceTests {
    /// Opens a stream from `source` and returns its socket (left open) with the head it got.
    static func stream(port: Int, from source: String, receiveBuffer: Int32? = nil) async -> (fd: Int32, head: String) {
        await TestClient.onThread {
            let fd = TestClient.connect(port: port, source: source, receiveBuffer: receiveBuffer)
            TestClient.send(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            return (fd, EventStreamTests.read(fd, until: "\r\n\r\n").text)
        }
    }

    /// A stream refused over its budget: the whole answer, and whether the server closed after it.
    static func refusedStream(port: Int, from source: String) async -> (text: String, closed: Bool) {
        await TestClient.onThread {
            let fd = TestClient.connect(port: port, source: source)
            defer { close(fd) }
            TestClient.send(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            return TestClient.readAll(fd)
        }
    }

    static func isRetryable503(_ reply: (text: String, closed: Bool)) -> Bool {
        let head = reply.text.lowercased()
        return TestClient.statuses(reply.text) == [503] && head.contains("retry-after: 1\r\n")
            && head.contains("connection: close\r\n") && reply.closed
    }

    @Test func aStreamOverItsAddressBudgetGets503WithRetryAfterWhileOtherAddressesStillStream() async throws {
        let (server, port, _) = try EventStreamTests.makeServer { $0.maxStreamsPerAddress = 2 }
        let first = await Self.stream(port: port, from: "127.0.0.2"), second = await Self.stream(port: port, from: "127.0.0.2")
        defer { close(first.fd); close(second.fd) }
        #expect(first.head.hasPrefix("HTTP/1.1 200") && second.head.hasPrefix("HTTP/1.1 200"))
        #expect(Self.isRetryable503(await Self.refusedStream(port: port, from: "127.0.0.2")))
        let other = await Self.stream(port: port, from: "127.0.0.3")
        defer { close(other.fd) }
        #expect(other.head.hasPrefix("HTTP/1.1 200"), "another address still has its own budget")
        let stats = await server.statistics()
        #expect(stats?.openStreams == 3)
        #expect(stats?.counters.refusedStreamOverBudget == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func streamsOverTheTotalBudgetGet503AndOrdinaryRequestsFrom127001AreStillServed() async throws {
        // Three slots in all: the two streams the budget allows leave one for everything else.
        let (server, port, _) = try EventStreamTests.makeServer {
            $0.maxStreams = 2
            $0.maxConnections = 3
        }
        let first = await Self.stream(port: port, from: "127.0.0.2"), second = await Self.stream(port: port, from: "127.0.0.3")
        defer { close(first.fd); close(second.fd) }
        #expect(first.head.hasPrefix("HTTP/1.1 200") && second.head.hasPrefix("HTTP/1.1 200"))
        for source in ["127.0.0.4", "127.0.0.5", "127.0.0.4"] {
            #expect(Self.isRetryable503(await Self.refusedStream(port: port, from: source)), "from \(source)")
        }
        let ordinary = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(ordinary.text) == [200], "a refused stream holds no slot once it is answered")
        let stats = await server.statistics()
        #expect(stats?.openStreams == 2)
        #expect(stats?.counters.refusedStreamOverBudget == 3)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aStreamWhoseClientDoesNotReadIsResetOnceWhatTheServerHoldsForItPassesItsBacklogCap() async throws {
        let (server, port, producer) = try EventStreamTests.makeServer()
        let (fd, head) = await Self.stream(port: port, from: "127.0.0.2", receiveBuffer: 4096)
        defer { close(fd) }
        #expect(head.hasPrefix("HTTP/1.1 200"))
        // One event larger than the 256 KiB default cap waits unsent for a client that reads nothing;
        // the next event behind it puts what the server holds for this client over the cap.
        producer.send("live", String(repeating: "x", count: 1024 * 1024))
        producer.send("live", "next")
        #expect(await eventually { await server.statistics()?.counters.resetStreamOverBacklog == 1 })
        #expect(await EventStreamTests.waitTerminated(producer), "the reset ends the producer")
        let stats = await server.statistics()
        #expect(stats?.openStreams == 0)
        #expect(stats?.unsentOutputBytes == 0)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func theBacklogsOfAllStreamsTogetherStayInsideTheOutputCap() async throws {
        let cap = 256 * 1024
        let (server, port, producer) = try EventStreamTests.makeServer { $0.maxUnsentOutputBytes = cap }
        let first = await Self.stream(port: port, from: "127.0.0.2", receiveBuffer: 4096)
        let second = await Self.stream(port: port, from: "127.0.0.3", receiveBuffer: 4096)
        defer { close(first.fd); close(second.fd) }
        #expect(first.head.hasPrefix("HTTP/1.1 200") && second.head.hasPrefix("HTTP/1.1 200"))
        // Each stream alone is under its own 256 KiB cap (one event being written); together they are not.
        producer.send("live", String(repeating: "y", count: 200 * 1024))
        #expect(await eventually { await server.statistics()?.counters.resetForOutputMemory == 1 })
        let stats = await server.statistics()
        #expect(stats?.openStreams == 1)
        #expect((stats?.unsentOutputBytes ?? .max) <= cap)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aStreamRequestSentWithTheClientsFINIsAnsweredAndClosedAtOnce() async throws {
        let (server, port, producer) = try EventStreamTests.makeServer()
        let reply = await TestClient.onThread { () -> (text: String, closed: Bool) in
            let fd = TestClient.connect(port: port, source: "127.0.0.2")
            defer { close(fd) }
            TestClient.send(fd, "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
            shutdown(fd, Int32(SHUT_WR))
            return TestClient.readAll(fd)  // the receive timeout (10 s) ends it if the server holds the stream open
        }
        #expect(reply.closed, "the server held a stream open for a client that had sent its FIN")
        #expect(reply.text.hasPrefix("HTTP/1.1 200 OK\r\n") && reply.text.hasSuffix("\r\n\r\n"))
        #expect(await EventStreamTests.waitTerminated(producer))
        #expect(await server.statistics()?.openStreams == 0)
        await server.shutdown(timeout: .seconds(1))
    }
}
