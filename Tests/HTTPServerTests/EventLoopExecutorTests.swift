import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Where a responder's task runs (``ResponderPlacement``): by default on the server's I/O thread, before and after
/// whatever it waits for on other threads, and inside the default actors it enters (SE-0417, "Default actors and task
/// executor preference"); a task that keeps yielding cannot keep the thread from the sockets; a task still waiting
/// when the server stops finishes anyway.
@Suite("Responders on the I/O thread")
struct EventLoopExecutorTests {
    static func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// Records the threads a request ran on.
    final class Threads: Sendable {
        let seen = Mutex<[String: UInt]>([:])
        func note(_ name: String) { seen.withLock { $0[name] = EventLoopExecutorTests.currentThread() } }
        subscript(_ name: String) -> UInt? { seen.withLock { $0[name] } }
    }

    /// An actor without an executor of its own (a default actor), as an application's service is.
    actor Service {
        func work(_ threads: Threads) { threads.note("actor") }
    }

    /// `/wait`: notes its thread, waits for a continuation resumed on a thread of its own, notes its thread again, enters
    /// the actor. `/spin`: yields until told to stop. Anything else: answered at once.
    final class Responder: HTTPResponder {
        let threads: Threads
        let service = Service()
        let stopSpinning = Atomic<Bool>(false)

        init(threads: Threads) { self.threads = threads }

        func respond(to request: HTTPRequest) async -> HTTPResponse {
            switch request.path {
            case "/wait":
                threads.note("before")
                await withCheckedContinuation { continuation in Thread { continuation.resume() }.start() }
                threads.note("after")
                await service.work(threads)
                return .text("waited")
            case "/spin":
                while !stopSpinning.load(ordering: .relaxed) { await Task.yield() }
                return .text("spun")
            default:
                return .text("at once")
            }
        }
    }

    static func start(_ responder: some HTTPResponder, placement: ResponderPlacement, threads: Threads) throws -> (HTTPServer, Int) {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderPlacement = placement
        let server = HTTPServer(configuration: configuration, responder: responder) { _ in threads.note("I/O") }
        return (server, try server.start())
    }

    @Test func aRespondersTaskRunsOnTheIOThreadBeforeAndAfterItWaitsAndInsideTheActorsItEnters() async throws {
        let threads = Threads()
        let (server, port) = try Self.start(Responder(threads: threads), placement: .eventLoop, threads: threads)
        let reply = await TestClient.reply(port: port, "GET /wait HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        await server.shutdown()
        #expect(reply.status == 200 && reply.body == "waited")
        let io = try #require(threads["I/O"])
        #expect(threads["before"] == io)
        #expect(threads["after"] == io, "the task came back to another thread after its wait")
        #expect(threads["actor"] == io, "the default actor ran elsewhere")
    }

    /// On an executor of the application's (here the tests' own: Swift's global executor is what the tests running at
    /// once keep busy, for seconds), the responder runs off the I/O thread.
    @Test func onAnExecutorOfItsOwnARespondersTaskRunsOffTheIOThread() async throws {
        let threads = Threads()
        let (server, port) = try Self.start(Responder(threads: threads), placement: .executor(ServerExecutor.shared), threads: threads)
        let reply = await TestClient.reply(port: port, "GET /wait HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        await server.shutdown()
        #expect(reply.status == 200)
        let io = try #require(threads["I/O"])
        #expect(threads["before"] != nil && threads["before"] != io)
    }

    @Test func aTaskThatKeepsYieldingLeavesTheIOThreadToOtherConnections() async throws {
        let threads = Threads()
        let responder = Responder(threads: threads)
        let (server, port) = try Self.start(responder, placement: .eventLoop, threads: threads)
        let spinner = Task { await TestClient.reply(port: port, "GET /spin HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n") }
        // While that task holds a turn of the loop after another, other connections are still read and answered.
        for _ in 0..<5 {
            let reply = await TestClient.reply(port: port, "GET /other HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(reply.status == 200 && reply.body == "at once")
        }
        responder.stopSpinning.store(true, ordering: .relaxed)
        #expect(await spinner.value.body == "spun")
        await server.shutdown()
    }

    /// A responder waits on something that is given only after the server stopped (a database write still running
    /// at shutdown): the rest of its task runs all the same, on another thread, instead of waiting forever.
    @Test func aTaskStillWaitingWhenTheServerStopsFinishes() async throws {
        final class Waiting: HTTPResponder {
            let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
            let finished = Atomic<Bool>(false)
            func respond(to request: HTTPRequest) async -> HTTPResponse {
                await withCheckedContinuation { continuation in waiter.withLock { $0 = continuation } }
                finished.store(true, ordering: .relaxed)
                return .text("late")
            }
        }
        let responder = Waiting()
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: responder)
        let port = try server.start()
        let client = Task { await TestClient.exchange(port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", timeoutMs: 5_000) }
        #expect(await eventually { responder.waiter.withLock { $0 != nil } })
        await server.shutdown(timeout: .milliseconds(50))
        responder.waiter.withLock { $0?.resume() }
        #expect(await eventually { responder.finished.load(ordering: .relaxed) })
        _ = await client.value
    }
}
