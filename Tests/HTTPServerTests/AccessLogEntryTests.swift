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

    @Test("The duration is written as Swift writes the Double rounded to hundredths of a millisecond")
    func durationIsWrittenAsTheRoundedDouble() {
        var generator = SystemRandomNumberGenerator()
        let samples = [0, 0.004, 0.005, 0.05, 0.1, 0.999, 1, 1.005, 9.995, 12.5, 100, 123_456.789, 1e9 + 0.5]
            + (0..<20_000).map { _ in Double.random(in: 0..<5_000, using: &generator) }
        for milliseconds in samples {
            let line = AccessLogEntry(
                method: "GET", target: "/", status: 200, bytes: 0, durationMilliseconds: milliseconds, requestID: "1-1",
                remoteAddress: "-"
            ).description
            let expected = "duration_ms=\((milliseconds * 100).rounded() / 100) "
            #expect(line.contains(expected), "\(milliseconds): \(line)")
        }
    }

    @Test func statusAndByteCountsAreWrittenInDecimal() {
        for bytes in [0, 7, 10, 99, 100, 65_535, 1 << 40, Int.max] {
            let entry = AccessLogEntry(
                method: "HEAD", target: "/", status: 304, bytes: bytes, durationMilliseconds: 0, requestID: "a-b", remoteAddress: "[::1]:9")
            #expect(entry.description == "method=HEAD target=\"/\" status=304 bytes=\(bytes) duration_ms=0.0 request_id=a-b remote=[::1]:9")
        }
    }
}

@Suite("Request IDs")
struct RequestIDTests {
    @Test func aRequestIDIsItsConnectionsSerialAndTheRequestCountInHex() {
        var generator = SystemRandomNumberGenerator()
        let values: [UInt64] = [0, 1, 9, 10, 15, 16, 255, 256, 0xdead_beef, UInt64.max] + (0..<2_000).map { _ in generator.next() >> (generator.next() % 64) }
        for (connection, request) in zip(values, values.reversed()) {
            #expect(EventLoop.requestID(connection: connection, request: request) == String(connection, radix: 16) + "-" + String(request, radix: 16))
        }
    }
}
