import Testing

@testable import HTTPServer

/// Named attacks: each must be refused (never resynchronised into a second request).
@Suite("Parser: attacks")
struct ParserAttackTests {
    @Test func refusesRequestSmugglingViaContentLengthAndTransferEncoding() {
        let raw = "POST /x HTTP/1.1\r\n\(host)Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nX"
        #expect(parseBothWays(raw).error?.status == .badRequest)
        let reversed = "POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"
        #expect(parseBothWays(reversed).error?.status == .badRequest)
    }

    @Test func refusesRequestSmugglingViaBareLF() {
        let raw = "POST /x HTTP/1.1\r\n\(host)x:x\nTransfer-Encoding: chunked\r\n\r\n1\r\nA\r\n0\r\n\r\n"
        #expect(parseBothWays(raw).error?.status == .badRequest)
    }

    @Test func refusesRequestSmugglingViaTransferEncodingInHTTP10() {
        let raw = "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello"
        #expect(parseBothWays(raw).error?.status == .badRequest)
    }

    @Test func refusesRequestSmugglingViaObsFold() {
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)X-A: a\r\n Transfer-Encoding: chunked\r\n\r\n").error?.status == .badRequest)
    }

    @Test func consumesDeclaredBodyInsteadOfParsingItAsARequest() {
        let raw = "GET /app.css HTTP/1.1\r\n\(host)Content-Length: 39\r\n\r\nGET /admin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let outcome = parseBothWays(raw)
        #expect(outcome.requests.count == 1)
        #expect(outcome.error == nil)
    }

    @Test(arguments: [
        "/%2e%2e/%2e%2e/etc/passwd", "/../../etc/passwd", "/a/./b", "/..%2f..%2fetc%2fpasswd", "/a%5cb",
        "/%c0%ae%c0%ae/etc/passwd", "/path%00.html", "/a%zz", "/a%2", "/%ff",
    ])
    func refusesPathTraversalAndBadEncoding(_ target: String) {
        #expect(parseBothWays("GET \(target) HTTP/1.1\r\n\(host)\r\n").error?.status == .badRequest)
    }

    /// RFC 3986 §3.3: "." and ".." are dot segments wherever they stand, first, last or between slashes.
    @Test(arguments: ["/.", "/..", "/./", "/../", "/a/.", "/a/..", "/a/../b", "/a/./b/", "/a//../b"])
    func refusesEveryDotSegmentWithoutEscapes(_ target: String) {
        #expect(parseBothWays("GET \(target) HTTP/1.1\r\n\(host)\r\n").error?.status == .badRequest)
    }

    /// A dot inside a segment (a file's extension, three dots, a leading dot) is no dot segment: the path is kept as sent.
    @Test(arguments: ["/app.css", "/...", "/a/.../b", "/.well-known/x", "/a./b", "/a/b..", "/..a", "/a/.b/", "/"])
    func keepsDotsInsideASegmentAsSent(_ target: String) {
        let outcome = parseBothWays("GET \(target) HTTP/1.1\r\n\(host)\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests.first?.request.path == target)
    }

    @Test func decodesPathExactlyOnce() {
        let outcome = parseBothWays("GET /a%2520b/caf%C3%A9 HTTP/1.1\r\n\(host)\r\n")
        #expect(outcome.requests.first?.request.path == "/a%20b/café")
    }

    @Test func refusesSlowlorisByBoundingUnterminatedLines() {
        let endless = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 17000)
        #expect(parseBothWays(endless).error == .fieldsTooLarge)
        #expect(parseBothWays("GET /" + String(repeating: "a", count: 9000)).error == .uriTooLong)
    }

    @Test func staysFailedAfterAnError() {
        var parser = HTTPRequestParser()
        #expect(throws: HTTPParseError.self) { try parser.parse(Array("BAD\r\n".utf8)) }
        #expect(throws: HTTPParseError.self) { try parser.parse(Array("GET / HTTP/1.1\r\n\(host)\r\n".utf8)) }
    }
}
