import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound text/blobs before the bind call returns.
/// (The C macro is a cast and is not imported into Swift.)
var sqliteTransient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// One prepared SQLite statement (`sqlite3_stmt`), created by
/// ``Database/prepare(sql:)`` or ``Database/cachedStatement(sql:)``.
///
/// A statement belongs to its ``Database`` and, like it, must only be used under the
/// owner's serialization (a serial queue or a lock): it is explicitly **not** `Sendable`. It is finalized
/// (`sqlite3_finalize`) in `deinit`, or when its database is closed.
///
/// Follows <https://www.sqlite.org/c3ref/stmt.html>: bind, then `step()` until it
/// returns `false` (`SQLITE_DONE`), reading columns while it returns `true` (`SQLITE_ROW`).
public final class Statement {
    /// The SQL text (never contains bound values).
    public let sql: String
    /// The number of result columns (`sqlite3_column_count`); 0 for non-queries.
    public let columnCount: Int
    let handle: OpaquePointer
    private var isFinalized = false
    /// Whether the values bound now were left by an earlier user of the statement (``Database/cachedStatement(sql:)``
    /// hands it out reset but not cleared): the first ``step()`` clears them, unless ``bind(_:)`` replaced them all.
    private var bindingsAreStale = false
    /// The columns by name, built on the first read by name and kept for the statement's life.
    private var columnIndexes: ColumnIndexes?

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
        self.columnCount = Int(sqlite3_column_count(handle))
    }

    deinit { finalize() }

    /// Finalizes the statement (idempotent). Called by `deinit` and by ``Database/close()``.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        // sqlite3_finalize returns the error of the most recent failed step (already
        // reported to the caller of step); finalization itself cannot fail.
        sqlite3_finalize(handle)
    }

    private func checkUsable() throws {
        if isFinalized {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "statement used after its database was closed", sql: sql)
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError.fromConnection(sqlite3_db_handle(handle), code: code, sql: sql)
    }

    /// The result column names, left to right (`sqlite3_column_name`).
    public var columnNames: [String] {
        (0..<columnCount).map { String(cString: sqlite3_column_name(handle, Int32($0))) }
    }

    /// The count of SQL parameters (`sqlite3_bind_parameter_count`).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    // MARK: Binding

    /// Resets the statement so it can run again (`sqlite3_reset`) and clears all
    /// bindings to NULL (`sqlite3_clear_bindings`).
    ///
    /// The code returned by `sqlite3_reset` repeats the error of the last failed `step()`,
    /// which was already thrown; it is therefore not thrown again.
    /// - Throws: ``DatabaseError`` (`SQLITE_MISUSE`) if the database was closed.
    public func resetAndClearBindings() throws {
        try checkUsable()
        _ = sqlite3_reset(handle)
        let code = sqlite3_clear_bindings(handle)
        guard code == SQLITE_OK else { throw error(code) }
        bindingsAreStale = false
    }

    /// Resets the statement for a new user, whose run either binds every parameter (``bind(_:)``) or, binding
    /// nothing, finds them cleared to NULL, as after ``resetAndClearBindings()``. The clearing waits for that second
    /// case: clearing frees each bound text's copy, which the next bind would allocate again
    /// (`sqlite3_clear_bindings`, <https://www.sqlite.org/c3ref/clear_bindings.html>).
    func resetForReuse() throws {
        try checkUsable()
        _ = sqlite3_reset(handle)
        bindingsAreStale = true
    }

    /// Resets the statement, then binds `arguments`, a new value for every parameter.
    ///
    /// Every parameter must receive a value: positional arguments fill parameters
    /// 1…n in order; named arguments fill `:name`, `@name` or `$name` parameters.
    /// - Parameter arguments: The values to bind (64-bit integers via `sqlite3_bind_int64`).
    /// - Throws: ``DatabaseError`` with `SQLITE_RANGE` when the argument count does not
    ///   match the statement's parameters or a named parameter has no value (the message
    ///   names the parameter, never a value); or the error of a failing `sqlite3_bind_*`.
    public func bind(_ arguments: StatementArguments) throws {
        // Every parameter gets a value below or the bind throws, so the old values need no clearing: each is replaced.
        try resetForReuse()
        let count = parameterCount
        guard arguments.positional.count <= count else {
            throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "\(arguments.positional.count) positional arguments for \(count) parameters", sql: sql)
        }
        for (offset, value) in arguments.positional.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
        var used = Set<String>()
        for index in stride(from: Int32(arguments.positional.count + 1), through: Int32(count), by: 1) {
            guard let cName = sqlite3_bind_parameter_name(handle, index) else {
                throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "missing value for positional parameter \(index)", sql: sql)
            }
            let name = String(String(cString: cName).dropFirst())
            guard let value = arguments.named[name] else {
                throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "missing value for parameter :\(name)", sql: sql)
            }
            used.insert(name)
            try bind(value, at: index)
        }
        if let unknown = Set(arguments.named.keys).subtracting(used).sorted().first {
            throw DatabaseError(extendedResultCode: SQLITE_RANGE, message: "no parameter named :\(unknown)", sql: sql)
        }
        bindingsAreStale = false
    }

    private func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let int64):
            code = sqlite3_bind_int64(handle, index, int64)
        case .real(let double):
            code = sqlite3_bind_double(handle, index, double)
        case .text(let string):
            code = sqlite3_bind_text64(handle, index, string, sqlite3_uint64(string.utf8.count), sqliteTransient, UInt8(SQLITE_UTF8))
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                // A zero-length blob still needs a non-NULL pointer to bind as X'' rather than NULL.
                sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count), sqliteTransient)
            }
        }
        guard code == SQLITE_OK else { throw error(code) }
    }

    // MARK: Stepping

    /// Advances the statement (`sqlite3_step`).
    /// - Returns: `true` when a row is available (`SQLITE_ROW`), `false` when done (`SQLITE_DONE`).
    /// - Throws: ``DatabaseError`` for any other code: `SQLITE_BUSY` after the busy
    ///   timeout, `SQLITE_FULL`, `SQLITE_CONSTRAINT_*`, `SQLITE_CORRUPT`, …
    @discardableResult
    public func step() throws -> Bool {
        try checkUsable()
        if bindingsAreStale {
            _ = sqlite3_clear_bindings(handle)  // only fails on a NULL statement
            bindingsAreStale = false
        }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            columnIndexes?.rowBegins()
            return true
        case SQLITE_DONE: return false
        default: throw error(code)
        }
    }

    /// Binds `arguments` (if not `nil`) and steps until done, then resets the statement.
    /// - Parameter arguments: Values to bind, or `nil` to keep the current bindings.
    /// - Throws: ``DatabaseError`` from binding or stepping.
    public func execute(arguments: StatementArguments? = nil) throws {
        if let arguments { try bind(arguments) } else { try resetAndClearIfNeeded() }
        defer { _ = sqlite3_reset(handle) }
        while try step() {}
    }

    private func resetAndClearIfNeeded() throws {
        try checkUsable()
        _ = sqlite3_reset(handle)
    }

    /// Binds `arguments` (if not `nil`), then calls `body` for each row. The statement is
    /// reset afterwards so it releases its read lock.
    /// - Parameters:
    ///   - arguments: Values to bind, or `nil` to keep the current bindings.
    ///   - body: Called with each row; the ``Row`` is only valid during the call.
    /// - Throws: ``DatabaseError`` from binding or stepping, or what `body` throws.
    public func forEachRow(arguments: StatementArguments? = nil, _ body: (Row) throws -> Void) throws {
        if let arguments { try bind(arguments) } else { try resetAndClearIfNeeded() }
        defer { _ = sqlite3_reset(handle) }
        while try step() { try body(Row(statement: self)) }
    }

    /// Fetches all rows, mapped by `transform`.
    /// - Returns: One element per row.
    /// - Throws: ``DatabaseError`` from binding, stepping or typed column reads.
    public func fetchAll<T>(arguments: StatementArguments? = nil, _ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(arguments: arguments) { result.append(try transform($0)) }
        return result
    }

    /// Fetches the first row, mapped by `transform`, or `nil` if there is none.
    /// - Throws: ``DatabaseError`` from binding, stepping or typed column reads.
    public func fetchOne<T>(arguments: StatementArguments? = nil, _ transform: (Row) throws -> T) throws -> T? {
        if let arguments { try bind(arguments) } else { try resetAndClearIfNeeded() }
        defer { _ = sqlite3_reset(handle) }
        return try step() ? try transform(Row(statement: self)) : nil
    }

    // MARK: Columns

    /// The value of column `index` of the current row (`sqlite3_column_type` then the
    /// matching `sqlite3_column_int64` / `_double` / `_text` / `_blob`).
    /// - Parameter index: 0-based column index; must be `< columnCount`.
    public func value(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// The 0-based index of the leftmost column named `name` (case-insensitive), if any. The names are
    /// mapped once per statement (see `ColumnIndexes`): a decoder that reads the same names on every row
    /// neither hashes nor allocates from its second row on.
    public func columnIndex(named name: String) -> Int? {
        if columnIndexes == nil { columnIndexes = ColumnIndexes(names: columnNames) }
        return columnIndexes!.index(of: name)
    }

    /// Reads column `index` of the current row as `T`.
    /// - Parameters:
    ///   - index: 0-based column index.
    ///   - type: The Swift type (use an `Optional` type to accept NULL).
    /// - Returns: The converted value.
    /// - Throws: ``DatabaseError`` `SQLITE_RANGE` for a bad index, `SQLITE_MISMATCH`
    ///   when the stored value does not convert (e.g. NULL into `Int64`).
    @inlinable
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard index >= 0, index < columnCount else { throw outOfRange(index) }
        let stored = value(at: index)
        guard let converted = T.fromDatabaseValue(stored) else { throw mismatch(index, stored, T.self) }
        return converted
    }

    /// Reads the column named `name` (case-insensitive) of the current row as `T`.
    /// - Parameters:
    ///   - name: The result column's name: its `AS` alias, or the column's own name for a column reference.
    ///   - type: The Swift type (use an `Optional` type to accept NULL).
    /// - Returns: The converted value.
    /// - Throws: ``DatabaseError`` `SQLITE_RANGE` for an unknown column, naming it and the result's columns;
    ///   `SQLITE_MISMATCH` when the stored value does not convert.
    @inlinable
    public func value<T: DatabaseValueConvertible>(named name: String, as type: T.Type = T.self) throws -> T {
        guard let index = columnIndex(named: name) else { throw unknownColumn(name) }
        return try value(at: index, as: type)
    }

    /// The error of a read at a column index the result does not have.
    @usableFromInline
    func outOfRange(_ index: Int) -> DatabaseError {
        DatabaseError(extendedResultCode: SQLITE_RANGE, message: "column index \(index) out of range 0..<\(columnCount)", sql: sql)
    }

    /// The error of a read whose stored value does not convert to `type`.
    @usableFromInline
    func mismatch(_ index: Int, _ stored: DatabaseValue, _ type: Any.Type) -> DatabaseError {
        DatabaseError(
            extendedResultCode: SQLITE_MISMATCH, message: "column \(index) (\(columnNames[index])) holds \(Self.storageName(stored)), not convertible to \(type)", sql: sql)
    }

    /// The error of a read by a name no result column has.
    @usableFromInline
    func unknownColumn(_ name: String) -> DatabaseError {
        DatabaseError(
            extendedResultCode: SQLITE_RANGE,
            message: "no result column named \"\(name)\" (the columns are \(columnNames.joined(separator: ", ")))",
            sql: sql)
    }

    static func storageName(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

@available(*, unavailable, message: "Statement belongs to one connection and its owner's serialization")
extension Statement: Sendable {}

/// The current row of a ``Statement`` during iteration. Only valid inside the
/// `forEachRow` / `fetchAll` / `fetchOne` closure that received it. Not `Sendable`.
public struct Row {
    /// The statement positioned on this row.
    public let statement: Statement

    /// The raw value of column `index` (0-based).
    public subscript(index: Int) -> DatabaseValue { statement.value(at: index) }

    /// Reads column `index` as `T`. See ``Statement/value(at:as:)``.
    /// - Throws: ``DatabaseError`` `SQLITE_RANGE` / `SQLITE_MISMATCH`.
    @inlinable
    public func value<T: DatabaseValueConvertible>(at index: Int, as type: T.Type = T.self) throws -> T {
        try statement.value(at: index, as: type)
    }

    /// Reads the column `name` as `T`. See ``Statement/value(named:as:)``.
    /// - Throws: ``DatabaseError`` `SQLITE_RANGE` / `SQLITE_MISMATCH`.
    @inlinable
    public func value<T: DatabaseValueConvertible>(named name: String, as type: T.Type = T.self) throws -> T {
        try statement.value(named: name, as: type)
    }
}

@available(*, unavailable, message: "Row is only valid during iteration, under its statement's connection serialization")
extension Row: Sendable {}
