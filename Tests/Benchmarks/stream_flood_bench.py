#!/usr/bin/env python3
"""Live event streams against the release `tipjar serve`: can they take the server?

An attacker process (a child, so its work is not the measuring side's) keeps STREAMS (default
2,000) `GET /installs/{id}/events` streams open from 24 client addresses (127.0.2.1-24: 24 x 64 per
address is more than the 1,024 in total), spread over WATCHED (default 10) installs; like an
`EventSource`, it opens a stream again whenever the server
answers 503 or closes one. One stream in four never reads past the head (a small receive buffer),
the others read every event. Meanwhile, for ATTACK_SECONDS (default 15 s):
  - 20 purchases (POST /api/installs/{id}/purchases), one every ATTACK_SECONDS/20, alternating
    between a watched install (every stream of it gets an event) and one nobody watches;
  - a well-behaved client on 127.0.0.1 asks for /app.css, one request at a time, every other one on
    a new connection.
Then the attacker closes everything and the server's RSS is read for 5 s more.

Prints the server's CPU time during the attack, its peak RSS (VmHWM) beside the RSS before the
attack, its RSS after the clients left, the streams it kept open (ESTABLISHED sockets from the
attacker's addresses), what the attacker saw (streams answered 200 and 503, resets, events read),
the purchases' p50/p99, and the client's success rate; exits 1 unless every ordinary request and
every purchase succeeded, at most the stream budget streamed at once, and the RSS after the
clients left is within RSS_AFTER_TARGET_MIB (default 96) of the RSS before the attack.

  python3 Tests/Benchmarks/stream_flood_bench.py

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing), STREAMS, WATCHED,
ATTACK_SECONDS, RSS_AFTER_TARGET_MIB. Loopback only; raises the descriptor limit itself. Standard
library only.
"""
import http.client
import json
import os
import select
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_support as support  # noqa: E402

ADDRESSES = ["127.0.2.%d" % i for i in range(1, 25)]
PRODUCTS = ["com.example.tipjar.tip.coffee", "com.example.tipjar.tip.snack", "com.example.tipjar.tip.lunch"]
STREAM_BUDGET = 1024  # HTTPServerConfiguration.maxStreams, the default `tipjar serve` runs with


def attacker(port, installs, count, seconds):
    """The streaming side (a child process): prints READY, then a JSON summary once `seconds` passed."""
    poller = select.poll()
    socks = {}  # fd -> [socket, slot, head bytes so far, or True once a reader streams, None once a non-reader does]
    retry_at = {}  # slot -> when to open it again (EventSource waits before it reconnects)
    stats = {"opened": 0, "answered_200": 0, "answered_503": 0, "closed_by_server": 0, "events": 0, "connect_errors": 0,
             "most_streaming": 0}
    streaming = [0]

    def open_stream(slot):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if slot % 4 == 0:  # a client that does not read: small buffers, so the server holds what it sends
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            s.bind((ADDRESSES[slot % len(ADDRESSES)], 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            s.sendall(("GET /installs/%s/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n\r\n"
                       % (installs[slot % len(installs)], port)).encode())
        except OSError:
            stats["connect_errors"] += 1
            s.close()
            retry_at[slot] = time.monotonic() + 1
            return
        s.setblocking(False)
        stats["opened"] += 1
        socks[s.fileno()] = [s, slot, b""]
        poller.register(s.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)

    def drop(fd, delay):
        s, slot, head = socks.pop(fd)
        if head is True or head is None:
            streaming[0] -= 1
        poller.unregister(fd)
        s.close()
        retry_at[slot] = time.monotonic() + delay

    for slot in range(count):
        open_stream(slot)
    print("READY %d" % len(socks), flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for fd, _ in poller.poll(50):
            entry = socks.get(fd)
            if entry is None:
                continue
            s, slot, head = entry
            if head is None:
                # Streaming and not reading (polled for a close or reset only).
                stats["closed_by_server"] += 1
                drop(fd, 1)
                continue
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                stats["closed_by_server"] += 1
                drop(fd, 1)
                continue
            if head is not True:
                head += data
                if b"\r\n\r\n" not in head:
                    entry[2] = head
                    continue
                if head.startswith(b"HTTP/1.1 200"):
                    stats["answered_200"] += 1
                    streaming[0] += 1
                    stats["most_streaming"] = max(stats["most_streaming"], streaming[0])
                    stats["events"] += head.count(b"event: live")
                    entry[2] = True if slot % 4 else None
                    if slot % 4 == 0:
                        poller.modify(fd, select.POLLRDHUP | select.POLLHUP | select.POLLERR)
                else:
                    stats["answered_503" if head.startswith(b"HTTP/1.1 503") else "closed_by_server"] += 1
                    drop(fd, 1)  # Retry-After: 1
                continue
            stats["events"] += data.count(b"event: live")
        now = time.monotonic()
        for slot in [slot for slot, at in retry_at.items() if at <= now]:
            del retry_at[slot]
            open_stream(slot)
    stats["open_at_end"] = len(socks)
    for s, _, _ in socks.values():
        s.close()
    print(json.dumps(stats), flush=True)


def call(conn, method, path, body=None):
    payload = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=payload, headers={"Content-Type": "application/json"} if payload else {})
    response = conn.getresponse()
    return response.status, response.read()


def new_installs(port, count):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    ids = []
    for index in range(count):
        status, body = call(conn, "POST", "/api/installs", {"locale": "en", "launch": True, "label": "stream bench %d" % index})
        if status != 201:
            sys.exit("stream_flood_bench: POST /api/installs answered %d: %r" % (status, body[:200]))
        ids.append(json.loads(body)["id"])
    conn.close()
    return ids


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--attacker":
        attacker(int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4]), float(sys.argv[5]))
        return 0
    limit = support.raise_fd_limit()
    streams = int(os.environ.get("STREAMS", "2000"))
    watched = int(os.environ.get("WATCHED", "10"))
    seconds = float(os.environ.get("ATTACK_SECONDS", "15"))
    rss_target = float(os.environ.get("RSS_AFTER_TARGET_MIB", "96"))
    if limit < 2 * streams + 200:
        sys.exit("the descriptor limit (%d) is too low for %d streams" % (limit, streams))
    print("stream flood: %s, %d streams from %d addresses over %d installs for %.0f s, 20 purchases"
          % (support.release_binary(), streams, len(ADDRESSES), watched, seconds), flush=True)
    server = support.Server()
    failures = []
    try:
        installs = new_installs(server.port, watched + 10)
        targets, others = installs[:watched], installs[watched:]
        warm = support.Client(server.port, "/app.css")
        warm.run(200, fresh_every=2)
        rss_before = rss_mib(server.process.pid)
        cpu_before = server.cpu_seconds()
        flood = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--attacker", str(server.port), ",".join(targets),
                                  str(streams), str(seconds)], stdout=subprocess.PIPE, text=True)
        ready = flood.stdout.readline().split()
        if not ready or ready[0] != "READY":
            sys.exit("the attacker did not start")
        client = support.Client(server.port, "/app.css")
        buyer = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        purchase_latencies, purchase_failures, held_max = [], 0, 0
        started = time.monotonic()
        for n in range(20):
            at = started + (n + 0.5) * seconds / 20
            while time.monotonic() < at:
                client.one(fresh=client.succeeded % 2 == 0)
            held_max = max(held_max, sum(support.established(server.port, a) for a in ADDRESSES))
            install = targets[n % watched] if n % 2 == 0 else others[n % len(others)]
            began = time.monotonic()
            try:
                status, _ = call(buyer, "POST", "/api/installs/%s/purchases" % install, {"productID": PRODUCTS[n % 3]})
            except OSError:
                status = 0
                buyer.close()
            purchase_latencies.append(time.monotonic() - began)
            if status != 200:
                purchase_failures += 1
        buyer.close()
        cpu_attack = server.cpu_seconds() - cpu_before
        attack_stats = json.loads(flood.stdout.readline() or "{}")
        flood.wait()
        during = client.summary()
        client.close()
        peak = server.peak_rss_mib()
        after = []
        for _ in range(10):  # the heap is trimmed about a second after most connections left
            time.sleep(0.5)
            after.append(rss_mib(server.process.pid))
        rss_after = after[-1]
        after_client = support.Client(server.port, "/app.css")
        after_client.run(100)
        if not server.alive():
            failures.append("the server died")
    finally:
        server.stop()
    print("   attacker: %d streams opened, %d answered 200, %d answered 503, %d closed or reset by the server, "
          "%d events read, at most %d streaming at once (budget %d); at most %d connections from its addresses established"
          % (attack_stats.get("opened", 0), attack_stats.get("answered_200", 0), attack_stats.get("answered_503", 0),
             attack_stats.get("closed_by_server", 0), attack_stats.get("events", 0), attack_stats.get("most_streaming", 0),
             STREAM_BUDGET, held_max))
    print("   server: %.1f s of CPU during the %.0f s attack; RSS %.1f MiB before, peak (VmHWM) %.1f MiB, "
          "%.1f MiB 5 s after the clients left" % (cpu_attack, seconds, rss_before, peak, rss_after))
    print("   purchases: %d of 20 answered 200; p50 %.1f ms, p99 %.1f ms"
          % (20 - purchase_failures, support.percentile(purchase_latencies, 50) * 1000,
             support.percentile(purchase_latencies, 99) * 1000))
    print("   127.0.0.1 /app.css during the attack: %d requests, %.1f %% answered 200, p50 %.1f ms, p99 %.1f ms, statuses %s"
          % (during["requests"], during["success"], during["p50"], during["p99"], during["statuses"]))
    if during["success"] < 100.0 or after_client.summary()["success"] < 100.0:
        failures.append("ordinary requests from 127.0.0.1 failed")
    if purchase_failures:
        failures.append("%d purchases failed" % purchase_failures)
    if attack_stats.get("most_streaming", 0) > STREAM_BUDGET:
        failures.append("the server kept %d streams open, over its budget of %d" % (attack_stats["most_streaming"], STREAM_BUDGET))
    if rss_after > rss_before + rss_target:
        failures.append("RSS after the clients left (%.1f MiB) is more than %.0f MiB above the RSS before (%.1f MiB)"
                        % (rss_after, rss_target, rss_before))
    for failure in failures:
        print("FAIL: " + failure)
    print("stream flood: %s" % ("targets met" if not failures else "targets missed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
