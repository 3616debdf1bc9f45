import HTTPServer
import TipJar

/// Every text value a request carries (a query value, a form field, a JSON string) is at most
/// ``maximumBytes`` bytes of UTF-8, checked on the bytes before any handler parses or matches it: a
/// 1,000,000-character storefront code or label is refused with 400 in time that does not grow with the work
/// it would have caused. The longest value the dashboard accepts (a product ID, 400 bytes) fits well inside it.
struct FieldSizeCheck: RouterMiddleware {
    /// The most bytes one value may have: for a JSON string, as sent (escapes count as written).
    static var maximumBytes: Int { 1024 }

    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        if let refusal = Self.refusal(request, context) { throw refusal }
        return await next(request, context)
    }

    /// The same check at once, on the I/O thread: it reads only the request and its decoded form.
    func immediateStep(_ request: HTTPRequest, context: inout DashboardContext) -> ImmediateStep {
        Self.refusal(request, context).map { .refuse($0) } ?? .pass
    }

    /// The 400 for a request with an oversized value, or `nil`.
    static func refusal(_ request: HTTPRequest, _ context: DashboardContext) -> RequestError? {
        oversizedField(in: request, form: context.form).map { RequestError(message: "The value of \($0) is longer than \(maximumBytes) bytes.") }
    }

    /// The first value over the limit, named for the person (`field "label"`, `a JSON string`), or `nil`.
    static func oversizedField(in request: HTTPRequest, form: [String: String]) -> String? {
        if let query = request.query, query.utf8.count > maximumBytes,
            let item = request.queryItems.first(where: { $0.value.utf8.count > maximumBytes })
        {
            return "query field \"\(Catalog.shownInput(item.name))\""
        }
        if let (name, _) = form.first(where: { $0.value.utf8.count > maximumBytes }) {
            return "field \"\(Catalog.shownInput(name))\""
        }
        if request.body.count > maximumBytes, form.isEmpty, longestJSONString(in: request.body) > maximumBytes {
            return "a JSON string"
        }
        return nil
    }

    /// The length in bytes, as sent, of the longest string in a JSON text (RFC 8259 §7: a string runs from a
    /// quotation mark to the next one not escaped by a reverse solidus). One pass; on text that is not JSON the
    /// figure is still an upper bound of any string a decoder would find in it.
    static func longestJSONString(in bytes: [UInt8]) -> Int {
        var longest = 0
        var start: Int?
        var escaped = false
        for (index, byte) in bytes.enumerated() {
            guard let opened = start else {
                if byte == UInt8(ascii: "\"") { start = index + 1 }
                continue
            }
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                longest = max(longest, index - opened)
                start = nil
            }
        }
        if let opened = start { longest = max(longest, bytes.count - opened) }
        return longest
    }
}
