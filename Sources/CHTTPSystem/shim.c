// accept4(2) needs `_GNU_SOURCE` before the first system header; see include/CHTTPSystem.h.
#if defined(__linux__)
#define _GNU_SOURCE
#include <sys/socket.h>

#include "CHTTPSystem.h"

int CHTTPSystem_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}
#endif
