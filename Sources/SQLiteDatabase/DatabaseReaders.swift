import CSQLite
import Dispatch
import Foundation
import Synchronization

/// The database's read-only connections, a few of them (GRDB's `DatabasePool` keeps a pool of readers): each read is
/// one `BEGIN DEFERRED … COMMIT` on a snapshot of the last commit, and never waits for the writer, since WAL lets
/// readers and the writer work at once (<https://www.sqlite.org/wal.html>), nor for a read on another connection.
///
/// Each connection has its own serial `DispatchQueue` and its own lock. ``read(_:)`` (lists, searches, scans) goes to
/// the next connection in turn, on its queue (it suspends on a checked continuation and never blocks the Swift
/// cooperative thread pool), so two scans run at once on two connections. ``pointRead(_:)`` (a few rows by key) runs
/// on the caller's thread, because such a read takes microseconds, less than the two thread hand-offs of a queue, on
/// the first connection whose lock is free: it waits only when every connection is reading, never behind one scan.
///
/// `@unchecked Sendable` because each non-`Sendable` ``Database`` it owns is only touched inside its connection's lock.
public final class DatabaseReaders: @unchecked Sendable {
    /// One read-only connection, its queue and its lock.
    private final class Connection: @unchecked Sendable {
        let queue: DispatchQueue
        /// Held for every use of `database`.
        let lock = NSLock()
        /// Only accessed inside `lock`.
        var database: Database?

        init(database: Database, label: String) {
            self.database = database
            self.queue = DispatchQueue(label: label)
        }
    }

    /// How many read-only connections a pool opens when not told.
    public static let defaultCount = 3

    /// The database file path.
    public let path: String
    private let connections: [Connection]
    /// Which connection the next ``read(_:)`` takes (and a ``pointRead(_:)`` waits for when every one is reading).
    private let turn = Atomic<Int>(0)
    /// Set once reads must stop for good (``refuseReads(with:)``); every read then fails with it before it reads.
    private let readFault = Mutex<DatabaseError?>(nil)

    /// How many read-only connections it holds.
    public var count: Int { connections.count }

    /// Opens `count` read-only connections (at least one), each configured by `configure`.
    init(path: String, count: Int = DatabaseReaders.defaultCount, configure: (Database) throws -> Void) throws {
        self.path = path
        var opened: [Connection] = []
        do {
            for index in 0..<max(1, count) {
                let db = try Self.open(path: path, configure: configure)
                opened.append(Connection(database: db, label: "SQLiteDatabase.DatabaseReaders.\(index)"))
            }
        } catch {
            for connection in opened { try? connection.database?.close() }
            throw error
        }
        connections = opened
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

    /// The connection whose turn it is.
    private func nextConnection() -> Connection {
        connections[turn.add(1, ordering: .relaxed).oldValue % connections.count]
    }

    /// Runs `body` on the next connection's serial queue inside `BEGIN DEFERRED` … `COMMIT`, on a
    /// read-only connection, for a consistent snapshot of the last commit.
    /// - Parameter body: Receives the connection; must not let it escape.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    public nonisolated(nonsending) func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let connection = nextConnection()
        return try await withCheckedThrowingContinuation { continuation in
            connection.queue.async {
                continuation.resume(with: Result { try connection.lock.withLock { try self.performRead(body, on: connection.database) } })
            }
        }
    }

    /// Like ``read(_:)``, but on the calling thread, on the first connection whose lock is free (waiting for one only
    /// when every connection is reading): for a few rows by key (a primary-key lookup), never a scan, since a point
    /// read waiting for a lock blocks its thread.
    /// - Throws: What `body` throws; ``DatabaseError`` `SQLITE_READONLY` if `body` writes,
    ///   `SQLITE_MISUSE` after ``close()``.
    ///
    /// The connections are tried in the same order every time, so point reads keep to the first while it is free: a
    /// read transaction that finds a commit its connection has not seen drops that connection's whole page cache
    /// (SQLite's `pager.c`, `pagerBeginReadTransaction`), so one connection read again and again reloads the pages
    /// after a commit once, where reads taking turns over all of them would each reload them.
    public func pointRead<T>(_ body: (Database) throws -> T) throws -> T {
        try onFirstFreeConnection { try performRead(body, on: $0) }
    }

    /// Like ``pointRead(_:)``, for one statement by key: run alone, as SQLite runs a statement outside a transaction,
    /// in a read transaction of its own that ends when the statement does
    /// (<https://www.sqlite.org/lang_transaction.html>), so no `BEGIN` … `COMMIT` is run around it.
    /// - Returns: The first row, mapped by `transform`, or `nil` if there is none.
    public func pointFetchOne<T>(sql: String, arguments: StatementArguments, _ transform: (Row) throws -> T) throws -> T? {
        try onFirstFreeConnection { try usable($0).cachedStatement(sql: sql).fetchOne(arguments: arguments, transform) }
    }

    /// Like ``pointFetchOne(sql:arguments:_:)``, every row.
    public func pointFetchAll<T>(sql: String, arguments: StatementArguments, _ transform: (Row) throws -> T) throws -> [T] {
        try onFirstFreeConnection { try usable($0).cachedStatement(sql: sql).fetchAll(arguments: arguments, transform) }
    }

    /// `body` on the first connection whose lock is free, in the same order every time, or on the next one in turn
    /// once it is free when every one is reading (``pointRead(_:)``).
    private func onFirstFreeConnection<T>(_ body: (Database?) throws -> T) throws -> T {
        for connection in connections {
            guard connection.lock.try() else { continue }
            defer { connection.lock.unlock() }
            return try body(connection.database)
        }
        let connection = nextConnection()
        return try connection.lock.withLock { try body(connection.database) }
    }

    /// Like ``read(_:)``, blocking the calling thread. For start-up and tests; never call it
    /// from a reader's queue (precondition) nor from an async context that must not block.
    public func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        let connection = connections[0]
        dispatchPrecondition(condition: .notOnQueue(connection.queue))
        return try connection.queue.sync { try connection.lock.withLock { try performRead(body, on: connection.database) } }
    }

    /// Closes every connection after every read already scheduled on it ran. Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails.
    func close() throws {
        for connection in connections {
            dispatchPrecondition(condition: .notOnQueue(connection.queue))
            try connection.queue.sync {
                try connection.lock.withLock {
                    defer { connection.database = nil }
                    try connection.database?.close()
                }
            }
        }
    }

    /// Stops reads for good with `error` (the database was found damaged, so what it answers cannot be trusted):
    /// every read from now on fails with it, before it reads anything. The first error stays.
    public func refuseReads(with error: DatabaseError) {
        readFault.withLock { $0 = $0 ?? error }
    }

    /// A read transaction on `db`, inside its connection's lock (a write inside fails with `SQLITE_READONLY`).
    private func performRead<T>(_ body: (Database) throws -> T, on db: Database?) throws -> T {
        let db = try usable(db)
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

    /// `db`, unless reads were refused or the pool is closed.
    private func usable(_ db: Database?) throws -> Database {
        if let fault = readFault.withLock({ $0 }) { throw fault }
        guard let db else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "database \(path) is closed", path: path)
        }
        return db
    }
}
