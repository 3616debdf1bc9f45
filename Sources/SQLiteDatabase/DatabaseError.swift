import CSQLite

/// An error reported by SQLite, or by this layer while guarding a database file.
///
/// The error carries the SQLite *extended* result code
/// (see <https://www.sqlite.org/rescode.html> and `sqlite3_extended_errcode`),
/// the SQLite message, the SQL text being run (if any) and the database file path
/// (if known). It **never** contains bound argument values, so it is safe to log:
/// tip amounts, receipts or customer identifiers bound with `?` do not leak.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The SQLite extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public let extendedResultCode: Int32
    /// The human-readable message (from `sqlite3_errmsg`, or written by this layer).
    public let message: String
    /// The SQL text that failed, if the error happened while preparing or running SQL.
    /// Never contains bound values.
    public let sql: String?
    /// The database file concerned, when the error is about a file (opening, validation).
    public let path: String?

    /// Creates an error.
    /// - Parameters:
    ///   - extendedResultCode: An SQLite (extended) result code; its low byte is the primary code.
    ///   - message: A message describing the failure. Must not contain bound values.
    ///   - sql: The SQL text, if any.
    ///   - path: The file path concerned, if any.
    public init(extendedResultCode: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code (`extendedResultCode & 0xFF`), e.g. `SQLITE_CONSTRAINT` (19).
    public var resultCode: Int32 { extendedResultCode & 0xFF }

    /// `SQLITE_BUSY`: another connection holds a conflicting lock longer than the busy timeout.
    public var isBusy: Bool { resultCode == SQLITE_BUSY }
    /// `SQLITE_LOCKED`: a conflict inside the same connection / shared cache.
    public var isLocked: Bool { resultCode == SQLITE_LOCKED }
    /// `SQLITE_FULL`: the disk is full, or `PRAGMA max_page_count` was reached.
    public var isFull: Bool { resultCode == SQLITE_FULL }
    /// `SQLITE_CORRUPT`: the database (or its WAL) is malformed.
    public var isCorrupt: Bool { resultCode == SQLITE_CORRUPT }
    /// `SQLITE_NOTADB`: the file (or its WAL) is not an SQLite database / not this database's WAL.
    public var isNotADatabase: Bool { resultCode == SQLITE_NOTADB }
    /// `SQLITE_READONLY`: the file, its folder or the connection is read-only.
    public var isReadOnly: Bool { resultCode == SQLITE_READONLY }
    /// `SQLITE_READONLY_DBMOVED`: the database file or its `-wal` was deleted, renamed or replaced
    /// while open, so writes are refused (<https://www.sqlite.org/rescode.html#readonly_dbmoved>);
    /// ``path`` names the file.
    public var isFileMoved: Bool { extendedResultCode == DatabaseFileWatch.movedCode }
    /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK, FOREIGN KEY… constraint failed.
    public var isConstraintViolation: Bool { resultCode == SQLITE_CONSTRAINT }

    /// A one-line description: code name, extended code, message, file and SQL.
    /// Bound argument values are never included.
    public var description: String {
        var text = "SQLite error \(resultCode) (\(Self.name(ofPrimaryCode: resultCode))"
        if extendedResultCode != resultCode { text += ", extended \(extendedResultCode)" }
        text += "): \(message)"
        if let path, !message.contains(path) { text += " [file: \(path)]" }
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }

    /// Builds an error from a connection's current error state
    /// (`sqlite3_extended_errcode`, `sqlite3_errmsg`).
    static func fromConnection(_ connection: OpaquePointer?, code: Int32, sql: String? = nil, path: String? = nil) -> DatabaseError {
        var extended = code
        var message = String(cString: sqlite3_errstr(code))
        if let connection {
            let connectionCode = sqlite3_extended_errcode(connection)
            // Prefer the connection's extended code when it agrees with the primary code we got.
            if connectionCode & 0xFF == code & 0xFF { extended = connectionCode }
            if let cMessage = sqlite3_errmsg(connection) { message = String(cString: cMessage) }
        }
        return DatabaseError(extendedResultCode: extended, message: message, sql: sql, path: path)
    }

    static func name(ofPrimaryCode code: Int32) -> String {
        let names: [Int32: String] = [
            0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
            5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
            9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
            13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
            17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
            21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
            25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
            100: "SQLITE_ROW", 101: "SQLITE_DONE",
        ]
        return names[code] ?? "SQLITE_UNKNOWN"
    }
}
