#!/usr/bin/env python3
"""How often an idle `tipjar serve` wakes: the context switches of every thread of the server over SECONDS (default
10 s) with no client, read from /proc/PID/task/TID/status (`voluntary_ctxt_switches` + `nonvoluntary_ctxt_switches`,
proc(5)): a thread that sleeps in `epoll_wait`, a futex or a timer and wakes counts one switch each time it goes back
to sleep. Two cases, each a new server on a new database: no notifications URL, and `--notifications-url` pointing at
a closed port on 127.0.0.1 (nothing queued, so the sender has nothing to send).

Each case waits SETTLE seconds (default 3 s) after the server answered its first request (start-up, the background
integrity check of a new database), then reads every thread twice, SECONDS apart, and prints the wake-ups per second of
each thread (by name, /proc/PID/task/TID/comm) and of all of them. Exits 1 when a case's total is above TARGET
(default 5 per second). The machine may be shared: another process's load adds involuntary switches.

  python3 Tests/Benchmarks/idle_wakeups_bench.py

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing), SECONDS, SETTLE, TARGET. Standard
library only.
"""
import http.client
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_support as support  # noqa: E402


def switches(pid):
    """{thread ID: (name, context switches so far)} for every thread of `pid`."""
    threads = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            count = 0
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        count += int(line.split()[1])
            threads[tid] = (name, count)
        except FileNotFoundError:
            continue  # the thread ended meanwhile
    return threads


def measure(name, arguments, seconds, settle):
    server = support.Server(arguments)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/api/store")
        connection.getresponse().read()
        connection.close()
        time.sleep(settle)
        before = switches(server.process.pid)
        time.sleep(seconds)
        after = switches(server.process.pid)
    finally:
        server.stop()
    rows = []
    for tid, (thread, count) in after.items():
        start = before.get(tid, (thread, 0))[1]
        rows.append((thread, tid, (count - start) / seconds))
    rows.sort(key=lambda row: -row[2])
    total = sum(row[2] for row in rows)
    print("%s: %.1f wake-ups/s over %g s, %d threads" % (name, total, seconds, len(rows)))
    for thread, tid, rate in rows:
        if rate > 0:
            print("    %-24s tid %-8s %.1f/s" % (thread, tid, rate))
    return total


def main():
    seconds = float(os.environ.get("SECONDS", "10"))
    settle = float(os.environ.get("SETTLE", "3"))
    target = float(os.environ.get("TARGET", "5"))
    cases = [
        ("idle, no notifications URL", []),
        ("idle, --notifications-url http://127.0.0.1:9/", ["--notifications-url", "http://127.0.0.1:9/"]),
    ]
    failed = []
    for name, arguments in cases:
        total = measure(name, arguments, seconds, settle)
        if total > target:
            failed.append("%s: %.1f wake-ups/s, target %g" % (name, total, target))
    for line in failed:
        print("FAIL: " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
