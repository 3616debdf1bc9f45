import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// What one connection may cost the server, over real sockets: a client's half-close (RFC 9293
/// §3.6) ends the connection as soon as its complete requests are answered, a client that does
/// not read is not read either and holds little memory, and one address cannot take every slot.
/// Server timeouts are set far beyond the client's receive timeout, so a test that passes saw the
/// event itself (a read returning 0) and not a timeout.
// Serialized: each test opens dozens of sockets against caps the server fits to the process's descriptor limit
// (Sources/HTTPServer/EventLoop/DescriptorLimit.swift, getrlimit(2) RLIMIT_NOFILE), one limit for the whole test process, and
// reads the server's statistics as its conditions; run side by side, the tests' sockets and threads are shared.
@Suite("Connection resources over real sockets", .serialized)
struct ConnectionResourceTests {
    static let host = "Host: 127.0.0.1"

    static func makeServer(
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        routes: (inout Router<BasicRequestContext>) -> Void = { _ in }
    ) throws -> (HTTPServer, Int) {
        var router = Router<BasicRequestContext>()
        router.get("/") { _, _ in .html("<html>home</html>") }
        router.post("/echo") { request, _ in HTTPResponse(status: .ok, body: request.body) }
        routes(&router)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderPlacement = .executor(ServerExecutor.shared)
        configuration.timeouts = HTTPTimeouts(idle: .seconds(60), head: .seconds(60), body: .seconds(60))
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: router)
        return (server, try server.start())
    }

    /// Polls the server's statistics until `condition` holds or 10 s pass; returns the last snapshot.
    static func statistics(of server: HTTPServer, until condition: (ConnectionStatistics) -> Bool) async -> ConnectionStatistics? {
        var last: ConnectionStatistics?
        _ = await eventually {
            last = await server.statistics()
            return last.map(condition) ?? false
        }
        return last
    }

    /// Sends `text`, then shuts down the client's sending side (a FIN), then reads until close or 10 s.
    static func sendThenHalfClose(port: Int, _ text: String) async -> (text: String, closed: Bool) {
        await TestClient.onThread {
            let fd = TestClient.connect(port: port, timeoutMs: 10_000)
            defer { close(fd) }
            TestClient.send(fd, text)
            shutdown(fd, Int32(SHUT_WR))
            return TestClient.readAll(fd)
        }
    }

    // MARK: half-close

    @Test func aRequestFollowedByTheClientsFINIsAnsweredThenTheConnectionCloses() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await Self.sendThenHalfClose(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n")
        #expect(TestClient.statuses(reply.text) == [200])
        #expect(reply.text.hasSuffix("<html>home</html>"))
        #expect(reply.closed, "the server kept the half-closed connection open")
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func pipelinedRequestsBeforeTheFINAreAllAnsweredInOrder() async throws {
        let (server, port) = try Self.makeServer()
        let h = "\(Self.host):\(port)\r\n"
        let reply = await Self.sendThenHalfClose(
            port: port, "GET / HTTP/1.1\r\n\(h)\r\nPOST /echo HTTP/1.1\r\n\(h)Content-Length: 4\r\n\r\nbodyGET /nope HTTP/1.1\r\n\(h)\r\n")
        #expect(TestClient.statuses(reply.text) == [200, 200, 404])
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aPartialHeadFollowedByTheFINClosesWithoutWaitingForTheHeadTimeout() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await Self.sendThenHalfClose(port: port, "GET / HTTP/1.1\r\n\(Self.host)")
        #expect(reply.text == "", "no 408: the client cannot send the rest")
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aPartialBodyFollowedByTheFINClosesWithoutWaitingForTheBodyTimeout() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await Self.sendThenHalfClose(port: port, "POST /echo HTTP/1.1\r\n\(Self.host):\(port)\r\nContent-Length: 10\r\n\r\nabc")
        #expect(reply.text == "")
        #expect(reply.closed)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aCompleteRequestAfterAnEarlierResponseAndThenTheFINIsStillAnswered() async throws {
        let (server, port) = try Self.makeServer()
        let reply = await TestClient.onThread { () -> (String?, String, Bool) in
            let fd = TestClient.connect(port: port, timeoutMs: 10_000)
            defer { close(fd) }
            TestClient.send(fd, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n")
            let first = TestClient.readResponse(fd)
            TestClient.send(fd, "GET /nope HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n")
            shutdown(fd, Int32(SHUT_WR))
            let rest = TestClient.readAll(fd)
            return (first, rest.text, rest.closed)
        }
        #expect(reply.0.map(TestClient.statuses) == [200])
        #expect(TestClient.statuses(reply.1) == [404])
        #expect(reply.2)
        await server.shutdown(timeout: .seconds(1))
    }

    // MARK: back-pressure and memory

    @Test func aClientThatDoesNotReadIsNotReadEitherAndCachedFilesAreNotCopied() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-bp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(repeating: 0x5A, count: 512 * 1024).write(to: folder.appendingPathComponent("big.bin"))
        let files = StaticFiles(root: folder)
        let (server, port) = try Self.makeServer(routes: { $0 = Router<BasicRequestContext>(fallback: files) })
        let fd = await TestClient.onThread { TestClient.connect(port: port, receiveBuffer: 16 * 1024) }
        defer { close(fd) }
        let limit = 256 << 20
        let sent = await TestClient.onThread { () -> Int in
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            let one = Array("GET /big.bin HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n".utf8)
            let batch = Array(Array(repeating: one, count: 1000).joined())
            var total = 0
            while total < limit {
                let n = batch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? total : -1 }
                total += n
            }
            return total
        }
        #expect(sent > 0 && sent < limit, "the server kept reading a client that does not read")
        let stats = try #require(await Self.statistics(of: server) { $0.unsentOutputBytes > 0 })
        #expect(stats.unsentOutputBytes > 0, "the response to the client should be waiting")
        #expect(stats.largestInputBuffer <= 32 * 1024, "\(stats.largestInputBuffer) bytes of input buffered for one connection")
        #expect(stats.unsentOutputBytes < 4 * 1024, "the cached file was copied into the response (\(stats.unsentOutputBytes) bytes)")
        let other = await TestClient.exchange(port: port, "GET /big.bin HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(other.text) == [200])
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func unsentOutputOverTheTotalCapResetsTheConnectionThatWaitedLongest() async throws {
        let size = 8 << 20
        let (server, port) = try Self.makeServer(
            { $0.maxUnsentOutputBytes = 12 << 20 },
            routes: {
                $0.get("/dynamic") { _, _ in HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: size)) }
            })
        let request = "GET /dynamic HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n"
        let first = await TestClient.onThread { TestClient.connect(port: port, timeoutMs: 10_000, receiveBuffer: 16 * 1024) }
        defer { close(first) }
        TestClient.send(first, request)
        let one = await Self.statistics(of: server) { $0.unsentOutputBytes >= size }
        #expect(one?.unsentOutputBytes ?? 0 >= size)
        let second = await TestClient.onThread { TestClient.connect(port: port, timeoutMs: 10_000, receiveBuffer: 16 * 1024) }
        defer { close(second) }
        TestClient.send(second, request)
        let stats = try #require(await Self.statistics(of: server) { $0.counters.resetForOutputMemory >= 1 })
        #expect(stats.counters.resetForOutputMemory == 1)
        #expect(stats.open == 1)
        #expect(stats.unsentOutputBytes <= 12 << 20)
        let (firstBytes, secondReply) = await TestClient.onThread { () -> (Int, String?) in
            let reset = TestClient.readAll(first).text.utf8.count
            return (reset, TestClient.readResponse(second))
        }
        #expect(firstBytes < size, "the connection that waited longest should have been reset")
        #expect(secondReply.map(TestClient.statuses) == [200])
        #expect(secondReply?.utf8.count ?? 0 > size)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func pipelinedRequestsWaitForAFewSlotsAndNeverDelayAFreshRequest() async throws {
        let gate = DelayGate()
        let (server, port) = try Self.makeServer(routes: {
            $0.get("/hold") { _, _ in
                await gate.wait()
                return .text("held")
            }
        })
        let pipelined = "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\nGET /hold HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n"
        let clients = await TestClient.onThread { (0..<40).map { _ in TestClient.connect(port: port, timeoutMs: 10_000) } }
        defer { clients.forEach { close($0) } }
        for fd in clients { TestClient.send(fd, pipelined) }
        let stats = try #require(await Self.statistics(of: server) { $0.pipelinedInFlight + $0.pipelinedWaiting == 40 })
        #expect(stats.pipelinedInFlight == EventLoop.pipelinedLimit)
        #expect(stats.pipelinedWaiting == 40 - EventLoop.pipelinedLimit)
        #expect(gate.held == EventLoop.pipelinedLimit)
        let fresh = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(fresh.text) == [200], "a fresh request waited behind the pipelined ones")
        gate.open()
        let answers = await TestClient.onThread { clients.map { TestClient.readAll($0) } }
        #expect(answers.allSatisfy { TestClient.statuses($0.text) == [200, 200] && $0.closed })
        await server.shutdown(timeout: .seconds(1))
    }

    // MARK: connection slots

    @Test func oneAddressGets503OverItsConnectionCapWhileOthersAreServed() async throws {
        let (server, port) = try Self.makeServer { $0.maxConnectionsPerAddress = 3 }
        let held = await TestClient.onThread { (0..<3).map { _ in TestClient.connect(port: port, source: "127.0.0.2") } }
        defer { held.forEach { close($0) } }
        #expect(held.allSatisfy { $0 >= 0 })
        let three = await Self.statistics(of: server) { $0.openByAddress["127.0.0.2"] == 3 }
        #expect(three?.openByAddress["127.0.0.2"] == 3)
        let refused = await TestClient.onThread { () -> (text: String, closed: Bool) in
            let fd = TestClient.connect(port: port, timeoutMs: 10_000, source: "127.0.0.2")
            defer { close(fd) }
            return TestClient.readAll(fd)
        }
        #expect(TestClient.statuses(refused.text) == [503])
        #expect(refused.closed)
        let served = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(served.text) == [200])
        #expect(await server.statistics()?.counters.refusedOverAddressCap == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aFullTableClosesAnIdleConnectionOfTheMostConnectedAddressForANewClient() async throws {
        let (server, port) = try Self.makeServer { $0.maxConnections = 4 }
        let held = await TestClient.onThread {
            ["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.3"].map { TestClient.connect(port: port, source: $0) }
        }
        defer { held.forEach { close($0) } }
        let full = await Self.statistics(of: server) { $0.open == 4 }
        #expect(full?.open == 4)
        let served = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(served.text) == [200], "a new client was refused although idle connections held the table")
        let after = try #require(await Self.statistics(of: server) { $0.counters.closedIdleForNewConnection == 1 })
        #expect(after.counters.closedIdleForNewConnection == 1)
        #expect(after.openByAddress["127.0.0.2"] == 2)
        #expect(after.openByAddress["127.0.0.3"] == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aFullTableClosesARequestStillArrivingFromAnAddressHoldingMoreThanTwiceTheNewcomers() async throws {
        let (server, port) = try Self.makeServer { $0.maxConnections = 4 }
        // Each announces a body and sends one byte of it: none is idle, and the body deadline (60 s here) is far off.
        let trickle = "POST /echo HTTP/1.1\r\n\(Self.host):\(port)\r\nContent-Length: 100000\r\n\r\nx"
        let held = await TestClient.onThread {
            (0..<4).map { _ in
                let fd = TestClient.connect(port: port, source: "127.0.0.2")
                TestClient.send(fd, trickle)
                return fd
            }
        }
        defer { held.forEach { close($0) } }
        let full = await Self.statistics(of: server) { $0.open == 4 && $0.receivingRequests == 4 }
        #expect(full?.open == 4)
        let served = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(served.text) == [200], "a new client waited behind bodies that trickle in")
        let after = try #require(await Self.statistics(of: server) { $0.counters.closedPartialRequestForNewConnection == 1 })
        #expect(after.counters.closedIdleForNewConnection == 0)
        #expect(after.openByAddress["127.0.0.2"] == 3)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aFullTableClosesAnAnsweredConnectionLingeringBeforeItsCloseForALighterAddress() async throws {
        let (server, port) = try Self.makeServer {
            $0.maxConnections = 4
            $0.timeouts.linger = .seconds(60)
        }
        // Each is answered with a closing response and keeps its end open: the server lingers, waiting for the close.
        let held = await TestClient.onThread {
            (0..<4).map { _ in
                let fd = TestClient.connect(port: port, source: "127.0.0.2")
                TestClient.send(fd, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
                return fd
            }
        }
        defer { held.forEach { close($0) } }
        let answers = await TestClient.onThread { held.map { TestClient.readResponse($0) } }
        #expect(answers.allSatisfy { $0.map(TestClient.statuses) == [200] })
        let full = await Self.statistics(of: server) { $0.open == 4 }
        #expect(full?.open == 4, "answered, and lingering until their clients close")
        let served = await TestClient.exchange(port: port, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(TestClient.statuses(served.text) == [200], "a new client waited behind connections that were already answered")
        let after = await server.statistics()
        #expect(after?.counters.closedLingeringForNewConnection == 1)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func addressesOfLikeWeightNeverPushOutEachOthersRequests() async throws {
        let (server, port) = try Self.makeServer { $0.maxConnections = 4 }
        let trickle = "POST /echo HTTP/1.1\r\n\(Self.host):\(port)\r\nContent-Length: 100000\r\n\r\nx"
        let held = await TestClient.onThread {
            ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"].map { source in
                let fd = TestClient.connect(port: port, source: source)
                TestClient.send(fd, trickle)
                return fd
            }
        }
        defer { held.forEach { close($0) } }
        let full = await Self.statistics(of: server) { $0.open == 4 && $0.receivingRequests == 4 }
        #expect(full?.receivingRequests == 4)
        let refused = await TestClient.onThread { () -> (text: String, closed: Bool) in
            let fd = TestClient.connect(port: port, timeoutMs: 10_000, source: "127.0.0.3")
            defer { close(fd) }
            return TestClient.readAll(fd)
        }
        #expect(TestClient.statuses(refused.text) == [503], "an address holding 2 closed a request of another holding 2")
        let stats = await server.statistics()
        #expect(stats?.counters.closedPartialRequestForNewConnection == 0)
        #expect(stats?.openByAddress["127.0.0.2"] == 2)
        await server.shutdown(timeout: .seconds(1))
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheFirstByteTimeout() async throws {
        let (server, port) = try Self.makeServer { $0.timeouts.firstByte = .milliseconds(200) }
        let talker = await TestClient.onThread { () -> (Int32, String?) in
            let fd = TestClient.connect(port: port, timeoutMs: 10_000)
            TestClient.send(fd, "GET / HTTP/1.1\r\n\(Self.host):\(port)\r\n\r\n")
            return (fd, TestClient.readResponse(fd))
        }
        defer { close(talker.0) }
        #expect(talker.1.map(TestClient.statuses) == [200])
        let silent = await TestClient.onThread { () -> (text: String, closed: Bool) in
            let fd = TestClient.connect(port: port, timeoutMs: 10_000)
            defer { close(fd) }
            return TestClient.readAll(fd)
        }
        #expect(silent.text == "")
        #expect(silent.closed, "a connection that never sent a byte was kept open")
        let stats = await server.statistics()
        #expect(stats?.counters.closedWithoutFirstByte == 1)
        #expect(stats?.open == 1, "the keep-alive connection that did send a request stays open (idle timeout 60 s)")
        await server.shutdown(timeout: .seconds(1))
    }
}
