import Foundation

/// A parsed HTTP/1.1 response: its status, its fields in order, and its body as text.
public struct HTTPReply: Sendable {
    /// The status code (0 when nothing parsable came back).
    public var status = 0
    /// The header fields in the order they came, names as sent.
    public var fields: [(name: String, value: String)] = []
    /// The body as UTF-8 text (everything after the blank line: a chunked body keeps its framing).
    public var body = ""

    /// A reply built field by field (for an answer given in process, without a socket).
    /// - Parameters:
    ///   - status: the status code.
    ///   - fields: the header fields, in order.
    ///   - body: the body as text.
    public init(status: Int, fields: [(name: String, value: String)], body: String) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// Parses the first response in `text`: the status line, the fields up to the blank line (RFC 9112 section 2.1),
    /// and the rest as the body.
    /// - Parameter text: what a connection delivered.
    public init(parsing text: String) {
        guard let split = text.range(of: "\r\n\r\n") else { return }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        body = String(text[split.upperBound...])
    }

    /// The first field named `name`, compared case-insensitively (RFC 9110 section 5.1).
    public subscript(_ name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// The body as a JSON object (empty when it is not one).
    public var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]) ?? [:] }

    /// The body as a JSON array of objects (empty when it is not one).
    public var array: [[String: Any]] { ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]]) ?? [] }

    /// The first cookie of `Set-Cookie`, as `name=value` (RFC 6265 section 4.1).
    public var sessionCookie: String? { self["Set-Cookie"]?.split(separator: ";").first.map(String.init) }

    /// The CSRF token of a page (`<meta name="csrf-token" content="…">`).
    public var csrfToken: String? {
        guard let range = body.range(of: #"name="csrf-token" content=""#) else { return nil }
        return String(body[range.upperBound...].prefix { $0 != "\"" })
    }
}
