import Foundation

/// A typed rendering context value.
///
/// Render data may be given as `Any` (whatever `JSONSerialization.jsonObject(with:)` returns,
/// or native Swift dictionaries, arrays, strings, booleans and numbers); it is converted to a
/// `MustacheValue` tree once per render. Passing a `MustacheValue` directly skips that
/// conversion and is the fastest way to render.
///
/// Truthiness follows the Mustache spec, "sections": `false`, `null` and empty lists are
/// falsey; every other value (including `0` and `""`) is truthy.
public enum MustacheValue: Sendable, Equatable {
    /// Absent / `null`; renders as the empty string.
    case null
    /// A boolean; renders as `true` / `false`.
    case bool(Bool)
    /// An integer; renders in decimal.
    case int(Int)
    /// A floating-point number; integral values render without a fractional part.
    case double(Double)
    /// A string; HTML-escaped by `{{name}}`, raw with `{{{name}}}` or `{{&name}}`.
    case string(String)
    /// Text written for element content and double-quoted attribute values: `{{name}}` escapes `&`, `<`, `>` and
    /// `"`, but leaves `'` as it is (HTML needs no escape for it there:
    /// https://html.spec.whatwg.org/multipage/parsing.html#serialising-html-fragments, "Escaping a string"), so
    /// declared prose such as "Xcode's" reads as written in the page source. Raw with `{{{name}}}` or `{{&name}}`.
    case text(String)
    /// A list; a section over it renders once per element.
    case array([MustacheValue])
    /// A hash; a section over it pushes it on the context stack.
    case object([String: MustacheValue])

    /// Converts arbitrary render data to a typed value.
    ///
    /// Accepts `MustacheValue`, `String`, `Bool`, `Int`, `Double` (and other Swift numbers),
    /// `NSNumber` (booleans created by `JSONSerialization` are detected by their class, not
    /// their value, so `1` stays a number), `NSNull`, optionals, `[String: Any]`,
    /// `NSDictionary`, `[Any]` and `NSArray`. Anything else renders via `String(describing:)`.
    /// - Parameter any: The value to convert.
    /// - Returns: The equivalent typed value.
    public init(_ any: Any?) {
        guard let any else {
            self = .null
            return
        }
        // Exact-type checks first: they are pointer comparisons, where an `as?` cast walks the
        // runtime's conformance tables (and `as? [Any]` converts every element).
        let dynamicType = type(of: any)
        if dynamicType == String.self {
            self = .string(any as! String)
        } else if dynamicType == [String: Any].self {
            self = .object((any as! [String: Any]).mapValues { MustacheValue($0) })
        } else if dynamicType == [[String: Any]].self {
            self = .array((any as! [[String: Any]]).map { .object($0.mapValues { MustacheValue($0) }) })
        } else if dynamicType == Bool.self {
            self = .bool(any as! Bool)
        } else if dynamicType == Int.self {
            self = .int(any as! Int)
        } else if dynamicType == [String].self {
            self = .array((any as! [String]).map { .string($0) })
        } else if dynamicType == MustacheValue.self {
            self = any as! MustacheValue
        } else {
            // A wrapped optional (`String?` inside `Any`) is unwrapped here, off the fast path.
            guard let any = Self.unwrapOptional(any) else {
                self = .null
                return
            }
            switch any {
            case let value as MustacheValue: self = value
            case let value as any MustacheRenderable: self = value.mustacheValue
            case let value as String: self = .string(value)
            case let value as [String: Any]: self = .object(value.mapValues { MustacheValue($0) })
            case let value as [Any]: self = .array(value.map { MustacheValue($0) })
            default: self = Self.convertScalar(any)
            }
        }
    }

    private static let booleanNumberType = type(of: NSNumber(value: true))

    private static func convertScalar(_ any: Any) -> MustacheValue {
        let dynamicType = type(of: any)
        if dynamicType == Bool.self, let b = any as? Bool { return .bool(b) }
        if dynamicType == Int.self, let i = any as? Int { return .int(i) }
        if dynamicType == Double.self, let d = any as? Double { return .double(d) }
        if any is NSNull { return .null }
        if let n = any as? NSNumber {
            if type(of: n) == booleanNumberType { return .bool(n.boolValue) }
            switch String(cString: n.objCType) {
            case "d", "f": return .double(n.doubleValue)
            case "Q", "L", "I", "S", "C":
                let u = n.uint64Value
                return u <= UInt64(Int.max) ? .int(Int(u)) : .double(Double(u))
            default: return .int(n.intValue)
            }
        }
        if let s = any as? Substring { return .string(String(s)) }
        if let d = any as? NSDictionary {
            var object: [String: MustacheValue] = [:]
            for (key, value) in d { object[String(describing: key)] = MustacheValue(value) }
            return .object(object)
        }
        if let a = any as? NSArray { return .array(a.map { MustacheValue($0) }) }
        if let d = any as? [AnyHashable: Any] {
            var object: [String: MustacheValue] = [:]
            for (key, value) in d { object[String(describing: key.base)] = MustacheValue(value) }
            return .object(object)
        }
        return .string(String(describing: any))
    }

    private static func unwrapOptional(_ any: Any) -> Any? {
        if let optional = any as? any OptionalUnwrapping { return optional.unwrappedAny }
        return any
    }

    /// Whether a section over this value renders (spec "sections"/"inverted": falsey values
    /// are `false`, `null` and empty lists).
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .array(let a): return !a.isEmpty
        default: return true
        }
    }
}

/// A typed view model: a value that knows the ``MustacheValue`` a template renders it as (a page's data, a row of
/// a table). Rendering one needs no `Any` and no dynamic casts; ``MustacheValue/init(_:)`` also accepts one.
public protocol MustacheRenderable {
    /// The value a template renders.
    var mustacheValue: MustacheValue { get }
}

extension MustacheValue: MustacheRenderable {
    /// The value itself.
    public var mustacheValue: MustacheValue { self }
}

/// Lets `MustacheValue.init(_:)` see through `Optional` values boxed in `Any`.
private protocol OptionalUnwrapping {
    var unwrappedAny: Any? { get }
}

extension Optional: OptionalUnwrapping {
    fileprivate var unwrappedAny: Any? {
        switch self {
        case .some(let wrapped): return MustacheValueUnwrap.flatten(wrapped)
        case .none: return nil
        }
    }
}

private enum MustacheValueUnwrap {
    static func flatten(_ any: Any) -> Any? {
        if let optional = any as? any OptionalUnwrapping { return optional.unwrappedAny }
        return any
    }
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// Creates a `.string` value from a literal.
    /// - Parameter value: The string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an `.int` value from a literal.
    /// - Parameter value: The integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// Creates a `.double` value from a literal.
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates a `.bool` value from a literal.
    /// - Parameter value: The boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates an `.array` value from a literal.
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }
    /// Creates an `.object` value from a literal; later duplicate keys win.
    /// - Parameter elements: The key/value pairs.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, new in new }))
    }
    /// Creates `.null` from `nil`.
    /// - Parameter nilLiteral: Unused.
    public init(nilLiteral: ()) { self = .null }
}
