import CSQLite
import Dispatch
import Foundation
import Synchronization

/// `PRAGMA integrity_check` (<https://www.sqlite.org/pragma.html#pragma_integrity_check>) on a database that is
/// serving, so that a start after a clean stop stays fast and damage is still found: a read-only connection of its
/// own, on a thread of its own, using at most a share of one core.
///
/// The share is kept by SQLite's progress handler (<https://www.sqlite.org/c3ref/progress_handler.html>), called
/// every ``stepsPerCall`` virtual machine steps: once the thread has used ``slice`` of CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`) since its last pause, it sleeps as long as it takes to bring its use down to the
/// share. Time spent waiting for the disk is not CPU time and costs no pause. The thread also runs at a lower
/// scheduling priority (`setpriority(2)` on its own thread, a nice value of ``niceness``), so the server's
/// threads go first when the cores are busy. The check holds one snapshot for its whole run, so the
/// ``DatabaseCheckpointer`` does not wait for it (``DatabaseCheckpointer/holdingBackstop(_:)``).
///
/// ``cancel()`` makes the handler stop the statement at its next call (`SQLITE_INTERRUPT`) and waits until the
/// connection is closed, so the pool's connections are the last to close and the last one deletes the `-wal`.
public final class BackgroundIntegrityCheck: @unchecked Sendable {
    /// Virtual machine steps between two calls of the progress handler.
    static let stepsPerCall: Int32 = 10_000
    /// The CPU time used between two pauses.
    static let slice = Duration.milliseconds(10)
    /// How much of the file the check's connection maps into memory (`PRAGMA mmap_size`).
    static let mapBytes = 1 << 30
    /// The nice value of the check's thread (0 is the server's; 19 the lowest priority).
    static let niceness: Int32 = 10

    /// The part of one core the check uses at most, from 0.05 to 1.
    public let cpuShare: Double
    private let cancelled = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The thread's CPU time at the end of its last pause; only touched on the check's thread.
    private var sliceStart: Duration = .zero

    init(cpuShare: Double) {
        self.cpuShare = min(1, max(0.05, cpuShare))
    }

    /// Starts the check of `path` on a thread of its own; `completion` runs on that thread with `integrity_check`'s
    /// problem lines (empty when sound) or the error that stopped it (`SQLITE_INTERRUPT` after ``cancel()``).
    func start(path: String, checkpointer: DatabaseCheckpointer?, completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
        let thread = Thread { [self] in
            defer { finished.signal() }
            #if os(Linux)
            // On Linux the nice value is a thread's own, and `who` 0 names the calling thread (setpriority(2), NOTES).
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            #endif
            let result = Result { try checkpointer.map { try $0.holdingBackstop { try run(path) } } ?? run(path) }
            completion(result)
        }
        thread.name = "SQLiteDatabase.IntegrityCheck"
        thread.start()
    }

    /// Stops the check at its next progress call and waits until its connection is closed. Call it once.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        finished.wait()
    }

    private func run(_ path: String) throws -> [String] {
        let db = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        defer { try? db.close() }
        let handle = try db.connection()
        // Pages read through a memory map, not one read(2) each (<https://www.sqlite.org/mmap.html>): on a 400 MB
        // file the check used 10.4 s of CPU reading, 6.7 s mapped (Tests/Benchmarks/README.md).
        try db.execute(sql: "PRAGMA mmap_size = \(Self.mapBytes)")
        sliceStart = Self.threadCPUTime()
        sqlite3_progress_handler(
            handle, Self.stepsPerCall,
            { context in
                guard let context else { return 0 }
                return Unmanaged<BackgroundIntegrityCheck>.fromOpaque(context).takeUnretainedValue().progressed() ? 0 : 1
            }, Unmanaged.passUnretained(self).toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        let lines = try db.fetchAll(sql: "PRAGMA integrity_check") { try $0.value(at: 0, as: String.self) }
        return lines == ["ok"] ? [] : lines
    }

    /// The progress handler: pauses to keep the CPU share; `false` (stop the statement) once cancelled.
    private func progressed() -> Bool {
        guard !cancelled.load(ordering: .acquiring) else { return false }
        let used = Self.threadCPUTime() - sliceStart
        guard used >= Self.slice else { return true }
        let pause = used * ((1 - cpuShare) / cpuShare)
        let (seconds, attoseconds) = pause.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        sliceStart = Self.threadCPUTime()
        return !cancelled.load(ordering: .acquiring)
    }

    /// The CPU time this thread has used (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
    private static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}

extension DatabasePool {
    /// Starts ``BackgroundIntegrityCheck`` on this pool's file, at most `cpuShare` of one core; ``close()`` stops it
    /// first. `completion` runs on the check's thread with the problem lines (empty when sound) or the error that
    /// stopped it. At most one check runs: a second call while one runs does nothing.
    public func checkIntegrityInBackground(cpuShare: Double = 0.5, completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
        let check = BackgroundIntegrityCheck(cpuShare: cpuShare)
        let started = backgroundCheck.withLock { current in
            guard current == nil else { return false }
            current = check
            return true
        }
        guard started else { return }
        check.start(path: path, checkpointer: writer.checkpointer) { result in
            self.backgroundCheck.withLock { current in
                if current === check { current = nil }
            }
            completion(result)
        }
    }

    /// Stops every read and write for good with `error`, the database found damaged (`SQLITE_CORRUPT`): from now on
    /// each fails with it before it touches the file (``DatabaseReaders/refuseReads(with:)``,
    /// ``DatabaseWriter/refuseWrites(with:)``), so nothing more is read from it or written to it.
    public func refuseAll(with error: DatabaseError) {
        readers.refuseReads(with: error)
        writer.refuseWrites(with: error)
    }

    /// Stops a background check that still runs and waits for its connection to close (``close()`` calls it).
    func stopBackgroundCheck() {
        let running = backgroundCheck.withLock { current in
            defer { current = nil }
            return current
        }
        running?.cancel()
    }
}
