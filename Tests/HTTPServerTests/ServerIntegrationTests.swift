import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

// Serialized: its tests share `slowRequestsStarted`, a process-wide count of `/slow` requests that reached the handler.
@Suite("Server over real sockets", .serialized)
struct ServerIntegrationTests {
    /// How many `/slow` requests reached their handler, so a test can wait for one to be in flight.
    static let slowRequestsStarted = Mutex(0)

    static func makeServer(
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        log: (@Sendable (AccessLogEntry) -> Void)? = nil
    ) throws -> (HTTPServer, Int) {
        var router = Router<BasicRequestContext>()
        router.get("/") { _, _ in .html("<html>home</html>") }
        router.post("/echo") { request, _ in HTTPResponse(status: .ok, body: request.body) }
        router.get("/slow") { _, _ in
            slowRequestsStarted.withLock { $0 += 1 }
            try? await Task.sleep(for: .milliseconds(300))  // the handler's own work, 300 ms of it
            return .text("slow")
        }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderPlacement = .executor(ServerExecutor.shared)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: router, accessLog: log)
        return (server, try server.start())
    }

    @Test func servesGetWithDateAndContentLength() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        #expect(reply.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(reply.text.contains("\r\nDate: "))
        #expect(reply.text.contains("\r\nContent-Length: 17\r\n"))
        #expect(reply.text.contains("Connection: close"))
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        let (server, port) = try Self.makeServer()
        let h = "Host: 127.0.0.1:\(port)\r\n"
        let reply = await TestClient.exchange(
            port: port,
            "GET /slow HTTP/1.1\r\n\(h)\r\nPOST /echo HTTP/1.1\r\n\(h)Content-Length: 4\r\n\r\nbodyGET /nope HTTP/1.1\r\n\(h)Connection: close\r\n\r\n")
        #expect(TestClient.statuses(reply.text) == [200, 200, 404])
        #expect(reply.text.range(of: "slow")!.lowerBound < reply.text.range(of: "body")!.lowerBound)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func closesAfterFramingError() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.exchange(
            port: port,
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(TestClient.statuses(reply.text) == [400])
        #expect(reply.text.contains("Connection: close"))
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func headKeepsContentLengthWithoutBody() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.exchange(port: port, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        #expect(reply.text.contains("Content-Length: 17\r\n"))
        #expect(reply.text.hasSuffix("\r\n\r\n"))
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func sendsContinueBeforeBody() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.onThread { () -> String in
            let fd = TestClient.connect(port: port, timeoutMs: 1000)
            defer { close(fd) }
            TestClient.send(fd, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
            var buffer = [UInt8](repeating: 0, count: 1024)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            let first = String(decoding: buffer[0..<max(0, n)], as: UTF8.self)
            TestClient.send(fd, "hi")
            return first + "|" + TestClient.readAll(fd).text
        }
        #expect(reply.hasPrefix("HTTP/1.1 100 Continue\r\n\r\n|HTTP/1.1 200"))
        #expect(reply.hasSuffix("hi"))
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func writesAccessLog() async throws {
        let entries = Mutex<[AccessLogEntry]>([])
        let (server, port) = try Self.makeServer(log: { entry in entries.withLock { $0.append(entry) } })
        _ = await TestClient.exchange(port: port, "GET /nope?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        await server.shutdown(timeout: .seconds(1))
        let entry = try #require(entries.withLock { $0.first })
        #expect(entry.method == "GET")
        #expect(entry.target == "/nope?x=1")
        #expect(entry.status == 404)
        #expect(!entry.requestID.isEmpty)
        #expect(entry.description.contains("status=404"))
    }

    @Test func closesIdleKeepAliveConnection() async throws {
        let (server, port) = try Self.makeServer { $0.timeouts.idle = .milliseconds(300) }
        let reply = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        // The response keeps the connection open (RFC 9112 section 9.3: persistent by default), nothing follows it,
        // and the server closes it: `closed` is the peer's end of file, never the client's 10 s receive timeout,
        // and the server's idle time is 300 ms where its default (15 s) would outlast the client.
        #expect(TestClient.statuses(reply.text) == [200])
        #expect(!reply.text.lowercased().contains("connection: close"), "the close is the idle timeout's, not the response's")
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func cutsOffSlowHeadWith408() async throws {
        let (server, port) = try Self.makeServer { $0.timeouts.head = .milliseconds(300) }
        let reply = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1")
        #expect(TestClient.statuses(reply.text) == [408])
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func shedsLoadWith503OverTheCapWhenNoConnectionIsIdle() async throws {
        let (server, port) = try Self.makeServer { $0.maxConnections = 1 }
        let first = await TestClient.onThread { () -> Int32 in
            let first = TestClient.connect(port: port)
            TestClient.send(first, "GET / HTTP/1.1\r\n")  // a request in progress: not idle, not given up
            return first
        }
        defer { close(first) }
        // The server holds the first request's bytes: that connection is not idle, so it is not closed for the next.
        let holding = await ConnectionResourceTests.statistics(of: server) { $0.open == 1 && $0.inputBufferBytes > 0 }
        #expect(holding.map { $0.open == 1 && $0.inputBufferBytes > 0 } == true, "\(String(describing: holding))")
        let reply = await TestClient.onThread { () -> String in
            let second = TestClient.connect(port: port)
            defer { close(second) }
            return TestClient.readAll(second).text
        }
        #expect(TestClient.statuses(reply) == [503])
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func holdsManyIdleConnectionsCheaply() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.onThread { () -> String in
            // Four client addresses, 250 each: under the per-address cap (512 by default).
            let idle = (0..<1000).map { TestClient.connect(port: port, source: "127.0.0.\(10 + $0 % 4)") }
            defer { idle.forEach { close($0) } }
            let fd = TestClient.connect(port: port)
            defer { close(fd) }
            TestClient.send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            return TestClient.readAll(fd).text
        }
        #expect(TestClient.statuses(reply) == [200])
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func shutdownFinishesInFlightRequest() async throws {
        let (server, port) = try Self.makeServer()
        let started = Self.slowRequestsStarted.withLock { $0 }
        async let reply = TestClient.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(await eventually { Self.slowRequestsStarted.withLock { $0 } > started }, "the request reached its handler")
        await server.shutdown(timeout: .seconds(5))
        let text = await reply.text
        #expect(TestClient.statuses(text) == [200])
        #expect(text.contains("Connection: close"))
        #expect(TestClient.connect(port: port) < 0)
    }

    @Test func bindsIPv6LoopbackAndLocalhost() async throws {
        let (v6, v6Port) = try Self.makeServer { $0.host = "::1" }
        let reply = await TestClient.onThread { () -> String in
            let fd = TestClient.connect(port: v6Port, host: "::1")
            defer { close(fd) }
            TestClient.send(fd, "GET / HTTP/1.1\r\nHost: [::1]:\(v6Port)\r\nConnection: close\r\n\r\n")
            return TestClient.readAll(fd).text
        }
        #expect(TestClient.statuses(reply) == [200])
        await v6.shutdown(timeout: .seconds(1))
        let (local, localPort) = try Self.makeServer { $0.host = "localhost" }
        let localReply = await TestClient.exchange(port: localPort, "GET / HTTP/1.1\r\nHost: localhost:\(localPort)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(localReply.text) == [200])
        await local.shutdown(timeout: .seconds(1))
    }
}
