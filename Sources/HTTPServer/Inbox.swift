#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Messages from responder tasks (any thread) to the event loop, plus an eventfd to wake it.
final class Inbox: Sendable {
    enum Message: Sendable {
        /// A responder's answer; `pipelined` if the request counts toward ``EventLoop/pipelinedLimit``.
        case response(fd: Int32, serial: UInt64, response: HTTPResponse, pipelined: Bool)
        case shutdown(deadline: UInt64)
        /// The next chunk of a connection's ``HTTPBodyStream``, or `nil` when it ended.
        case streamChunk(fd: Int32, serial: UInt64, bytes: [UInt8]?)
        /// Asks the loop for a ``ConnectionStatistics`` snapshot, delivered on its thread.
        case statistics(@Sendable (ConnectionStatistics) -> Void)
    }

    /// The eventfd registered with the loop's epoll set.
    let eventFD: Int32
    private let queue = Mutex<[Message]>([])

    init() {
        eventFD = SystemCalls.eventFD()
    }

    /// Queues a message and wakes the loop if it might be sleeping.
    func post(_ message: Message) {
        let wasEmpty = queue.withLock { q in
            let empty = q.isEmpty
            q.append(message)
            return empty
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(eventFD, &one, 8)
        }
    }

    /// Takes every queued message (called by the loop after the eventfd fired).
    func drain() -> [Message] {
        var counter: UInt64 = 0
        _ = read(eventFD, &counter, 8)
        return queue.withLock { q in
            let taken = q
            q.removeAll(keepingCapacity: true)
            return taken
        }
    }
}
