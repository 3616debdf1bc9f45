import Synchronization

/// The fields every answer the server writes carries unless it has its own: the responder's answers, those given on the
/// I/O thread (``PreparedResponse``), the server's own errors (400, 408, 413, 414, 421, 431, 501, 505), its 503s and a
/// stream's head. The serializer adds them (`ResponseSerializer`), each only where the answer has no field of that
/// name, after the answer's own fields; so a route that sets `Cache-Control` keeps it, and an application that puts
/// its security headers here has them on every answer whatever road it took (the one outbound policy of SwiftNIO's
/// `ChannelPipeline`, where the handler nearest the socket sees every write).
///
/// `Content-Type` is added to an answer with a body and none of its own (RFC 9110 §8.3: a sender that knows the type
/// should send it), when ``untypedBodyContentType`` is set.
public struct ResponseDefaults: Sendable {
    /// Tells these defaults from any others made in this process (a ``PreparedResponse`` remembers which defaults it
    /// lacks for the last ones it was sent with).
    let id: Int
    /// The fields, in the order they are sent.
    public let fields: HTTPFields
    /// The `Content-Type` of a body that states none, or `nil` to send such a body without one.
    public let untypedBodyContentType: String?
    /// The names of ``fields``, lower-cased, by index.
    private let names: [String]
    /// The field lines for every combination of missing fields, by bit mask: bit `i` for `fields[i]`, the bit after
    /// the last for `Content-Type`. Made once, so an answer costs the comparison of its names and one look-up.
    private let lines: [[UInt8]]

    /// No fields: every answer is sent with only its own.
    public static let none = ResponseDefaults()

    /// Defaults of `fields`, and `untypedBodyContentType` for a body without a `Content-Type`.
    /// - Parameters:
    ///   - fields: at most 15 fields; names must be tokens and values free of CR, LF and NUL (others are left out,
    ///     as the serializer leaves out such fields of an answer).
    ///   - untypedBodyContentType: see ``untypedBodyContentType``.
    public init(_ fields: HTTPFields = HTTPFields(), untypedBodyContentType: String? = nil) {
        id = Self.ids.add(1, ordering: .relaxed).newValue
        var kept = HTTPFields()
        for field in fields.prefix(15) where ResponseSerializer.isSendable(name: field.name, value: field.value) {
            kept.append(name: field.name, value: field.value)
        }
        self.fields = kept
        self.untypedBodyContentType = untypedBodyContentType.flatMap {
            ResponseSerializer.isSendable(name: "Content-Type", value: $0) ? $0 : nil
        }
        names = kept.map { $0.name.lowercased() }
        var candidates: [[UInt8]] = kept.map { Self.line($0.name, $0.value) }
        candidates.append(self.untypedBodyContentType.map { Self.line("Content-Type", $0) } ?? [])
        var table: [[UInt8]] = []
        table.reserveCapacity(1 << candidates.count)
        for mask in 0..<(1 << candidates.count) {
            var out: [UInt8] = []
            for (index, line) in candidates.enumerated() where mask & (1 << index) != 0 { out.append(contentsOf: line) }
            table.append(out)
        }
        lines = table
    }

    /// The field lines to add to an answer whose field names are `names` (lower-cased), with or without a body.
    /// - Parameters:
    ///   - names: the answer's field names, lower-cased.
    ///   - hasBody: whether the answer has a body (so its type is stated).
    /// - Returns: the lines of every default the answer lacks; empty when it lacks none.
    func lines(missingFrom names: [String], hasBody: Bool) -> [UInt8] {
        lines[mask(missingFrom: names, hasBody: hasBody)]
    }

    /// The bit mask of the defaults missing from an answer with these `names`.
    func mask(missingFrom names: [String], hasBody: Bool) -> Int {
        var mask = 0
        for (index, name) in self.names.enumerated() where !names.contains(name) { mask |= 1 << index }
        if hasBody, untypedBodyContentType != nil, !names.contains("content-type") { mask |= 1 << self.names.count }
        return mask
    }

    /// The fields of `response` as the serializer sends them (but `Content-Length`, `Date` and `Connection`): its own,
    /// then every default it lacks. For an answer given without a socket (in process) to carry what a socket sends.
    /// - Parameter response: the answer.
    /// - Returns: the answer with the defaults added.
    public func applied(to response: HTTPResponse) -> HTTPResponse {
        var response = response
        let names = response.fields.map { $0.name.lowercased() }
        let code = response.status.code
        let hasBody = !(code < 200 || code == 204 || code == 304) && !response.body.isEmpty
        let mask = mask(missingFrom: names, hasBody: hasBody)
        for (index, field) in fields.enumerated() where mask & (1 << index) != 0 { response.fields.append(name: field.name, value: field.value) }
        if mask & (1 << fields.count) != 0, let type = untypedBodyContentType { response.fields.append(name: "Content-Type", value: type) }
        return response
    }

    /// The last ``id`` handed out.
    private static let ids = Atomic<Int>(0)

    /// The field lines to add to `prepared`: as ``lines(missingFrom:hasBody:)``, the bit mask computed once per prepared
    /// answer (and its splices) and these defaults, not per request.
    func lines(for prepared: PreparedResponse) -> [UInt8] {
        let memo = prepared.defaultsMemo.load()
        if memo != 0, memo >> 32 == id { return lines[memo & 0xFFFF_FFFF] }
        let mask = mask(missingFrom: prepared.fieldNames, hasBody: prepared.bodyByteCount > 0)
        prepared.defaultsMemo.store(id << 32 | mask)
        return lines[mask]
    }

    private static func line(_ name: String, _ value: String) -> [UInt8] {
        Array("\(name): \(value)\r\n".utf8)
    }
}
