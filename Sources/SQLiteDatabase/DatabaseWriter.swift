import CSQLite
import Dispatch
import Foundation
import Synchronization

/// The database's one writer connection, serialized (GRDB's `DatabaseWriter` role): every write runs
/// on a private serial `DispatchQueue` inside `BEGIN IMMEDIATE … COMMIT`, in the order the writes
/// were made, and its caller is answered only after that `COMMIT`. With
/// ``DatabaseConfiguration/groupCommit``, writes that arrive while a commit waits for the disk share
/// the next transaction (`DatabaseWriter+GroupCommit.swift`).
///
/// Before each transaction it checks that the files are the ones it opened (``DatabaseFileWatch``), after each
/// `COMMIT` that the `-wal` still is (`DatabaseWriter+WALLoss.swift`), and a lock wait that timed out fails every
/// write queued during it (one wait per caller).
///
/// `@unchecked Sendable` because the non-`Sendable` ``Database`` and the other mutable state (the
/// last timed-out lock wait, the file watch) are only touched on `queue`; the group-commit pending list and
/// the write fault are protected by a `Mutex` and the counters are atomics.
public final class DatabaseWriter: @unchecked Sendable {
    /// The database file path.
    public let path: String
    /// The configuration used on open.
    public let configuration: DatabaseConfiguration
    let queue: DispatchQueue
    /// Only accessed on `queue`.
    private var database: Database?
    let pendingWrites = Mutex<[WriteJob]>([])
    /// The number of the last write handed to the queue; every write takes the next one.
    private let lastTicket = Atomic<UInt64>(0)
    private let busyTimeouts = Atomic<Int>(0)
    /// Checkpoint attempts made to copy a deleted `-wal`'s commits into the database file (`DatabaseWriter+WALLoss.swift`).
    let rescueAttempts = Atomic<Int>(0)
    /// The last lock wait that timed out: writes numbered up to `ticket` were queued while it
    /// waited, and fail with its `error` instead of waiting again. Only accessed on `queue`.
    private var busyBarrier: (ticket: UInt64, error: any Error)?
    /// Set once writes must stop for good (a file was moved, the database was found damaged); read by every
    /// thread that hands over a write, so a write made after it fails at once, before `BEGIN`.
    let writeFault = Mutex<DatabaseError?>(nil)
    /// Only accessed on `queue`.
    var fileWatch: DatabaseFileWatch
    /// Runs the WAL checkpoints off this queue (none when read-only); its hook on `database` holds it unretained,
    /// so this reference keeps it alive while the connection is open.
    let checkpointer: DatabaseCheckpointer?

    /// How many write transactions gave up waiting for another connection's lock (`SQLITE_BUSY`
    /// after the busy timeout at `BEGIN IMMEDIATE`). Every write queued during such a wait fails
    /// with the same error as soon as it ends, so a caller waits for a lock at most once, however
    /// many writes it queued.
    public var busyTimeoutCount: Int { busyTimeouts.load(ordering: .relaxed) }

    /// Checkpoint attempts made so far to copy a deleted `-wal`'s commits into the database file (tests wait for one).
    var walRescueAttemptCount: Int { rescueAttempts.load(ordering: .relaxed) }

    /// Group-commit writes queued and not yet taken by the writer (tests wait for a batch to start).
    var pendingWriteCount: Int { pendingWrites.withLock { $0.count } }

    /// Takes ownership of `database`, an open and configured read-write connection to `path`;
    /// `fileWatch` records the files as the connections opened them; `checkpointer` watches `database`'s WAL.
    init(
        database: Database, path: String, configuration: DatabaseConfiguration, fileWatch: DatabaseFileWatch,
        checkpointer: DatabaseCheckpointer? = nil
    ) {
        self.checkpointer = checkpointer
        self.path = path
        self.configuration = configuration
        self.queue = DispatchQueue(label: "SQLiteDatabase.DatabaseWriter")
        self.database = database
        self.fileWatch = fileWatch
    }

    /// Runs `body` on the serial queue inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back
    /// if it throws. Returns only after COMMIT succeeded. With
    /// ``DatabaseConfiguration/groupCommit``, concurrent calls may share one transaction,
    /// each in its own SAVEPOINT.
    /// - Parameters:
    ///   - savepoint: `false` for a `body` that changes nothing when it throws, so that a
    ///     group-commit batch needs no SAVEPOINT around it: its first statement fails alone (SQLite
    ///     backs out a failed statement, <https://www.sqlite.org/lang_conflict.html>) and it throws
    ///     then, and any later work it may have to undo runs in a SAVEPOINT of its own.
    ///   - body: Receives the connection; must not let it escape, COMMIT nor ROLLBACK.
    /// - Returns: What `body` returns, once its changes are committed.
    /// - Throws: What `body` throws (its changes rolled back); ``DatabaseError``
    ///   `SQLITE_BUSY` if another connection holds the write lock past the busy timeout,
    ///   `SQLITE_FULL`, `SQLITE_READONLY`, `SQLITE_IOERR`, or the COMMIT error.
    public nonisolated(nonsending) func write<T: Sendable>(savepoint: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit(savepoint: savepoint, body) { continuation.resume(with: $0) }
        }
    }

    /// Hands `body` to the writer behind every write made before, and returns at once: writes run
    /// and commit in the order they were handed over. `completion` runs on the writer's queue with
    /// what `body` returned once it committed, or with the error that undid it (before any later
    /// write runs when `body` itself threw); on the calling thread, at once, with the writer's fault once writes
    /// stopped for good (``refuseWrites(with:)``, a moved file).
    func submit<T>(
        savepoint: Bool = true, _ body: @escaping @Sendable (Database) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        if let fault = writeFault.withLock({ $0 }) { return completion(.failure(fault)) }
        guard configuration.groupCommit else {
            let ticket = nextTicket()
            queue.async { completion(Result { try self.performWrite(body, ticket: ticket) }) }
            return
        }
        enqueue(body, savepoint: savepoint, completion: completion)
    }

    /// Like ``write(savepoint:_:)``, blocking the calling thread (never batched). For start-up and tests.
    public func writeSync<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        if let fault = writeFault.withLock({ $0 }) { throw fault }
        let ticket = nextTicket()
        return try queue.sync { try performWrite(body, ticket: ticket) }
    }

    /// Closes the connection after every write already scheduled ran, then the checkpointer's (the last
    /// connection to close checkpoints the WAL and deletes it). Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails.
    func close() throws {
        dispatchPrecondition(condition: .notOnQueue(queue))
        try queue.sync {
            defer { database = nil }
            try database?.close()
        }
        try checkpointer?.close()
    }

    // MARK: On-queue implementation

    func openDatabase() throws -> Database {
        guard let database else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "database \(path) is closed", path: path)
        }
        return database
    }

    func nextTicket() -> UInt64 { lastTicket.add(1, ordering: .relaxed).newValue }

    /// The error of the lock wait that timed out while the write numbered `ticket` was queued.
    func lockWaitError(_ ticket: UInt64) -> (any Error)? {
        guard let busyBarrier, ticket <= busyBarrier.ticket else { return nil }
        return busyBarrier.error
    }

    /// `BEGIN IMMEDIATE`, unless writes have stopped or the database file or its `-wal` is not
    /// the one opened any more (one `stat` each, see ``DatabaseFileWatch``). A moved file stops
    /// writes for good, reported once through ``DatabaseConfiguration/onFault``; before that, when
    /// only the WAL is gone, its commits are secured in the database file (``stopWrites(after:_:)``).
    func beginWriteTransaction(_ db: Database) throws {
        if let fault = writeFault.withLock({ $0 }) { throw fault }
        if let fault = fileWatch.problem() { throw stopWrites(after: fault, db).fault }
        do {
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
        } catch let error as DatabaseError where error.isBusy {
            busyBarrier = (lastTicket.load(ordering: .relaxed), error)
            busyTimeouts.add(1, ordering: .relaxed)
            throw error
        }
    }

    private func performWrite<T>(_ body: (Database) throws -> T, ticket: UInt64) throws -> T {
        let db = try openDatabase()
        if let error = lockWaitError(ticket) { throw error }
        try beginWriteTransaction(db)
        do {
            let result = try body(db)
            try requireOpenTransaction(db)
            try db.cachedStatement(sql: "COMMIT").execute()
            configuration.onCommit?()
            if let lost = commitsAtRiskAfterCommit(db) { throw lost }
            return result
        } catch {
            db.rollbackIgnoringErrors()
            throw error
        }
    }

    private func requireOpenTransaction(_ db: Database) throws {
        guard db.isInsideTransaction else {
            throw DatabaseError(
                extendedResultCode: SQLITE_MISUSE, message: "the write closure ended the transaction itself (COMMIT/ROLLBACK or an error that made SQLite roll back)", path: path)
        }
    }
}
