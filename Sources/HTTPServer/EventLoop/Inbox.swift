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
    /// Whether ``close()`` has closed `eventFD`; held while the wake-up is written, apart from `state`, so the loop
    /// taking its messages never waits for a responder's `write(2)`.
    private let descriptorClosed = Mutex<Bool>(false)

    init() {
        eventFD = SystemCalls.eventFD()
    }

    /// Queues a message and wakes the loop if it might be sleeping; after ``close()`` it is dropped.
    ///
    /// The responder that finds the queue empty writes the wake-up, after it let go of the queue: every message
    /// queued behind it is taken with its own, so none waits without a wake-up on its way, and one written after
    /// the loop already took the message only wakes it to find nothing (eventfd(2)). The wake-up is written under
    /// the lock that ``close()`` takes to close the descriptor, so a responder that finishes after the loop stopped
    /// never writes to the closed descriptor's number, which the kernel may already have handed to another socket
    /// of this process (an 8-byte counter once arrived in front of an HTTP answer that way).
    ///
    /// `fromLoop`: posted on the loop's own thread (a responder run by ``EventLoopExecutor``), which takes its messages
    /// before it polls again (``takeMessages()``), so nothing needs to wake it.
    func post(_ message: Message, fromLoop: Bool = false) {
        let wakesLoop = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            let wasEmpty = state.messages.isEmpty
            state.messages.append(message)
            return wasEmpty
        }
        guard wakesLoop && !fromLoop else { return }
        wake()
    }

    /// Wakes the loop (one eventfd write), unless ``close()`` closed the descriptor.
    func wake() {
        descriptorClosed.withLock { closed in
            guard !closed else { return }
            var one: UInt64 = 1
            _ = write(eventFD, &one, 8)
        }
    }

    /// Takes every queued message (called by the loop after the eventfd fired).
    func drain() -> [Message] {
        var counter: UInt64 = 0
        _ = read(eventFD, &counter, 8)
        return takeMessages()
    }

    /// Takes every queued message without reading the eventfd (the loop, after running its own jobs).
    func takeMessages() -> [Message] {
        state.withLock { state in
            guard !state.messages.isEmpty else { return [] }
            let taken = state.messages
            state.messages.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// Closes the eventfd once the loop has stopped; later posts are dropped.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.messages.removeAll()
        }
        descriptorClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = Glibc.close(eventFD)
        }
    }
}
