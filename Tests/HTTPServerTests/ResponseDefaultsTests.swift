import Testing

@testable import HTTPServer

/// The server's default response fields (`ResponseDefaults`): the serializer adds each to every answer that has no field
/// of its name, the same for a response and for the prepared answer made from it (`ResponseSerializer`,
/// `PreparedResponse`), and a body that names no type gets the default `Content-Type` (RFC 9110 §8.3).
@Suite("Response defaults")
struct ResponseDefaultsTests {
    static let defaults = ResponseDefaults(
        ["Cache-Control": "no-store", "X-Frame-Options": "DENY"], untypedBodyContentType: "text/plain; charset=utf-8")
    static let date = Array("Date: x\r\n".utf8)

    static func wire(_ response: HTTPResponse, defaults: ResponseDefaults = defaults) -> String {
        String(decoding: ResponseSerializer.serialize(response, isHead: false, keepAlive: true, http10: false, dateLine: date, defaults: defaults).bytes, as: UTF8.self)
    }

    static func wire(_ prepared: PreparedResponse, defaults: ResponseDefaults = defaults) -> String {
        String(decoding: ResponseSerializer.serialize(prepared, isHead: false, keepAlive: true, http10: false, dateLine: date, defaults: defaults).bytes, as: UTF8.self)
    }

    @Test func eachDefaultIsAddedOnlyWhereTheAnswerHasNoneOfItsName() throws {
        let own = HTTPResponse(status: .ok, fields: ["cache-control": "public, max-age=60", "Content-Type": "text/css"], body: Array("a{}".utf8))
        let text = Self.wire(own)
        #expect(text.contains("\r\ncache-control: public, max-age=60\r\n") && !text.contains("no-store"), "its own cache policy stays")
        #expect(text.contains("\r\nX-Frame-Options: DENY\r\n"))
        #expect(!text.contains("text/plain"), "a typed body keeps its type")
        let prepared = try #require(PreparedResponse(own))
        #expect(Self.wire(prepared) == text, "a prepared answer gets the same fields")
        #expect(Self.wire(prepared) == text, "and again, from what it remembers")
        let other = ResponseDefaults(["X-Other": "1"])
        #expect(Self.wire(prepared, defaults: other).contains("\r\nX-Other: 1\r\n"), "other defaults are compared anew")
        #expect(!Self.wire(prepared, defaults: other).contains("X-Frame-Options"))
    }

    @Test func anUntypedBodyIsPlainTextAndAnAnswerWithoutABodyGetsNoType() throws {
        let untyped = Self.wire(HTTPResponse(status: .badRequest, body: Array("no".utf8)))
        #expect(untyped.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n") && untyped.contains("\r\nCache-Control: no-store\r\n"))
        let empty = Self.wire(HTTPResponse(status: .noContent))
        #expect(!empty.contains("Content-Type") && empty.contains("\r\nX-Frame-Options: DENY\r\n"))
        #expect(Self.wire(try #require(PreparedResponse(HTTPResponse(status: .noContent)))) == empty)
    }

    @Test func withNoDefaultsAnAnswerIsSentWithItsOwnFieldsOnly() {
        let response = HTTPResponse(status: .ok, fields: ["ETag": "\"1\""], body: Array("x".utf8))
        #expect(Self.wire(response, defaults: .none) == "HTTP/1.1 200 OK\r\nDate: x\r\nETag: \"1\"\r\nContent-Length: 1\r\n\r\nx")
    }
}
