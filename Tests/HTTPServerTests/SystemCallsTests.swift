#if os(Linux)
import Glibc
import Testing
@testable import HTTPServer
import TestSupport

/// The Linux calls of `SystemCalls` against the real kernel: epoll reports each registered
/// descriptor with its readiness (https://man7.org/linux/man-pages/man7/epoll.7.html), and the
/// eventfd(2), epoll_create1(2) and accept4(2) descriptors carry the flags the event loop relies on.
/// Every wait returns as soon as the event is there; its timeout only bounds a broken run.
@Suite("Linux system calls through the C module")
struct SystemCallsTests {
    static func isNonBlocking(_ fd: Int32) -> Bool { fcntl(fd, F_GETFL) & O_NONBLOCK != 0 }
    static func isCloseOnExec(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) & FD_CLOEXEC != 0 }

    @Test func epollReportsEachReadyDescriptorWithTheDataItWasRegisteredWith() throws {
        let epfd = SystemCalls.epollCreate()
        try #require(epfd >= 0)
        defer { close(epfd) }
        let fds = (0..<3).map { _ in SystemCalls.eventFD() }
        defer { fds.forEach { close($0) } }
        for fd in fds { try #require(SystemCalls.epollAdd(epfd, fd, events: SystemCalls.EPOLLIN) == 0) }
        let events = SystemCalls.EpollEvents(capacity: 8)
        #expect(events.wait(epfd, timeoutMilliseconds: 0) == 0)

        var one: UInt64 = 1
        for fd in fds[1...] { #expect(write(fd, &one, 8) == 8) }
        // Two entries: the second is read at C's `struct epoll_event` stride (12 bytes on x86-64).
        let n = events.wait(epfd, timeoutMilliseconds: 10_000)
        try #require(n == 2)
        let ready = (0..<Int(n)).map { events[$0] }
        #expect(Set(ready.map(\.fd)) == Set(fds[1...]))
        #expect(ready.allSatisfy { $0.flags == SystemCalls.EPOLLIN })

        SystemCalls.epollDelete(epfd, fds[2])
        var counter: UInt64 = 0
        #expect(read(fds[1], &counter, 8) == 8 && counter == 1)
        // fds[1] is drained and fds[2], still readable, is no longer registered.
        #expect(events.wait(epfd, timeoutMilliseconds: 0) == 0)
    }

    @Test func theEventFDIsNonBlockingAndCloseOnExecAndStartsAtZero() throws {
        let fd = SystemCalls.eventFD()
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(Self.isNonBlocking(fd))
        #expect(Self.isCloseOnExec(fd))
        var counter: UInt64 = 0
        #expect(read(fd, &counter, 8) == -1 && errno == EAGAIN)
        var two: UInt64 = 2
        #expect(write(fd, &two, 8) == 8)
        #expect(read(fd, &counter, 8) == 8 && counter == 2)
    }

    @Test func theEpollInstanceIsCloseOnExec() throws {
        let epfd = SystemCalls.epollCreate()
        try #require(epfd >= 0)
        defer { close(epfd) }
        #expect(Self.isCloseOnExec(epfd))
    }

    @Test func acceptedConnectionsAreNonBlockingCloseOnExecAndReportThePeersHalfClose() throws {
        let listener = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8)
        defer { close(listener.fd) }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        func accept() -> Int32 {
            length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            return withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SystemCalls.accept4(listener.fd, $0, &length) }
            }
        }
        #expect(accept() == -1 && errno == EAGAIN)

        let epfd = SystemCalls.epollCreate()
        try #require(epfd >= 0)
        defer { close(epfd) }
        let events = SystemCalls.EpollEvents(capacity: 4)
        try #require(SystemCalls.epollAdd(epfd, listener.fd, events: SystemCalls.EPOLLIN) == 0)
        let client = TestClient.connect(port: listener.port)
        try #require(client >= 0)
        defer { close(client) }
        try #require(events.wait(epfd, timeoutMilliseconds: 10_000) == 1)
        #expect(events[0].fd == listener.fd && events[0].flags == SystemCalls.EPOLLIN)

        let fd = accept()
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(Self.isNonBlocking(fd))
        #expect(Self.isCloseOnExec(fd))
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &localLength) }
        }
        #expect(Socket.addressAndPort(storage) == Socket.addressAndPort(local))

        // As the event loop registers a connection: edge-triggered, writable at once, and a FIN
        // from the peer reported as EPOLLRDHUP with EPOLLIN.
        SystemCalls.epollDelete(epfd, listener.fd)
        let mask = SystemCalls.EPOLLIN | SystemCalls.EPOLLOUT | SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLET
        try #require(SystemCalls.epollAdd(epfd, fd, events: mask) == 0)
        try #require(events.wait(epfd, timeoutMilliseconds: 10_000) == 1)
        #expect(events[0].fd == fd && events[0].flags & SystemCalls.EPOLLOUT != 0)
        #expect(events[0].flags & SystemCalls.EPOLLRDHUP == 0)
        shutdown(client, Int32(SHUT_WR))
        try #require(events.wait(epfd, timeoutMilliseconds: 10_000) == 1)
        #expect(events[0].fd == fd)
        #expect(events[0].flags & (SystemCalls.EPOLLIN | SystemCalls.EPOLLRDHUP) == SystemCalls.EPOLLIN | SystemCalls.EPOLLRDHUP)
    }
}
#endif
