import Testing

@testable import HTTPServer

@Suite("Fields, query, serializer")
struct ComponentTests {
    @Test func fieldsAreCaseInsensitiveAndOrdered() {
        var fields = HTTPFields()
        fields.append(name: "Set-Cookie", value: "a")
        fields.append(name: "set-cookie", value: "b")
        #expect(fields["SET-COOKIE"] == "a")
        #expect(fields.values(for: "Set-Cookie") == ["a", "b"])
        fields["set-cookie"] = "c"
        #expect(fields.values(for: "Set-Cookie") == ["c"])
        fields.remove("SET-cookie")
        #expect(fields.isEmpty)
    }

    @Test func decodesQueryItems() {
        let request = HTTPRequest(method: "GET", target: "/?q=a%20b&r=c+d&s=%26&t=x?y&empty")
        #expect(request.queryValue("q") == "a b")
        #expect(request.queryValue("r") == "c d")
        #expect(request.queryValue("s") == "&")
        #expect(request.queryValue("t") == "x?y")
        #expect(request.queryValue("empty") == "")
        #expect(request.queryValue("missing") == nil)
    }

    @Test("The first ? ends the path and starts the query (RFC 3986 §3.4), whatever follows it")
    func queryStartsAtTheFirstQuestionMark() {
        for (target, path, query) in [
            ("/a?b?c", "/a", "b?c" as String?), ("/a", "/a", nil), ("/?", "/", ""), ("?x", "", "x"),
            ("/caf\u{E9}?q=\u{301}", "/caf\u{E9}", "q=\u{301}"),
        ] {
            let request = HTTPRequest(method: "GET", target: target)
            #expect(request.path == path && request.query == query, "\(target)")
        }
        // Given parts are kept as given.
        #expect(HTTPRequest(method: "GET", target: "/x?y", path: "/p", query: "q").path == "/p")
    }

    @Test func serializerAddsFramingAndStripsHeadBody() {
        let response = HTTPResponse.text("hello")
        let head = ResponseSerializer.serialize(response, isHead: true, keepAlive: false, http10: false, dateLine: Array("Date: x\r\n".utf8))
        let text = String(decoding: head.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nDate: x\r\n"))
        #expect(text.contains("Content-Length: 5\r\n"))
        #expect(text.contains("Connection: close\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
        #expect(head.bodyBytes == 0)
    }

    @Test func serializerRefusesHeaderInjection() {
        var response = HTTPResponse(status: .ok)
        response.fields["X-Evil"] = "a\r\nSet-Cookie: x"
        let bytes = ResponseSerializer.serialize(response, isHead: false, keepAlive: true, http10: false, dateLine: []).bytes
        #expect(!String(decoding: bytes, as: UTF8.self).contains("Set-Cookie"))
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
