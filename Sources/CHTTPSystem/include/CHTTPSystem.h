// The Linux calls HTTPServer's event loop is built on, declared by the C library's own headers:
// epoll(7) <sys/epoll.h>, eventfd(2) <sys/eventfd.h>, accept4(2) <sys/socket.h>, and the TCP socket
// options of tcp(7) <netinet/tcp.h>. Swift imports the declarations, constants and
// `struct epoll_event` from here instead of re-declaring them.
//
// `struct epoll_event` is packed on x86-64 (its 8-byte `data` sits at offset 4), so it is read and
// written only by the inline helpers below, in C, which know its real layout on every architecture.
#ifndef CHTTPSYSTEM_H
#define CHTTPSYSTEM_H

#if defined(__linux__)
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4(2). glibc declares it only under `_GNU_SOURCE`, and defining that here would give this
/// module a view of glibc's types different from the Swift `Glibc` module's, which Clang refuses
/// when both are imported; so the call is compiled in `shim.c`.
int CHTTPSystem_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// epoll_ctl(2) with an event built here: `events` and the 64-bit `data.u64`.
static inline int CHTTPSystem_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

/// The ready flags (`events`) of entry `index` of an array that epoll_wait(2) filled.
static inline uint32_t CHTTPSystem_epoll_event_flags(const struct epoll_event *events, int index) {
    return events[index].events;
}

/// The `data.u64` of entry `index` of an array that epoll_wait(2) filled.
static inline uint64_t CHTTPSystem_epoll_event_data(const struct epoll_event *events, int index) {
    return events[index].data.u64;
}
#endif

#endif
