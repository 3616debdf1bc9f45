import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A response goes out as the parts it is kept in (`sendmsg(2)` gathers them): a stored head's status line, `Date`
/// line, field lines and end, and a stored page's segments with a session's token between them.
@Suite("Gathered output")
struct GatheredOutputTests {
    /// A socket pair whose writing end is non-blocking with the smallest send buffer, so writes come back short.
    static func socketPair() throws -> (writer: Int32, reader: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        var size: Int32 = 1
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// Sends `output` as the event loop does (``EventLoop/sendOutput(_:_:from:)`` from the offset reached), reading the
    /// other end whenever a write stops short; returns what arrived and how many writes it took.
    static func sendAll(_ output: ResponseSerializer.Output) throws -> (bytes: [UInt8], writes: Int) {
        let (writer, reader) = try socketPair()
        defer {
            close(writer)
            close(reader)
        }
        var received: [UInt8] = []
        var offset = 0, writes = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while offset < output.count {
            let n = EventLoop.sendOutput(writer, output, from: offset)
            if n > 0 {
                offset += n
                writes += 1
                continue
            }
            try #require(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), "sendmsg failed: errno \(errno)")
            let got = buffer.withUnsafeMutableBytes { recv(reader, $0.baseAddress, $0.count, 0) }
            try #require(got > 0)
            received += buffer[0..<got]
        }
        _ = shutdown(writer, Int32(SHUT_WR))
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(reader, $0.baseAddress, $0.count, 0) }
            if got <= 0 { break }
            received += buffer[0..<got]
        }
        return (received, writes)
    }

    @Test func aStoredPageWithItsTokenSplicedInArrivesWholeThroughShortWrites() throws {
        let segments = (0..<40).map { index in [UInt8](repeating: UInt8(ascii: "a") + UInt8(index % 26), count: 700 + index * 37) }
        let token = Array("0123456789abcdef0123456789abcdef".utf8)
        let joined = Array(segments.joined(separator: token))
        let prepared = try #require(PreparedResponse(HTTPResponse(status: .ok, fields: ["Content-Type": "text/html"], body: joined)))
        let spliced = try #require(prepared.splicing(segments, with: token))
        let dateLine = Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)
        let output = ResponseSerializer.serialize(spliced, isHead: false, keepAlive: true, http10: false, dateLine: dateLine)
        #expect(output.parts.count > EventLoop.maxVectors, "more parts than one sendmsg gathers")
        let whole = ResponseSerializer.serialize(
            HTTPResponse(status: .ok, fields: ["Content-Type": "text/html"], body: joined), isHead: false, keepAlive: true, http10: false,
            dateLine: dateLine)
        let sent = try Self.sendAll(output)
        let arrivedWhole = sent.bytes == whole.bytes  // compared outside #expect, which would print 58 KB twice
        #expect(arrivedWhole, "the same bytes as the response serialized whole: \(sent.bytes.count) of \(whole.bytes.count)")
        #expect(sent.writes > 2, "the writes came back short (the test exercised resuming inside a part)")
    }

    @Test func aSpliceWhoseLengthDiffersFromContentLengthIsRefused() throws {
        let prepared = try #require(PreparedResponse(HTTPResponse(status: .ok, body: Array("ab--cd".utf8))))
        #expect(prepared.splicing([Array("ab".utf8), Array("cd".utf8)], with: Array("--".utf8))?.body == Array("ab--cd".utf8))
        #expect(prepared.splicing([Array("ab".utf8), Array("cd".utf8)], with: Array("---".utf8)) == nil)
    }

    @Test func aPreparedHeadIsSentAsItsStoredPartsAndTheConnectionEnd() throws {
        let prepared = try #require(PreparedResponse(HTTPResponse(status: .ok, fields: ["ETag": "\"1\""], body: Array("body".utf8))))
        let dateLine = Array("Date: x\r\n".utf8)
        let closing = ResponseSerializer.serialize(prepared, isHead: false, keepAlive: false, http10: false, dateLine: dateLine)
        #expect(closing.parts.count == 5)
        #expect(closing.parts[1] == dateLine)
        #expect(String(decoding: closing.bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nDate: x\r\nETag: \"1\"\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody")
        let head = ResponseSerializer.serialize(prepared, isHead: true, keepAlive: true, http10: true, dateLine: dateLine)
        #expect(String(decoding: head.bytes, as: UTF8.self).hasSuffix("Content-Length: 4\r\nConnection: keep-alive\r\n\r\n"))
        #expect(head.bodyBytes == 0)
    }
}
