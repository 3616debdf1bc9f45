import Testing

@testable import HTTPServer

@Suite("Parser: bodies (RFC 9112 §6, §7)")
struct ParserBodyTests {
    @Test func readsContentLengthBody() {
        let outcome = parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 5\r\n\r\nhello")
        #expect(outcome.requests.first?.request.body == Array("hello".utf8))
    }

    @Test func acceptsLeadingZerosAndRepeatedEqualLengths() {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 003\r\n\r\nabc").requests.first?.request.body.count == 3)
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 3, 3\r\n\r\nabc").requests.count == 1)
    }

    @Test(arguments: ["+5", "-1", "0x5", "4 2", "", "5, 6"])
    func rejectsInvalidContentLength(_ value: String) {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: \(value)\r\n\r\nhello").error?.status == .badRequest)
    }

    @Test func rejectsConflictingContentLengthFields() {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 1\r\nContent-Length: 0\r\n\r\nZ").error?.status == .badRequest)
    }

    @Test func guardsContentLengthOverflowAndLimit() {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 100000000000000000000\r\n\r\n").error == .contentTooLarge)
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 10737418240\r\n\r\n").error == .contentTooLarge)
    }

    @Test func decodesChunkedBodyWithExtensionsAndTrailers() {
        let raw = "POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: cHuNkEd\r\n\r\n5;name=value;other\r\nhello\r\nA\r\n0123456789\r\n000\r\nX-Sum: abc\r\n\r\n"
        let outcome = parseBothWays(raw)
        #expect(outcome.error == nil)
        #expect(outcome.requests.first?.request.body == Array("hello0123456789".utf8))
        #expect(outcome.requests.first?.request.fields["X-Sum"] == nil)
    }

    @Test(arguments: ["0x5\r\nhello\r\n0\r\n\r\n", "5\r\nhelloXX\r\n0\r\n\r\n", "\r\n\r\n", "5 junk\r\nhello\r\n0\r\n\r\n"])
    func rejectsMalformedChunks(_ body: String) {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n\(body)").error?.status == .badRequest)
    }

    @Test func boundsChunkSizeAndExtensions() {
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc").error == .contentTooLarge)
        let ext = "1;" + String(repeating: "e", count: 5000) + "\r\nX\r\n0\r\n\r\n"
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n\(ext)").error?.status == .badRequest)
        var limits = HTTPLimits()
        limits.body = 4
        #expect(parseBothWays("POST /x HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\nabc\r\n0\r\n\r\n", limits: limits).error == .contentTooLarge)
    }

    @Test func transferCodingRules() {
        let base = "POST /x HTTP/1.1\r\n\(host)"
        #expect(parseBothWays(base + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n").error?.status.code == 501)
        #expect(parseBothWays(base + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n").error?.status.code == 501)
        #expect(parseBothWays(base + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n").error?.status.code == 400)
        #expect(parseBothWays(base + "Transfer-Encoding:\r\n\r\n").error?.status.code == 400)
    }

    @Test func signalsExpectContinueOnceBeforeBody() {
        let outcome = parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 5\r\nExpect: 100-continue\r\n\r\nhello")
        #expect(outcome.continues == 1)
        #expect(outcome.requests.count == 1)
        let oversized = parseBothWays("POST /x HTTP/1.1\r\n\(host)Content-Length: 10737418240\r\nExpect: 100-continue\r\n\r\n")
        #expect(oversized.continues == 0)
        #expect(oversized.error == .contentTooLarge)
    }

    @Test func parsesPipelinedRequestsInOrder() {
        let raw = "POST /a HTTP/1.1\r\n\(host)Content-Length: 3\r\n\r\nAAAPOST /b HTTP/1.1\r\n\(host)Content-Length: 4\r\n\r\nBBBBGET /c HTTP/1.1\r\n\(host)\r\n"
        let outcome = parseBothWays(raw)
        #expect(outcome.requests.map(\.request.path) == ["/a", "/b", "/c"])
        #expect(outcome.requests.map(\.request.body) == [Array("AAA".utf8), Array("BBBB".utf8), []])
    }

    @Test func reportsValidRequestBeforeLaterError() {
        let outcome = parseBothWays("GET / HTTP/1.1\r\n\(host)\r\nInvalid\r\n\r\n")
        #expect(outcome.requests.count == 1)
        #expect(outcome.error?.status == .badRequest)
    }

    @Test func phaseTracksHeadAndBody() throws {
        var parser = HTTPRequestParser()
        #expect(parser.phase == .idle)
        _ = try parser.parse(Array("POST / HTTP/1.1\r\n".utf8))
        #expect(parser.phase == .head)
        _ = try parser.parse(Array("\(host)Content-Length: 2\r\n\r\n".utf8))
        #expect(parser.phase == .body)
        let event = try parser.parse(Array("ok".utf8))
        guard case .request = event else { Issue.record("expected request"); return }
        #expect(parser.phase == .idle)
    }
}
