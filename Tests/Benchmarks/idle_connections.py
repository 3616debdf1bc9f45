#!/usr/bin/env python3
"""Holds N idle HTTP/1.1 keep-alive connections open against 127.0.0.1:PORT (http_bench.sh case 4).

Each connection sends one `GET /app.css` request, reads the whole response, then sends nothing
more, so the server holds it as an idle keep-alive connection. When all are connected the script
writes a one-line summary to --ready; it then waits (at most --seconds, or until SIGUSR1/SIGTERM)
and writes to --report how many connections the server closed meanwhile. Standard library only.
"""
import argparse
import os
import select
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import read_response  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--path", default="/app.css")
    parser.add_argument("--sources", default="127.0.0.1",
                        help="comma-separated client addresses to bind, in turn (any of 127.0.0.0/8 is loopback): "
                             "many idle connections come from many clients, and the server caps connections per address")
    parser.add_argument("--ready", required=True)
    parser.add_argument("--report", required=True)
    args = parser.parse_args()

    stop = {"now": False}

    def on_signal(signum, frame):
        stop["now"] = True

    signal.signal(signal.SIGUSR1, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (args.path, args.port)).encode()
    socks, failures, statuses = [], 0, {}
    started = time.time()
    sources = args.sources.split(",")
    for i in range(args.count):
        try:
            s = socket.create_connection(("127.0.0.1", args.port), timeout=5, source_address=(sources[i % len(sources)], 0))
            s.sendall(request)
            status = read_response(s)  # each recv times out after 5 s (OSError, counted below)
            statuses[status] = statuses.get(status, 0) + 1
            if status:
                socks.append(s)
            else:
                failures += 1
                s.close()
        except OSError:
            failures += 1
    with open(args.ready, "w") as f:
        f.write("   idle: %d connections open (%d failed, statuses %s) in %.1f s\n"
                % (len(socks), failures, statuses, time.time() - started))

    deadline = time.time() + args.seconds
    poller = select.poll()  # not select(): descriptors above FD_SETSIZE (1024) are expected
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    closed = set()
    while not stop["now"] and time.time() < deadline and len(closed) < len(socks):
        try:
            events = poller.poll(200)
        except InterruptedError:
            continue
        for fd, _ in events:
            try:
                gone = not by_fd[fd].recv(65536)
            except OSError:
                gone = True
            if gone:
                closed.add(fd)
                poller.unregister(fd)
    held = time.time() - started
    with open(args.report, "w") as f:
        f.write("   idle: %d of %d connections still open after %.1f s (%d closed by the server)\n"
                % (len(socks) - len(closed), len(socks), held, len(closed)))
    for s in socks:
        s.close()


if __name__ == "__main__":
    sys.exit(main())
