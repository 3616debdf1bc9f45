import CSQLite
import Dispatch
import Foundation
import Synchronization

/// The single serializing owner of the database's writer connection (GRDB's `DatabaseQueue`
/// shape), plus two read-only connections so that reads never wait behind a commit's `fsync`
/// (WAL lets readers and the writer work at once; GRDB's `DatabasePool` idea).
///
/// The writer and the general reader each live on a private serial `DispatchQueue`: ``write(_:)``
/// and ``read(_:)`` suspend on a checked continuation and never block the Swift cooperative
/// thread pool, however long a scan or a commit's `fsync` takes. ``pointRead(_:)`` is for a few
/// rows by key: it runs on the caller's thread, on the second reader connection under a lock,
/// because such a read takes microseconds, less than the two thread hand-offs of a queue
/// (measured on the purchase path: `Tests/Benchmarks/purchase_bench.sh`). ``readSync(_:)`` /
/// ``writeSync(_:)`` block the caller and are meant for start-up and tests.
///
/// `@unchecked Sendable` because each non-`Sendable` ``Database`` it owns is only touched under
/// its own serialization (the writer on `queue` and the reader on `readQueue`, always through
/// `async`/`sync` on them; the point reader inside `pointReadLock`), the writer's other state (the
/// last timed-out lock wait, the write fault, the file watch) is only touched on `queue`, the
/// group-commit pending list is protected by a `Mutex` and the counters are atomics. The other
/// stored properties are immutable.
public final class DatabaseQueue: @unchecked Sendable {
    /// The database file path.
    public let path: String
    /// The configuration used on open.
    public let configuration: DatabaseConfiguration
    let queue: DispatchQueue
    /// Only accessed on `queue`.
    private var database: Database?
    private let readQueue: DispatchQueue
    /// The general read-only connection; only accessed on `readQueue`.
    private var reader: Database?
    /// Serializes use of `pointReader`.
    private let pointReadLock = NSLock()
    /// The read-only connection for ``pointRead(_:)``; only accessed inside `pointReadLock`.
    private var pointReader: Database?
    let pendingWrites = Mutex<[WriteJob]>([])
    /// The number of the last write handed to the queue; every write takes the next one.
    private let lastTicket = Atomic<UInt64>(0)
    private let busyTimeouts = Atomic<Int>(0)
    /// The last lock wait that timed out: writes numbered up to `ticket` were queued while it
    /// waited, and fail with its `error` instead of waiting again. Only accessed on `queue`.
    private var busyBarrier: (ticket: UInt64, error: any Error)?
    /// Set once writes must stop for good (the file was moved); only accessed on `queue`.
    private var writeFault: DatabaseError?
    /// Only accessed on `queue`.
    private var fileWatch: DatabaseFileWatch

    /// How many write transactions gave up waiting for another connection's lock (`SQLITE_BUSY`
    /// after the busy timeout at `BEGIN IMMEDIATE`). Every write queued during such a wait fails
    /// with the same error as soon as it ends, so a caller waits for a lock at most once, however
    /// many writes it queued (a purchase queues the store's insert, then the handler's record).
    public var busyTimeoutCount: Int { busyTimeouts.load(ordering: .relaxed) }

    /// Group-commit writes queued and not yet taken by the writer (tests wait for a batch to start).
    var pendingWriteCount: Int { pendingWrites.withLock { $0.count } }

    /// Validates then opens and configures the database at `path`.
    ///
    /// Before any write or modifying pragma, the file is validated (see
    /// `DatabaseFileGuard`: writability, header, a read-only `PRAGMA integrity_check` that reads
    /// the `-wal` as SQLite's recovery does, WAL identity stamp). Then, on a read-write
    /// connection: `sqlite3_busy_timeout`, identity stamp (random `PRAGMA user_version`)
    /// if none, `PRAGMA journal_mode=WAL` (answer must be `wal`), `PRAGMA foreign_keys=ON`,
    /// `PRAGMA synchronous=FULL|NORMAL`.
    /// - Parameters:
    ///   - path: The database file; created if missing (unless read-only).
    ///   - configuration: Durability, busy timeout, read-only, group commit.
    /// - Throws: ``DatabaseError`` naming the file: `SQLITE_NOTADB` (not a database, a foreign
    ///   `-wal`, a `-wal` without its database), `SQLITE_CORRUPT` (truncated, integrity_check failed),
    ///   `SQLITE_READONLY` (file or folder read-only), `SQLITE_CANTOPEN`, or a pragma error.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        self.queue = DispatchQueue(label: "TipJarSQLite.DatabaseQueue")
        self.readQueue = DispatchQueue(label: "TipJarSQLite.DatabaseQueue.reader")
        self.fileWatch = DatabaseFileWatch(path: path)
        try DatabaseFileGuard.validate(path: path, readOnly: configuration.readOnly)
        let flags = configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let db = try Database(path: path, flags: flags)
        do {
            try Self.configure(db, configuration, setsUpFile: true)
        } catch {
            try? db.close()
            throw error
        }
        self.database = db
        do {
            self.reader = try Self.openReader(path: path, configuration: configuration)
            self.pointReader = try Self.openReader(path: path, configuration: configuration)
        } catch {
            try? reader?.close()
            try? db.close()
            throw error
        }
        fileWatch = DatabaseFileWatch(path: path) // the files as the connections opened them
    }

    /// Runs, read-only and without changing anything, the checks ``init(path:configuration:)``
    /// makes before it opens a file (see `DatabaseFileGuard`), `PRAGMA integrity_check` included
    /// (<https://www.sqlite.org/pragma.html#pragma_integrity_check>). For `tipjar check-database`.
    /// - Parameter path: The database file; its `-wal`, if any, is read the way SQLite recovers it.
    /// - Returns: `integrity_check`'s problem lines (at most 100, SQLite's default); empty when sound.
    /// - Throws: ``DatabaseError`` naming the file when it cannot be checked at all: missing, not
    ///   SQLite (`SQLITE_NOTADB`), unreadable or truncated (`SQLITE_CORRUPT`), beside a WAL of
    ///   another database.
    public static func integrityProblems(path: String) throws -> [String] {
        try DatabaseFileGuard.inspect(path: path, readOnly: true)
    }

    /// A read-only connection with the writer's busy timeout and settings (so any connection
    /// reports them).
    private static func openReader(path: String, configuration: DatabaseConfiguration) throws -> Database {
        let reader = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        try configure(reader, configuration, setsUpFile: false)
        return reader
    }

    /// Busy timeout, `foreign_keys` and `synchronous` on any connection; with `setsUpFile` (the
    /// writer, unless read-only), first the identity stamp and WAL mode.
    private static func configure(_ db: Database, _ configuration: DatabaseConfiguration, setsUpFile: Bool) throws {
        let connection = try db.connection()
        let code = sqlite3_busy_timeout(connection, configuration.busyTimeoutMilliseconds)
        guard code == SQLITE_OK else { throw DatabaseError.fromConnection(connection, code: code, path: db.path) }
        if setsUpFile && !configuration.readOnly {
            // Stamp before switching to WAL, so a new database file carries it in its header.
            if try db.fetchValue(sql: "PRAGMA user_version", as: Int64.self) == 0 {
                try db.execute(sql: "PRAGMA user_version = \(Int32.random(in: 1...Int32.max))")
            }
            let mode = try db.fetchValue(sql: "PRAGMA journal_mode=WAL", as: String.self)
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(extendedResultCode: SQLITE_ERROR, message: "cannot enable WAL on \(db.path): journal_mode is \(mode ?? "unknown")", path: db.path)
            }
        }
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.execute(sql: "PRAGMA synchronous = \(configuration.durability.pragmaValue)")
    }

    // MARK: Async access

    /// Runs `body` on the reader's serial queue inside `BEGIN DEFERRED` … `COMMIT`, on a
    /// read-only connection, for a consistent snapshot of the last commit.
    /// - Parameter body: Receives the connection; must not let it escape.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            readQueue.async { continuation.resume(with: Result { try self.performRead(body, on: self.reader) }) }
        }
    }

    /// Like ``read(_:)``, but on the calling thread, on a second read-only connection under a
    /// lock: for a few rows by key (a primary-key lookup), never a scan, since a point read
    /// waiting for the lock blocks its thread. Another point read is the only thing it can wait
    /// for (a WAL reader does not wait for the writer).
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    public func pointRead<T>(_ body: (Database) throws -> T) throws -> T {
        try pointReadLock.withLock { try performRead(body, on: pointReader) }
    }

    /// Runs `body` on the serial queue inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back
    /// if it throws. Returns only after COMMIT succeeded. With
    /// ``DatabaseConfiguration/groupCommit``, concurrent calls may share one transaction,
    /// each in its own SAVEPOINT.
    /// - Parameter body: Receives the connection; must not let it escape, COMMIT nor ROLLBACK.
    /// - Returns: What `body` returns, once its changes are committed.
    /// - Throws: What `body` throws (its changes rolled back); ``DatabaseError``
    ///   `SQLITE_BUSY` if another connection holds the write lock past the busy timeout,
    ///   `SQLITE_FULL`, `SQLITE_READONLY`, `SQLITE_IOERR`, or the COMMIT error.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            guard configuration.groupCommit else {
                let ticket = nextTicket()
                queue.async { continuation.resume(with: Result { try self.performWrite(body, ticket: ticket) }) }
                return
            }
            enqueue(body) { continuation.resume(with: $0) }
        }
    }

    /// Queues one SQL statement as a write behind every earlier write and returns at once,
    /// without waiting for it to run or commit. Writes run and commit in submission order, so any
    /// write awaited after this call commits in the same transaction as this one or a later one.
    ///
    /// For a write whose result the caller does not need now because a later awaited write
    /// depends on it and checks, inside its own transaction, that it happened (the store's side of
    /// a purchase, recorded next by the transaction handler): the caller saves one wait for the disk.
    /// Being one statement, it needs no SAVEPOINT in a group-commit batch: a statement that fails
    /// (a constraint, with the default `ON CONFLICT ABORT`) is backed out on its own and the
    /// transaction goes on (<https://www.sqlite.org/lang_conflict.html>).
    /// - Parameters:
    ///   - sql: Exactly one statement, e.g. an `INSERT`.
    ///   - arguments: Its bound values.
    ///   - onFailure: Called on the writer's queue once the statement's changes are undone: with
    ///     its error, before any later write runs; or with the error that undid its whole
    ///     transaction (BEGIN or COMMIT failed, or another write's failure rolled it back), after
    ///     the other writes of that transaction, which fail with it.
    public func submitWrite(sql: String, arguments: StatementArguments,
                            onFailure: @escaping @Sendable (any Error) -> Void) {
        let body: @Sendable (Database) throws -> Void = { db in try db.execute(sql: sql, arguments: arguments) }
        guard configuration.groupCommit else {
            let ticket = nextTicket()
            queue.async {
                do { try self.performWrite(body, ticket: ticket) } catch { onFailure(error) }
            }
            return
        }
        enqueue(body, savepoint: false) { result in
            if case .failure(let error) = result { onFailure(error) }
        }
    }

    // MARK: Sync access

    /// Like ``read(_:)``, blocking the calling thread. For start-up and tests; never call it
    /// from the reader's queue (precondition) nor from an async context that must not block.
    public func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(readQueue))
        return try readQueue.sync { try performRead(body, on: reader) }
    }

    /// Like ``write(_:)``, blocking the calling thread (never batched). For start-up and tests.
    public func writeSync<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let ticket = nextTicket()
        return try queue.sync { try performWrite(body, ticket: ticket) }
    }

    /// Finalizes cached statements and closes the connection (`sqlite3_close_v2`), after
    /// every previously scheduled read/write ran. Later calls throw `SQLITE_MISUSE`. Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails.
    public func close() throws {
        dispatchPrecondition(condition: .notOnQueue(queue))
        try pointReadLock.withLock {
            defer { pointReader = nil }
            try pointReader?.close()
        }
        dispatchPrecondition(condition: .notOnQueue(readQueue))
        try readQueue.sync {
            defer { reader = nil }
            try reader?.close()
        }
        try queue.sync {
            defer { database = nil }
            try database?.close()
        }
    }

    // MARK: On-queue implementation

    func openDatabase() throws -> Database {
        guard let database else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "database \(path) is closed", path: path)
        }
        return database
    }

    /// A read transaction on `db`, one of the read-only connections, under its owner's
    /// serialization (a write inside fails with `SQLITE_READONLY`).
    private func performRead<T>(_ body: (Database) throws -> T, on db: Database?) throws -> T {
        guard let db else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "database \(path) is closed", path: path)
        }
        try db.cachedStatement(sql: "BEGIN DEFERRED").execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT").execute()
            return result
        } catch {
            db.rollbackIgnoringErrors()
            throw error
        }
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
    /// only the WAL is gone, a checkpoint copies the commits it holds into the database file.
    func beginWriteTransaction(_ db: Database) throws {
        if let writeFault { throw writeFault }
        if var fault = fileWatch.problem() {
            if fault.path != path, let connection = db.handle {
                let code = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_FULL, nil, nil)
                let outcome = code == SQLITE_OK
                    ? "every commit it held was first copied into \(path)"
                    : "copying its commits into \(path) failed: \(DatabaseError.fromConnection(connection, code: code).message)"
                fault = DatabaseError(extendedResultCode: fault.extendedResultCode, message: "\(fault.message); \(outcome)", path: fault.path)
            }
            writeFault = fault
            configuration.onFault?(fault)
            throw fault
        }
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
            return result
        } catch {
            db.rollbackIgnoringErrors()
            throw error
        }
    }

    private func requireOpenTransaction(_ db: Database) throws {
        guard db.isInsideTransaction else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "the write closure ended the transaction itself (COMMIT/ROLLBACK or an error that made SQLite roll back)", path: path)
        }
    }
}
