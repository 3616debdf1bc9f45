import CSQLite
import Foundation
import Synchronization

/// One SQLite database file, opened after its file checks: a serialized writer (``DatabaseWriter``)
/// and a pool of read-only connections (``DatabaseReaders``), so that reads never wait behind a
/// commit's `fsync` (WAL lets readers and the writer work at once). Named after GRDB's `DatabasePool`,
/// which has this shape, split here into its `DatabaseWriter` and `DatabaseReader` roles.
///
/// It owns opening, configuring and closing the connections; ``write(savepoint:_:)`` and
/// ``writeSync(_:)`` go to the writer, ``read(_:)``, ``pointRead(_:)`` and ``readSync(_:)`` to the
/// readers.
public final class DatabasePool: Sendable {
    /// The database file path.
    public let path: String
    /// The configuration used on open.
    public let configuration: DatabaseConfiguration
    /// The one writer connection, serialized.
    public let writer: DatabaseWriter
    /// The read-only connections.
    public let readers: DatabaseReaders
    /// The background `PRAGMA integrity_check` running now, if any (``checkIntegrityInBackground(cpuShare:completion:)``).
    let backgroundCheck = Mutex<BackgroundIntegrityCheck?>(nil)

    /// How many write transactions gave up waiting for another connection's lock (``DatabaseWriter/busyTimeoutCount``).
    public var busyTimeoutCount: Int { writer.busyTimeoutCount }

    /// Group-commit writes queued and not yet taken by the writer (tests wait for a batch to start).
    var pendingWriteCount: Int { writer.pendingWriteCount }

    /// Validates then opens and configures the database at `path`.
    ///
    /// Before any write or modifying pragma, the file is validated (see
    /// `DatabaseFileGuard`: writability, header, a read-only `PRAGMA integrity_check` that reads
    /// the `-wal` as SQLite's recovery does, WAL identity stamp). Then, on a read-write
    /// connection: `sqlite3_busy_timeout`, identity stamp (random `PRAGMA user_version`)
    /// if none, `PRAGMA journal_mode=WAL` (answer must be `wal`), `PRAGMA foreign_keys=ON`,
    /// `PRAGMA synchronous=FULL|NORMAL`; then the read-only connections with the same settings.
    /// - Parameters:
    ///   - path: The database file; created if missing (unless read-only).
    ///   - configuration: Durability, busy timeout, read-only, group commit.
    /// - Throws: ``DatabaseError`` naming the file: `SQLITE_NOTADB` (not a database, a foreign
    ///   `-wal`, a `-wal` without its database), `SQLITE_CORRUPT` (truncated, integrity_check failed),
    ///   `SQLITE_READONLY` (file or folder read-only), `SQLITE_CANTOPEN`, or a pragma error.
    public init(path: String, configuration: DatabaseConfiguration = DatabaseConfiguration()) throws {
        self.path = path
        self.configuration = configuration
        try DatabaseFileGuard.validate(path: path, readOnly: configuration.readOnly, checksIntegrity: configuration.checksIntegrity)
        let flags = configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let db = try Database(path: path, flags: flags)
        var checkpointer: DatabaseCheckpointer?
        do {
            try Self.configure(db, configuration, setsUpFile: true)
            if !configuration.readOnly {
                let connection = try Database(path: path, flags: SQLITE_OPEN_READWRITE)
                checkpointer = DatabaseCheckpointer(database: connection, threshold: configuration.checkpointPages)
                try Self.configure(connection, configuration, setsUpFile: false)
                try checkpointer?.watch(db)
            }
            readers = try DatabaseReaders(path: path) { try Self.configure($0, configuration, setsUpFile: false) }
        } catch {
            try? db.close()
            try? checkpointer?.close()
            throw error
        }
        // The files as the connections opened them.
        writer = DatabaseWriter(
            database: db, path: path, configuration: configuration, fileWatch: DatabaseFileWatch(path: path),
            checkpointer: checkpointer)
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

    /// Busy timeout, `foreign_keys` and `synchronous` on any connection (so any connection reports
    /// them); with `setsUpFile` (the writer, unless read-only), first the identity stamp, WAL mode and `temp_store`.
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
            // The undo of each write's savepoint inside a group commit (its statement journal) stays in memory. SQLite
            // keeps one in memory only up to 64 KiB, then moves it to a temporary file for the rest of the transaction
            // (https://www.sqlite.org/tempfiles.html, "Statement Journal Files"): a write that changes a few dozen pages
            // (a notification sender's step) passed that, and every write committed with it then went to that file too,
            // two `pwrite` calls a page. Nothing reads a statement journal after its transaction, and a transaction is
            // bounded, so memory holds it (https://www.sqlite.org/pragma.html#pragma_temp_store). Readers keep the
            // default: their large sorts may still spill to disk.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        try db.execute(sql: "PRAGMA foreign_keys = ON")
        try db.execute(sql: "PRAGMA synchronous = \(configuration.durability.pragmaValue)")
    }

    // MARK: The writer and the readers

    /// ``DatabaseReaders/read(_:)``: a snapshot read on the next reader's queue.
    public nonisolated(nonsending) func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await readers.read(body)
    }

    /// ``DatabaseReaders/pointRead(_:)``: a read by key on the caller's thread, on the first reader not reading.
    public func pointRead<T>(_ body: (Database) throws -> T) throws -> T {
        try readers.pointRead(body)
    }

    /// ``DatabaseReaders/pointFetchOne(sql:arguments:_:)``: one statement by key, its own read transaction.
    public func pointFetchOne<T>(sql: String, arguments: StatementArguments, _ transform: (Row) throws -> T) throws -> T? {
        try readers.pointFetchOne(sql: sql, arguments: arguments, transform)
    }

    /// ``DatabaseReaders/pointFetchAll(sql:arguments:_:)``: one statement by key, its own read transaction.
    public func pointFetchAll<T>(sql: String, arguments: StatementArguments, _ transform: (Row) throws -> T) throws -> [T] {
        try readers.pointFetchAll(sql: sql, arguments: arguments, transform)
    }

    /// ``DatabaseWriter/write(savepoint:_:)``: a write transaction, answered after its `COMMIT`.
    public nonisolated(nonsending) func write<T: Sendable>(savepoint: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(savepoint: savepoint, body)
    }

    /// ``DatabaseReaders/readSync(_:)``, for start-up and tests.
    public func readSync<T>(_ body: (Database) throws -> T) throws -> T {
        try readers.readSync(body)
    }

    /// ``DatabaseWriter/writeSync(_:)``, for start-up and tests.
    public func writeSync<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.writeSync(body)
    }

    /// Stops a background integrity check, then finalizes cached statements and closes every connection
    /// (`sqlite3_close_v2`), readers first, after every previously scheduled read/write ran. Later calls throw `SQLITE_MISUSE`.
    /// Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails.
    public func close() throws {
        stopBackgroundCheck()
        try readers.close()
        try writer.close()
    }
}
