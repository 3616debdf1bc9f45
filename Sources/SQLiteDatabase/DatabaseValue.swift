import Foundation

/// A value stored in, or bound to, an SQLite column or parameter.
///
/// Mirrors SQLite's five storage classes (<https://www.sqlite.org/datatype3.html>).
/// Integers are always 64-bit (`sqlite3_bind_int64` / `sqlite3_column_int64`).
public enum DatabaseValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// A blob of bytes (possibly empty).
    case blob([UInt8])
}

/// A Swift type that converts to and from ``DatabaseValue``.
///
/// Conversions are strict: reading an `Int64` from a TEXT column fails instead of
/// silently returning 0, which is what `sqlite3_column_int64` would do. The conversions of this module's types are
/// `@inlinable`, as the typed reads of ``Statement`` and ``Row`` are, so a row decoder in another module is
/// specialized for the types it reads instead of looking up each `Optional`'s generic metadata at every column.
public protocol DatabaseValueConvertible: Sendable {
    /// The value to bind for this Swift value.
    var databaseValue: DatabaseValue { get }
    /// Converts a stored value; returns `nil` when the storage class does not fit.
    /// - Parameter databaseValue: The stored value.
    /// - Returns: The Swift value, or `nil` on a type mismatch (including NULL for non-optionals).
    static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    /// Returns `self`.
    @inlinable public var databaseValue: DatabaseValue { self }
    /// Returns the value unchanged.
    @inlinable public static func fromDatabaseValue(_ databaseValue: DatabaseValue) -> DatabaseValue? { databaseValue }
}

extension Int64: DatabaseValueConvertible {
    /// `.integer(self)`.
    @inlinable public var databaseValue: DatabaseValue { .integer(self) }
    /// Accepts INTEGER only.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        if case .integer(let v) = value { return v }
        return nil
    }
}

extension Int: DatabaseValueConvertible {
    /// `.integer(Int64(self))`.
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    /// Accepts INTEGER values that fit in `Int`.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        if case .integer(let v) = value { return Int(exactly: v) }
        return nil
    }
}

extension Bool: DatabaseValueConvertible {
    /// `.integer(1)` or `.integer(0)`.
    @inlinable public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    /// Accepts INTEGER (non-zero is `true`).
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        if case .integer(let v) = value { return v != 0 }
        return nil
    }
}

extension Double: DatabaseValueConvertible {
    /// `.real(self)`.
    @inlinable public var databaseValue: DatabaseValue { .real(self) }
    /// Accepts REAL and INTEGER.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
}

extension String: DatabaseValueConvertible {
    /// `.text(self)`.
    @inlinable public var databaseValue: DatabaseValue { .text(self) }
    /// Accepts TEXT only.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let v) = value { return v }
        return nil
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    /// `.blob(self)`.
    @inlinable public var databaseValue: DatabaseValue { .blob(self) }
    /// Accepts BLOB only.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        if case .blob(let v) = value { return v }
        return nil
    }
}

extension Data: DatabaseValueConvertible {
    /// `.blob([UInt8](self))`.
    @inlinable public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    /// Accepts BLOB only.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        if case .blob(let v) = value { return Data(v) }
        return nil
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    /// `.null` for `nil`, else the wrapped value's database value.
    @inlinable public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    /// NULL becomes `.some(nil)`; other values convert through `Wrapped`.
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        guard let wrapped = Wrapped.fromDatabaseValue(value) else { return nil }
        return .some(wrapped)
    }
}
