#if canImport(Glibc)
import Glibc
#endif

/// Linux calls the Swift `Glibc` module does not import (epoll, eventfd, accept4), bound at run time
/// with `dlsym` so they are called with the C calling convention, plus their constants.
enum SystemCalls {
    typealias EpollCreate1 = @convention(c) (Int32) -> Int32
    typealias EpollCtl = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias EpollWait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
    typealias EventFD = @convention(c) (UInt32, Int32) -> Int32
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    // nonisolated(unsafe): immutable C function pointers resolved once; C function types are not
    // `Sendable` in Swift's model, but calling them from any thread is safe.
    nonisolated(unsafe) static let epollCreate1: EpollCreate1 = load("epoll_create1")
    nonisolated(unsafe) static let epollCtl: EpollCtl = load("epoll_ctl")
    nonisolated(unsafe) static let epollWait: EpollWait = load("epoll_wait")
    nonisolated(unsafe) static let eventFD: EventFD = load("eventfd")
    nonisolated(unsafe) static let accept4: Accept4 = load("accept4")

    static let EPOLLIN: UInt32 = 0x001
    static let EPOLLOUT: UInt32 = 0x004
    static let EPOLLERR: UInt32 = 0x008
    static let EPOLLHUP: UInt32 = 0x010
    static let EPOLLRDHUP: UInt32 = 0x2000
    static let EPOLLET: UInt32 = 1 << 31
    static let EPOLL_CTL_ADD: Int32 = 1
    static let EPOLL_CTL_DEL: Int32 = 2
    static let cloexec: Int32 = 0o2000000
    static let nonblock: Int32 = 0o4000
    static let IPPROTO_TCP: Int32 = 6
    static let TCP_NODELAY: Int32 = 1
    static let TCP_NOTSENT_LOWAT: Int32 = 25
    /// The TCP_NOTSENT_LOWAT set on every connection, bytes.
    static let notSentLowWatermark = 16 * 1024

    #if arch(x86_64)
    /// `struct epoll_event` is packed on x86-64: 4-byte events, 8-byte data.
    static let eventStride = 12
    static let eventDataOffset = 4
    #else
    static let eventStride = 16
    static let eventDataOffset = 8
    #endif

    private static func load<T>(_ name: String) -> T {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else {
            fatalError("HTTPServer: \(name) not available")
        }
        return unsafeBitCast(symbol, to: T.self)
    }

    /// Registers `fd` with `epfd` for `events`, storing `fd` as the event data.
    @discardableResult
    static func epollAdd(_ epfd: Int32, _ fd: Int32, events: UInt32) -> Int32 {
        var raw = [UInt8](repeating: 0, count: 16)
        return raw.withUnsafeMutableBytes { p in
            p.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: eventDataOffset, as: UInt64.self)
            return epollCtl(epfd, EPOLL_CTL_ADD, fd, p.baseAddress)
        }
    }

    /// Removes `fd` from `epfd`.
    static func epollDelete(_ epfd: Int32, _ fd: Int32) {
        var raw = [UInt8](repeating: 0, count: 16)
        _ = raw.withUnsafeMutableBytes { epollCtl(epfd, EPOLL_CTL_DEL, fd, $0.baseAddress) }
    }
}
