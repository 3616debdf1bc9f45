import CSQLite
import Dispatch

/// Group commit (``DatabaseConfiguration/groupCommit``): writes that arrive while the writer is
/// busy are run together in one `BEGIN IMMEDIATE … COMMIT`, each in its own SAVEPOINT
/// (<https://www.sqlite.org/lang_savepoint.html>), and each caller is answered after that `COMMIT`.
extension DatabaseWriter {
    /// Group commit: queues `body` for the next batch; `completion` runs on the writer's queue
    /// with what `body` returned once the batch committed, with what it threw (its savepoint rolled
    /// back, before the next job runs), or with the error that undid the batch.
    func enqueue<T>(
        _ body: @escaping @Sendable (Database) throws -> T, savepoint: Bool = true,
        completion: @escaping (Result<T, any Error>) -> Void
    ) {
        let box = ResultBox<T>()
        let job = WriteJob(
            ticket: nextTicket(),
            needsSavepoint: savepoint,
            run: { db in
                box.result = Result { try body(db) }
                if case .failure = box.result { return false }
                return true
            },
            finish: { error in completion(error.map { .failure($0) } ?? box.result!) })
        pendingWrites.withLock { $0.append(job) }
        queue.async { self.drainPendingWrites() }
    }

    /// Group commit: runs every pending job in one transaction, each in a SAVEPOINT.
    func drainPendingWrites() {
        var jobs = pendingWrites.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        guard !jobs.isEmpty else { return }  // an earlier drain took them
        let db: Database
        do { db = try openDatabase() } catch {
            jobs.forEach { $0.finish(error) }
            return
        }
        while !jobs.isEmpty {
            // Writes queued while a lock wait timed out share its error instead of waiting again.
            jobs.removeAll { job in
                guard let error = lockWaitError(job.ticket) else { return false }
                job.finish(error)
                return true
            }
            guard !jobs.isEmpty else { return }
            do {
                try beginWriteTransaction(db)
            } catch {
                jobs.forEach { $0.finish(error) }
                return
            }
            var succeeded: [WriteJob] = []
            var transactionLost: Error?
            while !jobs.isEmpty, transactionLost == nil {
                let job = jobs.removeFirst()
                let ok: Bool
                if job.needsSavepoint {
                    do {
                        try db.inSavepoint { () throws -> Void in
                            if !job.run(db) { throw ClosureFailed() }
                        }
                        ok = true
                    } catch {
                        ok = false
                    }
                } else {
                    ok = job.run(db)  // it changes nothing when it fails (`write(savepoint:_:)`)
                }
                // A failed job learns it at once (its work is already undone), before the next job runs.
                if ok { succeeded.append(job) } else { job.finish(nil) }
                if !db.isInsideTransaction {
                    // SQLite rolled back the whole transaction (e.g. SQLITE_FULL): the
                    // earlier jobs' work is gone too.
                    transactionLost = DatabaseError(
                        extendedResultCode: SQLITE_ABORT, message: "group-committed write was rolled back because another write in the same transaction failed", path: path)
                }
            }
            if let transactionLost {
                succeeded.forEach { $0.finish(transactionLost) }
                continue
            }
            do {
                try db.cachedStatement(sql: "COMMIT").execute()
                configuration.onCommit?()
                // A COMMIT into a -wal deleted meanwhile is answered only once it is in the database file.
                let lost = commitsAtRiskAfterCommit(db)
                succeeded.forEach { $0.finish(lost) }
            } catch {
                db.rollbackIgnoringErrors()
                succeeded.forEach { $0.finish(error) }
            }
        }
    }
}

/// Makes `inSavepoint` roll back a job whose closure threw (its error is in its ResultBox).
private struct ClosureFailed: Error {}

/// A type-erased batched write. `run` and `finish` only run on the database queue.
struct WriteJob: @unchecked Sendable {
    /// Its number in the order writes were handed to the queue.
    let ticket: UInt64
    /// `false` for a job that changes nothing when it fails (`DatabaseWriter.write(savepoint:_:)`).
    let needsSavepoint: Bool
    /// Runs the closure, stores its result; returns `false` if it threw.
    let run: (Database) -> Bool
    /// Resumes the caller: with the stored result, or with `error` if the commit failed.
    let finish: (Error?) -> Void
}

/// Holds one batched write's result between `run` and `finish` (both on the database queue).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
