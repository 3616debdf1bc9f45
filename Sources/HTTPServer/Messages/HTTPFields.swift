/// An ordered list of HTTP field lines (`name: value` pairs) with case-insensitive name lookup
/// (RFC 9110 §5.1: field names are case-insensitive).
///
/// Order and duplicates are preserved exactly as received or appended.
public struct HTTPFields: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    /// One field line.
    public typealias Element = (name: String, value: String)

    @usableFromInline var storage: [Element]

    /// Creates an empty field list.
    public init() { storage = [] }

    /// Creates a field list from ordered pairs.
    /// - Parameter fields: the `(name, value)` pairs, in order.
    public init(_ fields: [(name: String, value: String)]) { storage = fields }

    /// Creates a field list from a dictionary literal, keeping the literal's order.
    /// - Parameter elements: `name: value` pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        storage = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The number of field lines.
    public var count: Int { storage.count }

    /// Whether there are no field lines.
    public var isEmpty: Bool { storage.isEmpty }

    /// The first value for `name` (case-insensitive); setting replaces every line with that name
    /// by one line at the position of the first (or appends), and `nil` removes them all.
    /// - Parameter name: a field name, matched case-insensitively.
    public subscript(_ name: String) -> String? {
        get {
            for field in storage where asciiCaseInsensitiveEquals(field.name, name) { return field.value }
            return nil
        }
        set {
            guard let newValue else { remove(name); return }
            if let first = storage.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
                storage[first].value = newValue
                var index = storage.index(after: first)
                while index < storage.endIndex {
                    if asciiCaseInsensitiveEquals(storage[index].name, name) { storage.remove(at: index) } else { index += 1 }
                }
            } else {
                storage.append((name: name, value: newValue))
            }
        }
    }

    /// Every value for `name`, in order.
    /// - Parameter name: a field name, matched case-insensitively.
    /// - Returns: the values (empty if the field is absent).
    public func values(for name: String) -> [String] {
        storage.compactMap { asciiCaseInsensitiveEquals($0.name, name) ? $0.value : nil }
    }

    /// Whether at least one line named `name` exists.
    /// - Parameter name: a field name, matched case-insensitively.
    public func contains(_ name: String) -> Bool {
        storage.contains { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// Appends a field line, keeping existing lines with the same name.
    /// - Parameters:
    ///   - name: the field name (should be a token, RFC 9110 §5.1).
    ///   - value: the field value (must not contain CR, LF or NUL; RFC 9110 §5.5).
    public mutating func append(name: String, value: String) {
        storage.append((name: name, value: value))
    }

    /// Removes every line named `name`.
    /// - Parameter name: a field name, matched case-insensitively.
    public mutating func remove(_ name: String) {
        storage.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// Iterates over the field lines in order.
    /// - Returns: an iterator of `(name, value)` pairs.
    public func makeIterator() -> IndexingIterator<[Element]> { storage.makeIterator() }

    /// Two field lists are equal when they hold the same lines in the same order
    /// (names compared case-insensitively, values exactly).
    public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        guard lhs.storage.count == rhs.storage.count else { return false }
        for (a, b) in zip(lhs.storage, rhs.storage) {
            if a.value != b.value || !asciiCaseInsensitiveEquals(a.name, b.name) { return false }
        }
        return true
    }
}

/// Compares two strings byte-wise, folding ASCII letters only (field names and tokens are ASCII).
@inlinable
func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    // Lengths first: a native string's UTF-8 count needs no pass over it, and most names compared differ in length.
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a, b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in
            guard pa.count == pb.count else { return false }
            for i in 0..<pa.count {
                let x = pa[i], y = pb[i]
                if x == y { continue }
                if x | 0x20 != y | 0x20 { return false }
                let lower = x | 0x20
                if lower < 0x61 || lower > 0x7A { return false }
            }
            return true
        }
    }
}
