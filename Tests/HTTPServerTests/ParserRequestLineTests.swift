import Testing

@testable import HTTPServer

@Suite("Parser: request line (RFC 9112 §3)")
struct ParserRequestLineTests {
    @Test func parsesSimpleGet() {
        let outcome = parseBothWays("GET /installs?x=1 HTTP/1.1\r\n\(host)\r\n")
        #expect(outcome.error == nil)
        let request = outcome.requests.first?.request
        #expect(request?.method == "GET")
        #expect(request?.target == "/installs?x=1")
        #expect(request?.path == "/installs")
        #expect(request?.query == "x=1")
        #expect(request?.version == .http1_1)
        #expect(outcome.requests.first?.keepAlive == true)
    }

    @Test func acceptsAbsoluteForm() {
        let outcome = parseBothWays("GET http://127.0.0.1:8080/a?b HTTP/1.1\r\n\(host)\r\n", allowedHosts: ["127.0.0.1:8080"])
        #expect(outcome.requests.first?.request.path == "/a")
        #expect(outcome.requests.first?.request.query == "b")
    }

    @Test func ignoresLeadingEmptyLine() {
        #expect(parseBothWays("\r\nGET / HTTP/1.1\r\n\(host)\r\n").requests.count == 1)
    }

    @Test(arguments: [
        "GET  / HTTP/1.1\r\n", "GET\t/\tHTTP/1.1\r\n", "GET /\r\n", "GET HTTP/1.1\r\n", "GET / http/1.1\r\n",
        "GET / HTTP/1.01\r\n", "GET / HTTP/1\r\n", "GET /a#frag HTTP/1.1\r\n", "GET /foo bar/ HTTP/1.1\r\n",
        "GET * HTTP/1.1\r\n", "G@T / HTTP/1.1\r\n", "GET /x\u{7f} HTTP/1.1\r\n",
    ])
    func rejectsMalformedRequestLine(_ line: String) {
        let outcome = parseBothWays(line + host + "\r\n")
        #expect(outcome.error?.status == .badRequest)
        #expect(outcome.requests.isEmpty)
    }

    @Test func rejectsUnsupportedMajorVersionWith505() {
        #expect(parseBothWays("GET / HTTP/2.0\r\n\(host)\r\n").error == .versionNotSupported)
        #expect(parseBothWays("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").error?.status.code == 505)
    }

    @Test func refusesOverlongRequestLineWith414() {
        let outcome = parseBothWays("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\(host)\r\n")
        #expect(outcome.error == .uriTooLong)
        let fits = parseBothWays("GET /" + String(repeating: "a", count: 7900) + " HTTP/1.1\r\n\(host)\r\n")
        #expect(fits.requests.count == 1)
    }

    @Test func acceptsOptionsAsterisk() {
        #expect(parseBothWays("OPTIONS * HTTP/1.1\r\n\(host)\r\n").requests.first?.request.path == "*")
    }

    @Test func methodsAreCaseSensitiveTokens() {
        #expect(parseBothWays("get / HTTP/1.1\r\n\(host)\r\n").requests.first?.request.method == "get")
    }
}
