#!/usr/bin/env python3
"""One client address tries to take every connection slot of the release `tipjar serve`.

An attacker process binds 127.0.0.2 and holds FLOOD_CONNECTIONS (default 5,000) connections that
send nothing: whenever the server answers or closes one (a 503 over the per-address cap, the
first-byte timeout), it reconnects it at once. Meanwhile a well-behaved client on 127.0.0.1 makes
requests for FLOOD_SECONDS (default 12 s, longer than the 5 s first-byte timeout, so the churn is
included), every other one on a new connection. Prints the attacker's figures (connections held
by the server, reconnects, 503s), the client's success rate and p50/p99 beside a reference taken
before the flood, and the server's peak RSS; exits 1 unless every request succeeded.

  python3 Tests/Benchmarks/address_flood_bench.py

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing),
FLOOD_CONNECTIONS, FLOOD_SECONDS. Raises the descriptor limit itself. Standard library only.
"""
import errno
import json
import os
import select
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_support as support  # noqa: E402

ATTACKER = "127.0.0.2"


def attacker(port, count, seconds):
    """The flooding side (run as a child process): prints READY, then a JSON summary."""
    poller = select.poll()
    socks = {}
    stats = {"connects": 0, "reconnects": 0, "answered_503": 0, "closed_silently": 0, "connect_errors": 0}

    def connect():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ATTACKER, 0))
        s.setblocking(False)
        code = s.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            stats["connect_errors"] += 1
            s.close()
            return
        stats["connects"] += 1
        socks[s.fileno()] = s
        poller.register(s.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)

    for _ in range(count):
        connect()
    print("READY %d" % len(socks), flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for fd, _ in poller.poll(100):
            s = socks.pop(fd)
            poller.unregister(fd)
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 503"):
                stats["answered_503"] += 1
            else:
                stats["closed_silently"] += 1
            s.close()
            stats["reconnects"] += 1
            connect()
        while len(socks) < count:  # replace any connect that failed outright
            before = len(socks)
            connect()
            if len(socks) == before:
                break
    stats["open_at_end"] = len(socks)
    print(json.dumps(stats), flush=True)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--attacker":
        attacker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        return 0
    limit = support.raise_fd_limit()
    count = int(os.environ.get("FLOOD_CONNECTIONS", "5000"))
    seconds = float(os.environ.get("FLOOD_SECONDS", "12"))
    if limit < count + 4096 + 200:
        sys.exit("the descriptor limit (%d) is too low for %d connections" % (limit, count))
    print("address flood: %s, %d idle connections from %s for %.0f s, fd limit %d"
          % (support.release_binary(), count, ATTACKER, seconds, limit), flush=True)
    server = support.Server()
    try:
        reference = support.Client(server.port, "/app.css")
        reference.run(500, fresh_every=2)
        before = reference.summary()
        flood = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--attacker", str(server.port), str(count),
                                  str(seconds + 5)], stdout=subprocess.PIPE, text=True)
        ready = flood.stdout.readline().split()
        if not ready or ready[0] != "READY":
            sys.exit("the attacker did not start")
        time.sleep(0.5)  # let the server take in the opening burst before the client's first request
        held_start = support.established(server.port, ATTACKER)
        client = support.Client(server.port, "/app.css")
        ends = time.monotonic() + seconds
        held_max = held_start
        while time.monotonic() < ends:
            client.run(100, fresh_every=2)
            held_max = max(held_max, support.established(server.port, ATTACKER))
        during = client.summary()
        held_end = support.established(server.port, ATTACKER)
        flood_stats = json.loads(flood.stdout.readline() or "{}")
        flood.wait()
        peak = server.peak_rss_mib()
        alive = server.alive()
    finally:
        server.stop()
    print("   attacker: %d connections opened (%d reconnects), %d answered 503, %d closed without an answer; "
          "the server held %d of them after 0.5 s, at most %d, %d at the end"
          % (flood_stats.get("connects", 0), flood_stats.get("reconnects", 0), flood_stats.get("answered_503", 0),
             flood_stats.get("closed_silently", 0), held_start, held_max, held_end))
    print("   reference (no flood): %d requests, %.1f %% 200, p50 %.2f ms, p99 %.2f ms"
          % (before["requests"], before["success"], before["p50"], before["p99"]))
    print("   127.0.0.1 during the flood: %d requests, %.1f %% 200 (statuses %s, keep-alive retries %d), p50 %.2f ms, p99 %.2f ms"
          % (during["requests"], during["success"], during["statuses"], during["retries"], during["p50"], during["p99"]))
    print("   server peak RSS (VmHWM): %.1f MiB" % peak)
    missed = []
    if not alive:
        missed.append("the server died")
    if during["success"] < 100.0:
        missed.append("success %.2f %% < 100 %%" % during["success"])
    print("targets missed: %s" % ("; ".join(missed) if missed else "none"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
