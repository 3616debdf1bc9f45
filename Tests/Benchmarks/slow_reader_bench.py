#!/usr/bin/env python3
"""Clients that pipeline requests and never read their answers, against the release `tipjar serve`.

For each scenario a fresh server is started; then, in order:
  1. reference: a well-behaved client (127.0.0.1, keep-alive, reads every answer, a new
     connection every 10 requests) makes GOOD_REQUESTS requests; the server's VmHWM after that is
     the reference RSS;
  2. SLOW_READERS connections (default 4,000, spread over 40 client addresses 127.0.1.1-40 so
     the per-address cap does not refuse them) each pipeline requests (up to 512 KiB) without
     ever reading, until their socket takes no more;
  3. the well-behaved client makes requests in batches of 100 while the server works through
     the pipelined requests the kernel still takes for the slow readers (until two batches in a
     row see no other responses in its access log, at most 25 s), then GOOD_REQUESTS more in the steady
     state, all slow readers still connected and stalled.
Scenarios: `static` pipelines `GET /screenshots/install-page.png` (a 163 KiB cached file);
`admin` runs the server with --admin-token and pipelines an unauthenticated `GET /installs`
(a 401 page rendered per request). The well-behaved client asks for `/app.css` (with the token
in `admin`).

Prints, per scenario, the peak RSS (VmHWM from /proc/PID/status) beside the reference, the
server-side connections still established, the well-behaved client's success rate over every
request under load and its p50/p99 in both phases beside its reference, and exits 1 if any target
is missed: peak RSS <= 128 MiB, success 100 %, steady-state p99 <= 100 ms. (The first phase's p99
is printed, not judged: there the server is answering ~4,000 connections' pipelined requests at
once, which is a request flood, not a memory problem.)

  python3 Tests/Benchmarks/slow_reader_bench.py [static|admin ...]

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing), SLOW_READERS
(default 4000), GOOD_REQUESTS (default 1000). Raises the descriptor limit itself. Standard library only.
"""
import errno
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_support as support  # noqa: E402

TOKEN = "0123456789abcdef0123456789abcdef"
SCENARIOS = {
    "static": dict(arguments=[], path="/screenshots/install-page.png", headers=""),
    "admin": dict(arguments=["--admin-token", TOKEN], path="/installs", headers="Authorization: Bearer %s\r\n" % TOKEN),
}
ADDRESSES = ["127.0.1.%d" % i for i in range(1, 41)]
PIPELINE_CAP = 512 * 1024
RSS_TARGET_MIB = 128.0
P99_TARGET_MS = 100.0


def open_slow_readers(port, path, count):
    """Connects `count` sockets and pushes pipelined requests into each until the socket is full."""
    request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (path, port)).encode()
    batch = request * (16384 // len(request))
    socks, sent, refused = [], {}, 0
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Small fixed buffers on the attacking end stand in for a remote attacker: its own kernel
        # buffers are then not this machine's (they would put all of loopback TCP under memory
        # pressure and delay every client). What the server holds is unchanged.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
        try:
            s.bind((ADDRESSES[i % len(ADDRESSES)], 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
        except OSError:
            refused += 1
            s.close()
            continue
        s.setblocking(False)
        socks.append(s)
        sent[s] = 0
    busy = list(socks)
    while busy:
        still = []
        for s in busy:
            try:
                while sent[s] < PIPELINE_CAP:
                    sent[s] += s.send(batch)
            except BlockingIOError:
                continue  # full: the server is not reading it
            except OSError as error:
                if error.errno not in (errno.ECONNRESET, errno.EPIPE):
                    raise
                continue
            if sent[s] < PIPELINE_CAP:
                still.append(s)
        busy = still
    return socks, sum(sent.values()), refused


def measure_under_load(server, client, good_requests):
    """Runs the well-behaved client in batches of 100 while the server still works through the
    requests the slow readers pipelined (more responses in its access log than the batch's), for at most 25 s (the
    write timeout, 30 s, would then start closing them), then GOOD_REQUESTS more: the steady state.
    Returns (fill latencies, fill seconds, steady summary)."""
    fill, started = [], time.monotonic()
    quiet = 0
    while quiet < 2 and time.monotonic() - started < 25:
        answered = server.access_log_lines()
        client.latencies = []
        client.run(100)
        fill += client.latencies
        # Still answering slow readers: more responses logged than this batch's own.
        quiet = quiet + 1 if server.access_log_lines() - answered <= 200 else 0
    fill_seconds = time.monotonic() - started
    client.latencies = []
    client.run(good_requests)
    return fill, fill_seconds, client.summary()


def run(name, good_requests, readers):
    scenario = SCENARIOS[name]
    server = support.Server(scenario["arguments"])
    try:
        client = support.Client(server.port, "/app.css", scenario["headers"])
        client.run(good_requests)
        reference = client.summary()
        reference_rss = server.peak_rss_mib()
        started = time.monotonic()
        socks, pushed, refused = open_slow_readers(server.port, scenario["path"], readers)
        setup = time.monotonic() - started
        client = support.Client(server.port, "/app.css", scenario["headers"])
        fill, fill_seconds, steady = measure_under_load(server, client, good_requests)
        held = support.established(server.port)
        peak = server.peak_rss_mib()
        alive = server.alive()
        kernel = support.tcp_memory_mib()
        answered = server.access_log_lines()
        for s in socks:
            s.close()
    finally:
        server.stop()
    overall = client.summary()  # every request under load: success counts them all
    print("== %s: %d slow readers pipelining GET %s (%.1f MiB pushed in %.1f s, %d connects failed)"
          % (name, len(socks), scenario["path"], pushed / 1048576.0, setup, refused))
    print("   server connections still established at the end: %d; responses written: %d (%.1f per connection); "
          "kernel TCP buffers %.0f MiB (not in RSS)" % (held, answered, answered / max(1, len(socks)), kernel))
    print("   peak RSS (VmHWM): %.1f MiB under load, %.1f MiB reference (%.2fx); target <= %.0f MiB"
          % (peak, reference_rss, peak / reference_rss if reference_rss else 0, RSS_TARGET_MIB))
    print("   well-behaved GET /app.css, reference: p50 %.2f ms, p99 %.2f ms" % (reference["p50"], reference["p99"]))
    print("   while the server answers what the kernel still takes (%.1f s, %d requests): p50 %.2f ms, p99 %.2f ms, max %.1f ms"
          % (fill_seconds, len(fill), support.percentile(fill, 50) * 1000, support.percentile(fill, 99) * 1000,
             max(fill or [0]) * 1000))
    print("   steady state, all %d stalled: %d requests, p50 %.2f ms, p99 %.2f ms (%.1fx reference)"
          % (len(socks), len(client.latencies), steady["p50"], steady["p99"], steady["p99"] / reference["p99"] if reference["p99"] else 0))
    print("   under load in all: %d requests, %.1f %% 200, statuses %s, keep-alive retries %d"
          % (overall["requests"], overall["success"], overall["statuses"], overall["retries"]))
    missed = []
    if not alive:
        missed.append("%s: the server died" % name)
    if peak > RSS_TARGET_MIB:
        missed.append("%s: peak RSS %.1f MiB > %.0f MiB" % (name, peak, RSS_TARGET_MIB))
    if overall["success"] < 100.0:
        missed.append("%s: success %.1f %% < 100 %%" % (name, overall["success"]))
    if not steady["p99"] <= P99_TARGET_MS:
        missed.append("%s: steady-state p99 %.2f ms > %.0f ms" % (name, steady["p99"], P99_TARGET_MS))
    return missed


def main():
    names = sys.argv[1:] or list(SCENARIOS)
    for name in names:
        if name not in SCENARIOS:
            sys.exit("unknown scenario %r (choose from %s)" % (name, ", ".join(SCENARIOS)))
    limit = support.raise_fd_limit()
    readers = int(os.environ.get("SLOW_READERS", "4000"))
    good = int(os.environ.get("GOOD_REQUESTS", "1000"))
    if limit < 2 * readers + 100:
        sys.exit("the descriptor limit (%d) is too low for %d connections on both ends" % (limit, readers))
    print("slow-reader benchmark: %s, %d slow readers, %d well-behaved requests per phase, fd limit %d"
          % (support.release_binary(), readers, good, limit))
    missed = []
    for name in names:
        missed += run(name, good, readers)
    print("targets missed: %s" % ("; ".join(missed) if missed else "none"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
