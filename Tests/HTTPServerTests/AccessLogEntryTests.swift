import Testing

@testable import HTTPServer

@Suite("Access log line")
struct AccessLogEntryTests {
    @Test("A target's quotes, backslashes and control characters are escaped; a plain target is written as is")
    func targetIsEscapedForTheLogLine() {
        func line(_ target: String) -> String {
            AccessLogEntry(
                method: "GET", target: target, status: 200, bytes: 5, durationMilliseconds: 1.234,
                requestID: "1-2", remoteAddress: "127.0.0.1:5000"
            ).description
        }
        #expect(line("/installs?q=ab") == #"method=GET target="/installs?q=ab" status=200 bytes=5 duration_ms=1.23 request_id=1-2 remote=127.0.0.1:5000"#)
        #expect(line("/a\"b\\c\u{1B}[2J\u{7F}é").contains(#"target="/a\"b\\c\x1b[2J\x7fé""#))
    }
}
