import Testing

@testable import HTTPServer

@Suite("Parser: fields and Host (RFC 9112 §5, §3.2)")
struct ParserFieldTests {
    @Test func keepsFieldOrderAndTrimsWhitespace() {
        let outcome = parseBothWays("GET / HTTP/1.1\r\n\(host)X-A:  one \r\nx-a: two\r\n\r\n")
        let fields = outcome.requests.first?.request.fields
        #expect(fields?.values(for: "X-A") == ["one", "two"])
        #expect(fields?["host"] == "127.0.0.1:8080")
    }

    @Test func allowsObsTextInValues() {
        var raw = Array("GET / HTTP/1.1\r\n\(host)X-Name: caf".utf8)
        raw += [0xE9] + Array("\r\n\r\n".utf8)
        #expect(parseBothWays(raw).requests.count == 1)
    }

    @Test(arguments: [
        "Content-Length : 5\r\n", "X-A: a\r\n b\r\n", "Foo: 1\rBar: 2\r\n", "X: a\u{0}b\r\n", "Fo@: x\r\n",
        "foo bar: x\r\n", ": empty\r\n", "Content-Length 10\r\n", "x:x\nTransfer-Encoding: chunked\r\n",
    ])
    func rejectsMalformedFieldLines(_ line: String) {
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)\(line)\r\n").error?.status == .badRequest)
    }

    @Test func rejectsWhitespaceAfterStartLine() {
        #expect(parseBothWays("GET / HTTP/1.1\r\n Host: a\r\n\r\n").error?.status == .badRequest)
    }

    @Test func refusesOversizedFieldSectionWith431() {
        let big = "X-Big: " + String(repeating: "a", count: 20000) + "\r\n"
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)\(big)\r\n").error == .fieldsTooLarge)
        let many = (0..<150).map { "X-H-\($0): v\r\n" }.joined()
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)\(many)\r\n").error == .fieldsTooLarge)
    }

    @Test func requiresExactlyOneHostIn11() {
        #expect(parseBothWays("GET / HTTP/1.1\r\n\r\n").error?.status == .badRequest)
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)\(host)\r\n").error?.status == .badRequest)
        #expect(parseBothWays("GET / HTTP/1.0\r\n\r\n").requests.count == 1)
    }

    @Test func refusesHostOutsideAllowListWith421() {
        let allowed = ["127.0.0.1:8080", "localhost:8080"]
        #expect(parseBothWays("GET / HTTP/1.1\r\nHost: attacker.example:8080\r\n\r\n", allowedHosts: allowed).error?.status.code == 421)
        #expect(parseBothWays("GET http://attacker.example/ HTTP/1.1\r\n\(host)\r\n", allowedHosts: allowed).error?.status.code == 421)
        #expect(parseBothWays("GET / HTTP/1.1\r\nHost: LOCALHOST:8080\r\n\r\n", allowedHosts: allowed).requests.count == 1)
    }

    @Test func refusesHostWithUserinfo() {
        #expect(parseBothWays("GET / HTTP/1.1\r\nHost: u@127.0.0.1:8080\r\n\r\n").error?.status == .badRequest)
    }

    @Test func connectionManagement() {
        #expect(parseBothWays("GET / HTTP/1.1\r\n\(host)Connection: close\r\n\r\n").requests.first?.keepAlive == false)
        #expect(parseBothWays("GET / HTTP/1.0\r\n\r\n").requests.first?.keepAlive == false)
        #expect(parseBothWays("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").requests.first?.keepAlive == true)
    }
}
