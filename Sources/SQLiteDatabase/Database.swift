import CSQLite

/// SQLite's process-wide configuration, applied once before the first connection opens (opening one initializes the
/// library, after which `sqlite3_config` is refused): memory statistics off, since this process never asks for them
/// and counting each allocation takes a mutex that every connection shares.
private let sqliteConfigured: Bool = csqlite_disable_memory_statistics() == SQLITE_OK

/// One SQLite connection (`sqlite3*`), modelled on GRDB's `Database`.
///
/// A `Database` is **not** `Sendable`: it is created by ``DatabasePool`` and owned by a ``DatabaseWriter`` or a ``DatabaseReaders``, and only
/// used under that owner's serialization of it (the writer's serial queue, or a reader connection's lock),
/// which hands it to `read`/`pointRead`/`write` closures. Do not let it (or its statements)
/// escape those closures.
///
/// Follows <https://www.sqlite.org/c3ref/sqlite3.html>.
public final class Database {
    /// The database file path.
    public let path: String
    /// `true` when opened with `SQLITE_OPEN_READONLY`.
    public let isReadOnly: Bool
    private(set) var handle: OpaquePointer?
    private var statementCache: [String: Statement] = [:]
    private var savepointCounter = 0
    /// The update hook's counter while ``watchRowChanges(inTables:)`` is on (`Database+RowChanges.swift`).
    var rowChangeWatch: RowChangeWatch?

    /// Opens a connection (`sqlite3_open_v2` with `SQLITE_OPEN_EXRESCODE` and
    /// `SQLITE_OPEN_NOMUTEX`, since the owner serializes all access).
    /// No pragma is run here: configuration happens in ``DatabasePool``, after validation.
    /// - Throws: ``DatabaseError`` (e.g. `SQLITE_CANTOPEN`) naming `path`.
    init(path: String, flags: Int32) throws {
        self.path = path
        self.isReadOnly = flags & SQLITE_OPEN_READONLY != 0
        _ = sqliteConfigured
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError.fromConnection(connection, code: code, path: path)
            sqlite3_close_v2(connection)  // required even on failure; nil is a no-op
            throw DatabaseError(extendedResultCode: error.extendedResultCode, message: "cannot open \(path): \(error.message)", path: path)
        }
        self.handle = connection
    }

    deinit {
        try? close()
    }

    func connection(sql: String? = nil) throws -> OpaquePointer {
        guard let handle else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "database \(path) is closed", sql: sql, path: path)
        }
        return handle
    }

    /// Finalizes every cached statement and closes the connection with
    /// `sqlite3_close_v2` (statements still held elsewhere keep the connection as a
    /// zombie until they are deinitialized). Idempotent.
    /// - Throws: ``DatabaseError`` if `sqlite3_close_v2` fails (it only fails on misuse).
    func close() throws {
        guard let handle else { return }
        for statement in statementCache.values { statement.finalize() }
        statementCache.removeAll()
        if rowChangeWatch != nil { sqlite3_update_hook(handle, nil, nil) }
        self.handle = nil
        let code = sqlite3_close_v2(handle)
        guard code == SQLITE_OK else {
            throw DatabaseError(extendedResultCode: code, message: "cannot close \(path)", path: path)
        }
    }

    // MARK: Statements

    /// Compiles one SQL statement (`sqlite3_prepare_v3`).
    /// - Parameter sql: Exactly one statement; trailing whitespace/comments allowed.
    /// - Returns: A new statement, owned by the caller, finalized on deinit.
    /// - Throws: ``DatabaseError`` `SQLITE_ERROR` on a syntax error / unknown table;
    ///   `SQLITE_MISUSE` if `sql` holds more than one statement or none.
    public func prepare(sql: String) throws -> Statement {
        try prepare(sql: sql, flags: 0)
    }

    /// Returns the statement cached for this exact SQL text, compiling it on first use
    /// (`SQLITE_PREPARE_PERSISTENT`). The returned statement is reset, and keeps nothing of its last use: a run with
    /// arguments binds every parameter, one without finds them NULL. Cached statements live until
    /// ``DatabasePool/close()``.
    /// - Parameter sql: Exactly one statement.
    /// - Returns: The cached statement.
    /// - Throws: Same as ``prepare(sql:)``.
    public func cachedStatement(sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            try statement.resetForReuse()
            return statement
        }
        let statement = try prepare(sql: sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statementCache[sql] = statement
        return statement
    }

    private func prepare(sql: String, flags: UInt32) throws -> Statement {
        let connection = try connection(sql: sql)
        var statementHandle: OpaquePointer?
        var remainder = ""
        let code: Int32 = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(connection, start, -1, flags, &statementHandle, &tail)
            if let tail { remainder = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else { throw DatabaseError.fromConnection(connection, code: code, sql: sql) }
        guard let statementHandle else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "no SQL statement found", sql: sql)
        }
        let statement = Statement(handle: statementHandle, sql: sql)
        if try containsStatement(remainder) {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "multiple statements found; use execute(sql:) without arguments", sql: sql)
        }
        return statement
    }

    /// `true` when `sql` compiles to at least one statement (not just whitespace/comments).
    private func containsStatement(_ sql: String) throws -> Bool {
        if sql.allSatisfy({ $0.isWhitespace || $0 == ";" }) { return false }
        let connection = try connection(sql: sql)
        var statementHandle: OpaquePointer?
        let code = sqlite3_prepare_v2(connection, sql, -1, &statementHandle, nil)
        sqlite3_finalize(statementHandle)
        return code != SQLITE_OK || statementHandle != nil
    }

    // MARK: Executing

    /// Executes SQL.
    ///
    /// With arguments, `sql` must be a single statement; it runs through the statement
    /// cache. Without arguments, `sql` may contain several statements separated by `;`,
    /// run in order (like `sqlite3_exec`, but with every return code checked).
    /// - Parameters:
    ///   - sql: The SQL text.
    ///   - arguments: Values for the statement's parameters.
    /// - Throws: ``DatabaseError`` from preparing, binding or stepping (e.g. `SQLITE_CONSTRAINT`,
    ///   `SQLITE_FULL`, `SQLITE_BUSY`).
    public func execute(sql: String, arguments: StatementArguments = []) throws {
        if !arguments.isEmpty {
            try cachedStatement(sql: sql).execute(arguments: arguments)
            return
        }
        let connection = try connection(sql: sql)
        try sql.withCString { start in
            var current: UnsafePointer<CChar>? = start
            while let cursor = current, cursor.pointee != 0 {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(connection, cursor, -1, &statementHandle, &tail)
                guard code == SQLITE_OK else { throw DatabaseError.fromConnection(connection, code: code, sql: sql) }
                current = tail
                guard let statementHandle else { continue }  // whitespace or comment
                let statement = Statement(handle: statementHandle, sql: sql)
                guard statement.parameterCount == 0 else {
                    throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "statement has \(statement.parameterCount) parameters but no arguments were given", sql: sql)
                }
                while try statement.step() {}
            }
        }
    }

    /// Runs a query and maps every row.
    /// - Returns: One element per row.
    /// - Throws: ``DatabaseError`` from preparing, binding, stepping or typed reads.
    public func fetchAll<T>(sql: String, arguments: StatementArguments = [], _ transform: (Row) throws -> T) throws -> [T] {
        try cachedStatement(sql: sql).fetchAll(arguments: arguments, transform)
    }

    /// Runs a query and maps its first row, or returns `nil` when there is none.
    /// - Throws: ``DatabaseError`` from preparing, binding, stepping or typed reads.
    public func fetchOne<T>(sql: String, arguments: StatementArguments = [], _ transform: (Row) throws -> T) throws -> T? {
        try cachedStatement(sql: sql).fetchOne(arguments: arguments, transform)
    }

    /// Runs a query and reads column 0 of its first row as `T`, or `nil` when there is no row.
    /// - Throws: ``DatabaseError`` (`SQLITE_MISMATCH` if the value does not convert).
    public func fetchValue<T: DatabaseValueConvertible>(sql: String, arguments: StatementArguments = [], as type: T.Type = T.self) throws -> T? {
        try fetchOne(sql: sql, arguments: arguments) { try $0.value(at: 0, as: type) }
    }

    // MARK: State

    /// Rows changed by the most recent INSERT/UPDATE/DELETE (`sqlite3_changes64`).
    public var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`).
    public var lastInsertedRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// `true` while a transaction is open (`sqlite3_get_autocommit` returns 0).
    public var isInsideTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    // MARK: Transactions

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` … `COMMIT`, or `ROLLBACK` if
    /// `body` throws. When a transaction is already open, `body` runs in a nested
    /// `SAVEPOINT` instead (released on success, rolled back to on error), so it
    /// composes with ``DatabaseWriter/write(savepoint:_:)``.
    ///
    /// See <https://www.sqlite.org/lang_transaction.html> and
    /// <https://www.sqlite.org/lang_savepoint.html>.
    /// - Returns: What `body` returns, once the COMMIT (or RELEASE) succeeded.
    /// - Throws: What `body` throws (after rollback); ``DatabaseError`` `SQLITE_BUSY`
    ///   if the write lock could not be taken within the busy timeout; the COMMIT error
    ///   (e.g. `SQLITE_FULL`, `SQLITE_IOERR`) after rolling back.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try inSavepoint(body) }
        try cachedStatement(sql: "BEGIN IMMEDIATE").execute()
        let result: T
        do {
            result = try body()
            try cachedStatement(sql: "COMMIT").execute()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// Runs `body` inside `SAVEPOINT` … `RELEASE`; on error, `ROLLBACK TO` then `RELEASE`,
    /// so only `body`'s own changes are undone. The savepoint is named after its nesting depth,
    /// so its statements are prepared once per depth and cached (group commit opens one per write).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the savepoint statement's ``DatabaseError``.
    public func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        savepointCounter += 1
        let name = "tipjar_sp\(savepointCounter)"
        defer { savepointCounter -= 1 }
        try cachedStatement(sql: "SAVEPOINT \(name)").execute()
        do {
            let result = try body()
            try cachedStatement(sql: "RELEASE SAVEPOINT \(name)").execute()
            return result
        } catch {
            // If SQLite already rolled back the whole transaction (SQLITE_FULL, IOERR…),
            // there is no savepoint left to roll back to.
            if isInsideTransaction {
                try? execute(sql: "ROLLBACK TO SAVEPOINT \(name)")
                try? execute(sql: "RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    /// Rolls back the open transaction, if any. SQLite may already have rolled back
    /// automatically (after `SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_NOMEM`…), see
    /// <https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction>.
    func rollbackIgnoringErrors() {
        guard isInsideTransaction else { return }
        // A ROLLBACK can fail with pending writes from unreset statements: reset cached ones.
        for statement in statementCache.values { _ = sqlite3_reset(statement.handle) }
        try? cachedStatement(sql: "ROLLBACK").execute()
    }
}

@available(*, unavailable, message: "Database is used only under its owner's serialization (a serial queue or a lock)")
extension Database: Sendable {}
