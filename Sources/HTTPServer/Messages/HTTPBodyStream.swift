/// A response body sent as it is produced instead of all at once: server-sent events
/// (WHATWG HTML, "Server-sent events", https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// The server writes the head without `Content-Length` and with `Connection: close`, then every
/// chunk as it arrives; the body ends when the server closes the connection (RFC 9112 §6.3, rule 8).
/// While a stream is open the idle timeout does not apply; after ``heartbeatInterval`` without a
/// chunk the server writes ``heartbeat`` so that proxies and the client see the connection alive.
/// A client that does not read holds at most ``maxBacklog`` bytes not yet written (what is left of the
/// chunk being written and the chunks waiting behind it; one chunk alone is always written); beyond
/// that, or once the write timeout passes without progress, its connection is reset. Chunks are kept
/// as the producer yields them, so a producer that hands one buffer to many streams pays for it once.
/// Open streams have a budget of their own (``HTTPServerConfiguration/maxStreams``).
/// The stream ends when ``chunks`` finishes, the client closes, or the server shuts down (the
/// iteration is then cancelled, which ends the producer's `AsyncStream` and calls its `onTermination`).
public struct HTTPBodyStream: Sendable {
    /// The body's chunks, written in order.
    public var chunks: AsyncStream<[UInt8]>
    /// Bytes written after ``heartbeatInterval`` without a chunk.
    public var heartbeat: [UInt8]
    /// How long the stream may be silent before ``heartbeat`` is written.
    public var heartbeatInterval: Duration
    /// Most bytes held for a client that does not read, once a chunk waits behind the one being written.
    public var maxBacklog: Int

    /// Creates a stream.
    /// - Parameters:
    ///   - chunks: the body's chunks.
    ///   - heartbeat: bytes to write when the stream is silent (default an SSE comment, `: keep-alive`).
    ///   - heartbeatInterval: silence before a heartbeat (default 15 s).
    ///   - maxBacklog: unwritten chunk bytes allowed per connection (default 256 KiB).
    public init(
        chunks: AsyncStream<[UInt8]>, heartbeat: [UInt8] = Array(": keep-alive\n\n".utf8),
        heartbeatInterval: Duration = .seconds(15), maxBacklog: Int = 256 * 1024
    ) {
        self.chunks = chunks
        self.heartbeat = heartbeat
        self.heartbeatInterval = heartbeatInterval
        self.maxBacklog = maxBacklog
    }
}

extension HTTPResponse {
    /// A `text/event-stream` response (`Cache-Control: no-store`) whose body is `stream`.
    /// - Parameter stream: the events, already in the event-stream format.
    /// - Returns: the response.
    public static func eventStream(_ stream: HTTPBodyStream) -> HTTPResponse {
        var response = HTTPResponse(fields: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store"])
        response.stream = stream
        return response
    }

    /// One server-sent event: `event:` then one `data:` line per line of `data` and an empty line.
    /// - Parameters:
    ///   - name: the event type (no CR or LF).
    ///   - data: the payload.
    /// - Returns: the event's bytes.
    public static func serverSentEvent(_ name: String, data: String) -> [UInt8] {
        var text = "event: \(name)\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line.filter { $0 != "\r" })\n"
        }
        return Array((text + "\n").utf8)
    }
}
