/// Values bound to a statement's parameters, either by position (`?`, `?NNN`)
/// or by name (`:name`, `@name`, `$name`).
///
/// Follows <https://www.sqlite.org/c3ref/bind_blob.html>. Values are never included
/// in ``DatabaseError`` descriptions.
///
///     try db.execute(sql: "INSERT INTO tips(amount) VALUES (?)", arguments: [Int64(500)])
///     try db.execute(sql: "UPDATE tips SET note = :note", arguments: ["note": nil])
public struct StatementArguments: Sendable, Hashable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// Positional values, bound to parameter indexes 1, 2, 3…
    public var positional: [DatabaseValue]
    /// Named values, keyed by name without prefix (`"note"` binds `:note`, `@note` or `$note`).
    public var named: [String: DatabaseValue]

    /// Creates arguments.
    /// - Parameters:
    ///   - positional: Values for parameters 1…n.
    ///   - named: Values for named parameters (key without the `:`/`@`/`$` prefix).
    public init(_ positional: [DatabaseValue], named: [String: DatabaseValue] = [:]) {
        self.positional = positional
        self.named = named
    }

    /// Positional arguments from convertible values; `nil` binds NULL.
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(elements.map { $0?.databaseValue ?? .null })
    }

    /// Named arguments from convertible values; `nil` binds NULL.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var named: [String: DatabaseValue] = [:]
        for (key, value) in elements { named[key] = value?.databaseValue ?? .null }
        self.init([], named: named)
    }

    /// `true` when no value is provided.
    public var isEmpty: Bool { positional.isEmpty && named.isEmpty }
}
