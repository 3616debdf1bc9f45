#!/usr/bin/env python3
"""Request bodies sent slowly from many addresses try to take every connection slot of `tipjar serve`.

An attacker process holds FLOOD_CONNECTIONS (default 5,000) connections from 49 loopback addresses
(127.0.5.1-127.0.5.49, about 100 each, under the per-address cap of 512 but together more than the 4,096 slots).
Each sends the head of `POST /installs` announcing `Content-Length: 100000`, then one byte of the body every 2 s,
and is re-opened at once whenever the server answers or closes it. Headers sent slowly are dropped by their
deadline; a body has 30 s, so without more than deadlines a well-behaved client from another address finds every
slot held by a body that trickles in.

Two runs, each with a well-behaved client on 127.0.0.1 asking for /app.css one request at a time (every other one
on a new connection) for FLOOD_SECONDS (default 35 s, past the 30 s body deadline, so the churn is included):
  1. `tipjar serve` as it starts by default;
  2. `tipjar serve --admin-token T` with the attacker lacking the token and the client sending
     `Authorization: Bearer T`: a request that needs the token and lacks it is answered 401 from its head, before any
     body is read, and closed, so the attacker's announced bodies hold nothing (ADMIN_SECONDS, default 12 s).
Targets, for the client in each run: at least 99 % of requests answered 200, p99 at most 100 ms; in run 2 every
attacker answer that came is a 401. Prints the figures beside a reference taken before the flood and
`targets missed: …`; exits 1 when one is missed.

  python3 Tests/Benchmarks/slow_body_flood_bench.py

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing), FLOOD_CONNECTIONS, FLOOD_SECONDS,
ADMIN_SECONDS. Raises the descriptor limit itself. Standard library only.
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

ADDRESSES = ["127.0.5.%d" % i for i in range(1, 50)]
TOKEN = "5b0d7f10"  * 4  # 32 hex digits, as `serve --admin-token` requires
TRICKLE_SECONDS = 2.0


def attacker(port, count, seconds):
    """The flooding side (a child process): prints READY, then a JSON summary once `seconds` passed."""
    poller = select.poll()
    socks = {}  # fd -> [socket, next byte due]
    stats = {"connects": 0, "reconnects": 0, "connect_errors": 0, "statuses": {}, "closed_silently": 0, "body_bytes": 0}
    head = ("POST /installs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            "Content-Length: 100000\r\n\r\n" % port).encode()
    slot = [0]

    def connect():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ADDRESSES[slot[0] % len(ADDRESSES)], 0))
        slot[0] += 1
        s.setblocking(False)
        code = s.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            stats["connect_errors"] += 1
            s.close()
            return
        stats["connects"] += 1
        socks[s.fileno()] = [s, None]
        poller.register(s.fileno(), select.POLLIN | select.POLLOUT | select.POLLHUP | select.POLLERR)

    def drop(fd):
        s = socks.pop(fd)[0]
        poller.unregister(fd)
        s.close()

    for _ in range(count):
        connect()
    print("READY %d" % len(socks), flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = time.monotonic()
        for fd, events in poller.poll(50):
            entry = socks.get(fd)
            if entry is None:
                continue
            s = entry[0]
            if events & select.POLLOUT and entry[1] is None:
                try:
                    s.send(head)  # the head fits in the socket buffer of a new connection
                    entry[1] = now + TRICKLE_SECONDS
                    poller.modify(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
                except OSError:
                    pass
                continue
            if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if data.startswith(b"HTTP/1.1 "):
                    code = data[9:12].decode(errors="replace")
                    stats["statuses"][code] = stats["statuses"].get(code, 0) + 1
                else:
                    stats["closed_silently"] += 1
                drop(fd)
                stats["reconnects"] += 1
                connect()
        for fd, entry in list(socks.items()):
            if entry[1] is not None and now >= entry[1]:
                try:
                    entry[0].send(b"a")
                    stats["body_bytes"] += 1
                except OSError:
                    pass
                entry[1] = now + TRICKLE_SECONDS
        while len(socks) < count:
            before = len(socks)
            connect()
            if len(socks) == before:
                break
    stats["open_at_end"] = len(socks)
    print(json.dumps(stats), flush=True)


def flood_run(name, count, seconds, arguments=(), headers=""):
    """One server, a reference before the flood, the client during it; returns (line, figures, attacker stats)."""
    server = support.Server(arguments)
    try:
        reference = support.Client(server.port, "/app.css", headers)
        reference.run(300, fresh_every=2)
        before = reference.summary()
        flood = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--attacker", str(server.port), str(count),
                                  str(seconds + 3)], stdout=subprocess.PIPE, text=True)
        ready = flood.stdout.readline().split()
        if not ready or ready[0] != "READY":
            sys.exit("the attacker did not start")
        time.sleep(1.0)  # let the server take in the opening burst before the client's first request
        held_start = sum(support.established(server.port, address) for address in ADDRESSES)
        client = support.Client(server.port, "/app.css", headers)
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            client.run(100, fresh_every=2)
        during = client.summary()
        attack = json.loads(flood.stdout.readline() or "{}")
        flood.wait()
        alive = server.alive()
    finally:
        server.stop()
    print("== %s" % name)
    print("   attacker: %d connections (%d re-opened), answers %s, %d closed without an answer, %d body bytes trickled; "
          "%d held by the server after 1 s"
          % (attack.get("connects", 0), attack.get("reconnects", 0), attack.get("statuses", {}),
             attack.get("closed_silently", 0), attack.get("body_bytes", 0), held_start))
    print("   reference (no flood): %d requests, %.1f %% 200, p50 %.2f ms, p99 %.2f ms"
          % (before["requests"], before["success"], before["p50"], before["p99"]))
    print("   127.0.0.1 during the flood: %d requests, %.2f %% 200 (statuses %s, keep-alive retries %d), p50 %.2f ms, "
          "p99 %.2f ms" % (during["requests"], during["success"], during["statuses"], during["retries"], during["p50"],
                           during["p99"]), flush=True)
    missed = []
    if not alive:
        missed.append("%s: the server died" % name)
    if during["success"] < 99.0:
        missed.append("%s: %.2f %% answered 200 < 99 %%" % (name, during["success"]))
    if not during["p99"] <= 100.0:
        missed.append("%s: p99 %.1f ms > 100 ms" % (name, during["p99"]))
    return missed, attack


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--attacker":
        attacker(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        return 0
    limit = support.raise_fd_limit()
    count = int(os.environ.get("FLOOD_CONNECTIONS", "5000"))
    seconds = float(os.environ.get("FLOOD_SECONDS", "35"))
    admin_seconds = float(os.environ.get("ADMIN_SECONDS", "12"))
    if limit < count + 4096 + 1200:
        sys.exit("the descriptor limit (%d) is too low for %d connections" % (limit, count))
    print("slow-body flood: %s, %d connections from %d addresses, each sending 1 body byte every %.0f s, fd limit %d"
          % (support.release_binary(), count, len(ADDRESSES), TRICKLE_SECONDS, limit), flush=True)
    missed, _ = flood_run("default serve, %.0f s" % seconds, count, seconds)
    admin_missed, attack = flood_run(
        "serve --admin-token, the attacker without it, %.0f s" % admin_seconds, count, admin_seconds,
        arguments=("--admin-token", TOKEN), headers="Authorization: Bearer %s\r\n" % TOKEN)
    missed += admin_missed
    others = {code: n for code, n in attack.get("statuses", {}).items() if code != "401"}
    if others:
        missed.append("admin token: the attacker got answers other than 401: %s" % others)
    if not attack.get("statuses", {}).get("401"):
        missed.append("admin token: the attacker got no 401 from its heads")
    print("targets missed: %s" % ("; ".join(missed) if missed else "none"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
