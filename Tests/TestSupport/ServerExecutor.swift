import Dispatch
import HTTPServer

/// The executor the tests' HTTP servers run their responders on (`HTTPServerConfiguration.responderExecutor`): a
/// concurrent dispatch queue of its own, outside Swift's global concurrent executor. Swift Testing starts every test
/// at once on that global executor (two threads on a two-core machine); a server whose answers waited behind
/// hundreds of CPU-bound tests seemed not to answer at all, and its socket test failed with an empty reply.
public final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor every test server shares.
    public static let shared = ServerExecutor()

    private let queue = DispatchQueue(label: "TestSupport.ServerExecutor", attributes: .concurrent)

    /// Runs `job` on the queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension HTTPServerConfiguration {
    /// A server on 127.0.0.1, an ephemeral port, its responders on ``ServerExecutor/shared``.
    public static func onTestExecutor() -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.responderExecutor = ServerExecutor.shared
        return configuration
    }
}
