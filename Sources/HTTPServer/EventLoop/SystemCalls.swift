#if os(Linux)
import CHTTPSystem
#if canImport(Glibc)
import Glibc
#endif

/// The Linux calls the event loop is built on, which the Swift `Glibc` module does not import:
/// epoll (https://man7.org/linux/man-pages/man7/epoll.7.html), eventfd(2) and accept4(2), called
/// through the `CHTTPSystem` C module with the C library's own declarations and constants.
enum SystemCalls {
    static let EPOLLIN = CHTTPSystem.EPOLLIN.rawValue
    static let EPOLLOUT = CHTTPSystem.EPOLLOUT.rawValue
    static let EPOLLERR = CHTTPSystem.EPOLLERR.rawValue
    static let EPOLLHUP = CHTTPSystem.EPOLLHUP.rawValue
    static let EPOLLRDHUP = CHTTPSystem.EPOLLRDHUP.rawValue
    static let EPOLLET = CHTTPSystem.EPOLLET.rawValue
    static let IPPROTO_TCP = Int32(CHTTPSystem.IPPROTO_TCP)
    static let TCP_NODELAY = CHTTPSystem.TCP_NODELAY
    static let TCP_NOTSENT_LOWAT = CHTTPSystem.TCP_NOTSENT_LOWAT
    /// The TCP_NOTSENT_LOWAT set on every connection, bytes.
    static let notSentLowWatermark = 16 * 1024

    /// A new close-on-exec epoll instance (epoll_create1(2)), or -1 with `errno`.
    static func epollCreate() -> Int32 {
        epoll_create1(Int32(EPOLL_CLOEXEC))
    }

    /// A new non-blocking, close-on-exec eventfd whose counter starts at 0 (eventfd(2)), or -1.
    static func eventFD() -> Int32 {
        eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    /// Accepts a connection on `listenFD` as a non-blocking, close-on-exec socket (accept4(2)),
    /// writing the peer's address to `address`; -1 with `errno` when none is waiting or on error.
    static func accept4(_ listenFD: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        CHTTPSystem_accept4(listenFD, address, length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
    }

    /// Registers `fd` with `epfd` for `events`, storing `fd` as the event data (epoll_ctl(2)).
    @discardableResult
    static func epollAdd(_ epfd: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        CHTTPSystem_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, events, UInt64(UInt32(bitPattern: fd)))
    }

    /// Removes `fd` from `epfd`.
    static func epollDelete(_ epfd: Int32, _ fd: Int32) {
        _ = CHTTPSystem_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// The array of C `struct epoll_event` that epoll_wait(2) fills, read through the C module's
    /// accessors (the struct is packed on x86-64). Used by one thread at a time.
    final class EpollEvents {
        /// How many events one ``wait(_:timeoutMilliseconds:)`` can return.
        let capacity: Int
        private let events: UnsafeMutablePointer<epoll_event>

        init(capacity: Int) {
            self.capacity = capacity
            events = .allocate(capacity: capacity)
        }

        deinit { events.deallocate() }

        /// Waits up to `timeoutMilliseconds` (-1: without limit) for events on `epfd`; returns how
        /// many were stored (0 when the time ran out), or -1 with `errno` (EINTR included).
        func wait(_ epfd: Int32, timeoutMilliseconds: Int32) -> Int32 {
            epoll_wait(epfd, events, Int32(capacity), timeoutMilliseconds)
        }

        /// Event `index` of the last ``wait(_:timeoutMilliseconds:)``: the descriptor given to
        /// ``SystemCalls/epollAdd(_:_:events:)`` and its ready flags (`EPOLLIN` and so on).
        subscript(index: Int) -> (fd: Int32, flags: UInt32) {
            let data = CHTTPSystem_epoll_event_data(events, Int32(index))
            return (Int32(truncatingIfNeeded: data), CHTTPSystem_epoll_event_flags(events, Int32(index)))
        }
    }
}
#endif
