import CSQLite
import Dispatch
import Foundation
import Synchronization

/// The database's two read-only connections, one scan reader and one point reader (not a pool): each read is one
/// `BEGIN DEFERRED … COMMIT` on a snapshot of the last commit, and never waits for the writer,
/// since WAL lets readers and the writer work at once (<https://www.sqlite.org/wal.html>).
///
/// Two connections, one per kind of read: ``read(_:)`` for lists, searches and scans, on a private
/// serial `DispatchQueue` (it suspends on a checked continuation and never blocks the Swift
/// cooperative thread pool), and ``pointRead(_:)`` for a few rows by key, on the caller's thread
/// under a lock, because such a read takes microseconds, less than the two thread hand-offs of a
/// queue. A point read never
/// waits behind a scan.
///
/// `@unchecked Sendable` because each non-`Sendable` ``Database`` it owns is only touched under its
/// own serialization: the scan reader on `readQueue` (always through `async`/`sync` on it), the
/// point reader inside `pointReadLock`.
public final class DatabaseReaders: @unchecked Sendable {
    /// The database file path.
    public let path: String
    private let readQueue: DispatchQueue
    /// The connection for ``read(_:)``; only accessed on `readQueue`.
    private var reader: Database?
    /// Serializes use of `pointReader`.
    private let pointReadLock = NSLock()
    /// The connection for ``pointRead(_:)``; only accessed inside `pointReadLock`.
    private var pointReader: Database?
    /// Set once reads must stop for good (``refuseReads(with:)``); every read then fails with it before it reads.
    private let readFault = Mutex<DatabaseError?>(nil)

    /// Opens both read-only connections, each configured by `configure`.
    init(path: String, configure: (Database) throws -> Void) throws {
        self.path = path
        self.readQueue = DispatchQueue(label: "SQLiteDatabase.DatabaseReaders")
        let reader = try Self.open(path: path, configure: configure)
        do {
            self.pointReader = try Self.open(path: path, configure: configure)
        } catch {
            try? reader.close()
            throw error
        }
        self.reader = reader
    }

    private static func open(path: String, configure: (Database) throws -> Void) throws -> Database {
        let db = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        do {
            try configure(db)
        } catch {
            try? db.close()
            throw error
        }
        return db
    }

    /// Runs `body` on the scan reader's serial queue inside `BEGIN DEFERRED` … `COMMIT`, on a
    /// read-only connection, for a consistent snapshot of the last commit.
    /// - Parameter body: Receives the connection; must not let it escape.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    public nonisolated(nonsending) func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            readQueue.async { continuation.resume(with: Result { try self.performRead(body, on: self.reader) }) }
        }
    }

    /// Like ``read(_:)``, but on the calling thread, on the point reader under a lock: for a few
    /// rows by key (a primary-key lookup), never a scan, since a point read waiting for the lock
    /// blocks its thread. Another point read is the only thing it can wait for.
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    public func pointRead<T>(_ body: (Database) throws -> T) throws -> T {
        try pointReadLock.withLock { try performRead(body, on: pointReader) }
    }

    /// Like ``read(_:)``, blocking the calling thread. For start-up and tests; never call it
    /// from the reader's queue (precondition) nor from an async context that must not block.
    public func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        dispatchPrecondition(condition: .notOnQueue(readQueue))
        return try readQueue.sync { try performRead(body, on: reader) }
    }

    /// Closes both connections after every read already scheduled ran. Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails.
    func close() throws {
        try pointReadLock.withLock {
            defer { pointReader = nil }
            try pointReader?.close()
        }
        dispatchPrecondition(condition: .notOnQueue(readQueue))
        try readQueue.sync {
            defer { reader = nil }
            try reader?.close()
        }
    }

    /// Stops reads for good with `error` (the database was found damaged, so what it answers cannot be trusted):
    /// every read from now on fails with it, before it reads anything. The first error stays.
    public func refuseReads(with error: DatabaseError) {
        readFault.withLock { $0 = $0 ?? error }
    }

    /// A read transaction on `db`, under its owner's serialization (a write inside fails with `SQLITE_READONLY`).
    private func performRead<T>(_ body: (Database) throws -> T, on db: Database?) throws -> T {
        if let fault = readFault.withLock({ $0 }) { throw fault }
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
}
