import Dispatch
import HTTPServer
import Synchronization

/// The executor the tests' HTTP servers run their responders on (`HTTPServerConfiguration.responderPlacement`, `.executor`): a
/// concurrent dispatch queue of its own, outside Swift's global concurrent executor. Swift Testing starts every test
/// at once on that global executor (two threads on a two-core machine); a server whose answers waited behind
/// hundreds of CPU-bound tests seemed not to answer at all, and its socket test failed with an empty reply.
public final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor every test server shares.
    public static let shared = ServerExecutor()

    /// Serial queues, taken in turn: libdispatch gives a serial queue a thread of its own when the others are busy
    /// (it overcommits), where a concurrent queue is held to one thread per core, so a job that blocks its thread
    /// (a handler that works for a while) cannot stall every other server's answers.
    private let lanes = (0..<8).map { DispatchQueue(label: "TestSupport.ServerExecutor.\($0)") }
    private let next = Atomic<Int>(0)

    /// Runs `job` on the next lane.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let lane = lanes[next.add(1, ordering: .relaxed).newValue % lanes.count]
        lane.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension HTTPServerConfiguration {
    /// A server on 127.0.0.1, an ephemeral port, its responders on ``ServerExecutor/shared``.
    public static func onTestExecutor() -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderPlacement = .executor(ServerExecutor.shared)
        return configuration
    }
}

extension HTTPServerConfiguration {
    /// A server on 127.0.0.1, an ephemeral port, its responders where `tipjar serve` runs them: on the server's own
    /// I/O thread (``ResponderPlacement/eventLoop``, the default), which the tests running at once on the global
    /// executor cannot hold up either.
    public static func asServed() -> HTTPServerConfiguration {
        HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    }
}
