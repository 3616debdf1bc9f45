import CSQLite
import Foundation

/// A `-wal` deleted while open: no write is acknowledged until the commits it holds are in the database file.
///
/// SQLite keeps writing through the descriptor it opened (``DatabaseFileWatch``), so after `rm tipjar.sqlite3-wal`
/// every commit since the last checkpoint lives in a file no path names: the next start would not read it. The one
/// way back is a checkpoint on a connection that still has the old log open, copying every frame into the database
/// file and syncing it (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>). A `FULL` checkpoint returns
/// `SQLITE_BUSY` while another connection runs a checkpoint (the ``DatabaseCheckpointer``'s) or while a reader still
/// needs an older snapshot, and succeeds once they finish; so it is retried with back-off, for at most
/// ``DatabaseConfiguration/walRescueLimit``, and counted as done only when it copied every frame the log holds
/// (its `pnCkpt` equals its `pnLog`). Meanwhile every new write fails at once with the writer's fault (before
/// `BEGIN`, nothing half-done) and reads go on. Writes stay stopped afterwards, until the server restarts: a new
/// `-wal` can only be made by reopening the database.
///
/// The loss is looked for twice: before each write transaction (``beginWriteTransaction(_:)``) and after each
/// `COMMIT` (one `stat` of the log), so a commit that landed in a log deleted during its transaction is answered
/// only after it was copied into the database file, or fails if that cannot be done in time.
extension DatabaseWriter {
    /// The longest pause between two checkpoint attempts.
    static let longestRescuePause = Duration.seconds(1)
    /// How long one attempt lets SQLite's busy handler wait for readers, in milliseconds (a short wait, then a pause
    /// of our own, so that an attempt never holds the writer's queue for the whole busy timeout).
    static let rescueBusyWaitMilliseconds: Int32 = 100

    /// Stops writes for good with `error` (the database was found damaged, say): every write handed over from now
    /// on fails at once with it, and every write already queued fails before its `BEGIN`. The first fault stays.
    public func refuseWrites(with error: DatabaseError) {
        writeFault.withLock { $0 = $0 ?? error }
    }

    /// Stops writes for good after the file watch found `fault`, reported once through
    /// ``DatabaseConfiguration/onFault``. When the file is the `-wal`, new writes are refused at once and its commits
    /// are first copied into the database file (``secureCommits(_:)``); the fault's message says how that went.
    /// - Returns: The fault every write fails with from now on, and whether the log's commits are safe.
    func stopWrites(after fault: DatabaseError, _ db: Database) -> (fault: DatabaseError, secured: Bool) {
        writeFault.withLock { $0 = $0 ?? fault }  // new writes fail at once while the commits are secured
        var final = fault
        var secured = true
        if fault.path != path {
            let rescue = secureCommits(db)
            secured = rescue.secured
            let outcome =
                rescue.secured
                ? "every commit it held was copied into \(path) (checkpoint attempt \(rescue.attempts))"
                : "copying its commits into \(path) failed for \(rescue.seconds) s (\(rescue.attempts) checkpoint attempts, last: \(rescue.lastProblem)): "
                    + "writes not yet answered fail, and commits acknowledged before the deletion are lost at the next crash"
            final = DatabaseError(
                extendedResultCode: fault.extendedResultCode, message: "\(fault.message); \(outcome); writes stay stopped until the server restarts",
                path: fault.path)
        }
        writeFault.withLock { current in
            if current?.message == fault.message { current = final }
        }
        configuration.onFault?(final)
        return (final, secured)
    }

    /// After a `COMMIT`: `nil` while the `-wal` is the one opened (one `stat`). Otherwise writes stop
    /// (``stopWrites(after:_:)``) and the answer is `nil` once the commit is in the database file, or the error its
    /// writes fail with when it could not be put there within ``DatabaseConfiguration/walRescueLimit``.
    func commitsAtRiskAfterCommit(_ db: Database) -> DatabaseError? {
        guard let fault = fileWatch.walProblem() else { return nil }
        let stopped = stopWrites(after: fault, db)
        return stopped.secured ? nil : stopped.fault
    }

    /// Copies every frame of the WAL that `db` has open into the database file with `FULL` checkpoints, retried
    /// with back-off (5 ms, doubling, at most ``longestRescuePause``) until one copies every frame or
    /// ``DatabaseConfiguration/walRescueLimit`` passed. Runs on the writer's queue, outside any transaction.
    func secureCommits(_ db: Database) -> (secured: Bool, attempts: Int, seconds: Int64, lastProblem: String) {
        let started = ContinuousClock.now
        guard let handle = db.handle else { return (false, 0, 0, "the connection is closed") }
        sqlite3_busy_timeout(handle, min(Self.rescueBusyWaitMilliseconds, configuration.busyTimeoutMilliseconds))
        defer { sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds) }
        var pause = Duration.milliseconds(5)
        var attempts = 0
        var lastProblem = ""
        while true {
            attempts += 1
            rescueAttempts.add(1, ordering: .relaxed)
            var logged: Int32 = 0
            var copied: Int32 = 0
            let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_FULL, &logged, &copied)
            if code == SQLITE_OK, copied == logged { return (true, attempts, (ContinuousClock.now - started).components.seconds, "") }
            lastProblem =
                code == SQLITE_OK
                ? "\(copied) of \(logged) frames copied" : DatabaseError.fromConnection(handle, code: code).message
            let elapsed = ContinuousClock.now - started
            guard elapsed + pause < configuration.walRescueLimit else { return (false, attempts, elapsed.components.seconds, lastProblem) }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, Self.longestRescuePause)
        }
    }
}
