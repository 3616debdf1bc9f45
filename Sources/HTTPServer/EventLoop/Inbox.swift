import Synchronization

#if canImport(Glibc)
import Glibc
#endif

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
    /// The queued messages, and whether ``close()`` has run.
    private let state = Mutex<(messages: [Message], isClosed: Bool)>(([], false))

    init() {
        eventFD = SystemCalls.eventFD()
    }

    /// Queues a message and wakes the loop if it might be sleeping; after ``close()`` it is dropped.
    ///
    /// The wake-up is written under the lock that ``close()`` takes, so a responder that finishes after
    /// the loop stopped never writes to the closed descriptor's number, which the kernel may already
    /// have handed to another socket of this process (an 8-byte counter once arrived in front of an
    /// HTTP answer that way).
    func post(_ message: Message) {
        state.withLock { state in
            guard !state.isClosed else { return }
            let wasEmpty = state.messages.isEmpty
            state.messages.append(message)
            if wasEmpty {
                var one: UInt64 = 1
                _ = write(eventFD, &one, 8)
            }
        }
    }

    /// Takes every queued message (called by the loop after the eventfd fired).
    func drain() -> [Message] {
        var counter: UInt64 = 0
        _ = read(eventFD, &counter, 8)
        return state.withLock { state in
            let taken = state.messages
            state.messages.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// Closes the eventfd once the loop has stopped; later posts are dropped.
    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            state.messages.removeAll()
            _ = Glibc.close(eventFD)
        }
    }
}
