import Foundation
import HTTPServer
import TipJar

/// JSON message bodies for the API: decoding with clear errors, encoding with a fixed shape.
enum JSONBody {
    /// One encoder and one decoder for every request: their options are set once, and both are safe to share
    /// between threads (Foundation's `JSONEncoder` and `JSONDecoder` are `Sendable`).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
    private static let decoder = JSONDecoder()

    /// Encodes an `Encodable` value as an `application/json; charset=utf-8` response.
    static func response(_ value: some Encodable, status: HTTPStatus = .ok) -> HTTPResponse {
        let data = (try? encoder.encode(value)) ?? Data(#"{"error":"The response could not be encoded."}"#.utf8)
        return response(json: inert(data), status: status)
    }

    /// A response of a body written by ``SortedJSONObject``: the bytes `response(_:status:)` sends for the same
    /// value (`SortedJSONObjectTests`), markup characters made inert the same way.
    static func response(_ object: SortedJSONObject, status: HTTPStatus = .ok) -> HTTPResponse {
        response(json: inert(object.json), status: status)
    }

    private static func response(json: [UInt8], status: HTTPStatus) -> HTTPResponse {
        var response = HTTPResponse.json(data: json, status: status)
        response.fields["Content-Type"] = "application/json; charset=utf-8"
        return response
    }

    /// Escapes `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`: they can only occur inside JSON
    /// strings, so the value is unchanged, and no JSON body can ever be read as markup.
    static func inert(_ data: some Collection<UInt8>) -> [UInt8] {
        let markup: (UInt8) -> Bool = { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "&") }
        if let asIs = data.withContiguousStorageIfAvailable({ $0.contains(where: markup) ? nil : Array($0) }) ?? nil { return asIs }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count)
        for byte in data {
            switch byte {
            case UInt8(ascii: "<"): bytes += Array(#"\u003c"#.utf8)
            case UInt8(ascii: ">"): bytes += Array(#"\u003e"#.utf8)
            case UInt8(ascii: "&"): bytes += Array(#"\u0026"#.utf8)
            default: bytes.append(byte)
            }
        }
        return bytes
    }

    /// Decodes a request body, or throws a `RequestError` (400) that says what is wrong: no body, a body
    /// that is not a JSON object (`null`, `[]`, `1e999`), a field not in `fields` (when given), a missing
    /// field or one of the wrong type.
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest, fields: Set<String>? = nil) throws -> T {
        guard !request.body.isEmpty else { throw RequestError(message: "The request needs a JSON message body.") }
        let data = Data(request.body)
        // Without a field list, a body that decodes is an object with what `T` needs (a keyed type
        // decodes from nothing else), so the common case is parsed once; the checks below run only to
        // name what is wrong with one that does not.
        if fields == nil, let value = try? decoder.decode(T.self, from: data) { return value }
        let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        // Another JSON value (RFC 8259 §3: `null`, `[]`, `"en"`, a number even out of range such as `1e999`).
        let first = request.body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } ?? 0
        let startsAsOtherValue =
            first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") || first == UInt8(ascii: "-")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        if parsed.map({ !($0 is [String: Any]) }) ?? startsAsOtherValue {
            throw RequestError(message: "The message body must be a JSON object.")
        }
        if let fields, let object = parsed as? [String: Any], let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw RequestError(message: "Unknown field \"\(Catalog.shownInput(unknown))\".")
        }
        do {
            return try decoder.decode(T.self, from: data)
        } catch let error as RequestError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw RequestError(message: "Missing field \"\(key.stringValue)\".")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            throw RequestError(message: "Field \"\(path(context))\" has the wrong type.")
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            throw RequestError(message: "Field \"\(path(context))\" has a value that is not allowed.")
        } catch {
            throw RequestError(message: "The message body is not valid JSON.")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
