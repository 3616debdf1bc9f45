import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The I/O thread as a task executor (SE-0417 task executor preference, ``ResponderPlacement/eventLoop``): a
/// responder's task runs its jobs on the loop's own thread, between two polls, instead of on Swift's global concurrent
/// executor.
///
/// A request then crosses threads only where its work does: a write that goes to the database's writer comes back to
/// this thread, and nothing else wakes another thread. On the global executor each request woke a thread of the pool to
/// start it and the I/O thread again to send its answer, and with eight clients buying at once those wake-ups cost a
/// purchase about 20 µs of its 155 (`Tests/Benchmarks/README.md`, "A purchase's CPU"). Default actors follow the
/// preference (SE-0417, "Default actors and task executor preference"), so an application's actor entered by a
/// responder runs here too, while the loop holds it.
///
/// The price is the event loop's: a job that computes for long delays every connection's reading and writing behind
/// it, as a handler on a NIO event loop does. A responder that renders something large or waits on a lock belongs on
/// another executor. The dashboard's do not wait: its writes and scans suspend on their database queues; its point
/// reads (a few pages by key, microseconds from the page cache) run here and wait for a reader only when every reader
/// is in a scan (`DatabaseReaders`).
///
/// Jobs queued from another thread wake the loop through the ``Inbox``'s eventfd when they find none waiting; jobs
/// queued on the loop's thread are run before it polls again, with no wake-up. Once the loop has stopped, jobs left
/// and jobs queued later run on a Dispatch queue, so a responder still waiting on its database when the server shut
/// down finishes instead of hanging.
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    /// Wakes the loop when a job arrives from another thread.
    private let inbox: Inbox
    /// The jobs not yet run, and whether the loop has stopped taking them.
    private let state = Mutex<(jobs: [UnownedJob], stopped: Bool)>(([], false))
    /// The jobs of the round ``runJobs()`` is running; touched only on the loop's thread.
    private var running: [UnownedJob] = []
    /// The loop's thread (`pthread_self()`), once ``bindToCurrentThread()`` recorded it; 0 before.
    private let loopThread = Atomic<UInt>(0)

    /// The most rounds of jobs one turn of the loop runs (jobs queued by the jobs of a round make the next round), so
    /// tasks that keep waking each other cannot starve the sockets.
    static let roundsPerTurn = 16

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    /// Whether the calling thread is the loop's.
    var isLoopThread: Bool {
        loopThread.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Whether a job waits (the loop then polls without sleeping).
    var hasJobs: Bool { state.withLock { !$0.jobs.isEmpty } }

    /// Called on the loop's thread when it starts.
    func bindToCurrentThread() {
        loopThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wasEmpty, stopped) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopped else { return (false, true) }
            let wasEmpty = state.jobs.isEmpty
            state.jobs.append(job)
            return (wasEmpty, false)
        }
        if stopped { return runElsewhere([job]) }
        if wasEmpty && !isLoopThread { inbox.wake() }
    }

    /// Runs the jobs waiting, and those they queue, for at most ``roundsPerTurn`` rounds (on the loop's thread).
    ///
    /// The queue and ``running`` trade buffers under the lock, so a round allocates nothing: taking a copy and emptying
    /// the queue in place would make the queue copy its storage on every turn.
    func runJobs() {
        for _ in 0..<Self.roundsPerTurn {
            state.withLock { swap(&$0.jobs, &running) }
            if running.isEmpty { return }
            for job in running { job.runSynchronously(on: asUnownedTaskExecutor()) }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// The loop has stopped: the jobs left, and any queued from now on, run on ``afterStop``.
    func stop() {
        let left = state.withLock { state -> [UnownedJob] in
            state.stopped = true
            defer { state.jobs.removeAll() }
            return state.jobs
        }
        runElsewhere(left)
    }

    /// Where jobs run once their loop has stopped: a serial queue, which libdispatch gives a thread of its own when
    /// the others are busy, so they never wait behind CPU-bound work on the global executor.
    private static let afterStop = DispatchQueue(label: "HTTPServer.EventLoopExecutor.afterStop")

    private func runElsewhere(_ jobs: [UnownedJob]) {
        guard !jobs.isEmpty else { return }
        Self.afterStop.async {
            for job in jobs { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }
}
