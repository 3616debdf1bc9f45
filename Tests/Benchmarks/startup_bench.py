#!/usr/bin/env python3
"""Start-up of the release `tipjar serve` on a large database, after a clean stop and after a crash.

    python3 Tests/Benchmarks/startup_bench.py [--installs 100000] [--deliveries 1000000] [--ci]

Seeds a database (Tests/Benchmarks/scale_seed.py: INSTALLS installs, DELIVERIES ledger rows), then:
1. clean stop: `serve` is stopped with SIGTERM (no -wal is left); the next start is timed from exec to the
   "serving" banner and to its first 200. Target: within 1 s.
2. unclean stop: a purchase, then SIGKILL (the -wal stays). The next start must open the port at once, print
   that it checks the database and its progress, answer every request with 503 and Retry-After until the
   check passed (GET /, GET /api/installs, POST /api/installs: nothing is written), then serve the
   purchase made before the kill. Timed: until the port answers, and until the banner.
Prints one line per figure and `N passed, M failed`; exits 1 on a failure. `--ci` uses 20,000 installs and
200,000 ledger rows (the check then takes a second or two). Standard library only; loopback only.
"""
import argparse
import json
import sqlite3
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import release_binary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PASSED, FAILED = [], []


def check(name, ok, detail=""):
    (PASSED if ok else FAILED).append(name)
    print(("ok   " if ok else "FAIL ") + name + (": " + detail if detail else ""), flush=True)


def request(port, method, path, body=None, timeout=5):
    """One request on a fresh connection; returns (status, headers dict, body bytes), status 0 if refused."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return 0, {}, b""
    with sock:
        data = body.encode() if body is not None else b""
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n" % (method, path, port)
        if body is not None:
            head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
        sock.sendall(head.encode() + b"\r\n" + data)
        received = b""
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
        except OSError:
            pass
    if not received.startswith(b"HTTP/1.1 "):
        return 0, {}, b""
    head, _, rest = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), fields, rest


class Serve:
    """`tipjar serve` on DATABASE and PORT; stderr lines are collected with their arrival time."""

    def __init__(self, database, port):
        self.started = time.monotonic()
        self.process = subprocess.Popen([release_binary(), "serve", "--port", str(port), "--database", database],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.errors = []
        self.banner_at = None
        self.banner = ""
        threading.Thread(target=self._read_errors, daemon=True).start()
        threading.Thread(target=self._read_banner, daemon=True).start()

    def _read_errors(self):
        for line in self.process.stderr:
            self.errors.append((time.monotonic() - self.started, line.decode(errors="replace").rstrip()))

    def _read_banner(self):
        line = self.process.stdout.readline().decode()
        self.banner, self.banner_at = line, time.monotonic() - self.started

    def wait_for_banner(self, seconds):
        deadline = time.monotonic() + seconds
        while self.banner_at is None and time.monotonic() < deadline and self.process.poll() is None:
            time.sleep(0.005)
        return self.banner_at


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--installs", type=int, default=100_000)
    parser.add_argument("--deliveries", type=int, default=1_000_000)
    parser.add_argument("--ci", action="store_true")
    args = parser.parse_args()
    if args.ci:
        args.installs, args.deliveries = 20_000, 200_000
    folder = tempfile.mkdtemp(prefix="tipjar-startup-")
    database = os.path.join(folder, "db.sqlite3")
    try:
        port = free_port()
        first = Serve(database, port)
        first.wait_for_banner(30)
        first.process.send_signal(signal.SIGTERM)
        first.process.wait(timeout=30)
        seeded = subprocess.run([sys.executable, os.path.join(HERE, "scale_seed.py"), database, "--installs", str(args.installs),
                                 "--deliveries", str(args.deliveries)], capture_output=True, text=True)
        check("seeded %d installs and %d ledger rows" % (args.installs, args.deliveries), seeded.returncode == 0, seeded.stderr[-300:])
        size_mib = os.path.getsize(database) / 1048576.0
        print("database: %.0f MiB" % size_mib, flush=True)

        # The seed's own connection leaves a -wal behind: one clean start and stop leaves the file closed cleanly.
        warm = Serve(database, port)
        warm.wait_for_banner(120)
        warm.process.send_signal(signal.SIGTERM)
        warm.process.wait(timeout=60)
        check("a clean stop leaves no -wal", not os.path.exists(database + "-wal"))

        clean = Serve(database, port)
        banner = clean.wait_for_banner(60)
        status = 0
        while status != 200 and time.monotonic() - clean.started < 60:
            status = request(port, "GET", "/")[0]
        first_200 = time.monotonic() - clean.started
        check("after a clean stop: serving within 1 s", banner is not None and banner <= 1.0,
              "banner %.3f s, first 200 %.3f s" % (banner or -1, first_200))
        created = request(port, "POST", "/api/installs", '{"locale":"en","storefront":"USA","launch":true}')
        install = json.loads(created[2] or b"{}").get("id", "")
        bought = request(port, "POST", "/api/installs/%s/purchases" % install, '{"productID":"com.example.tipjar.tip.coffee"}')
        check("a purchase before the kill", bought[0] == 200, "status %d" % bought[0])
        clean.process.send_signal(signal.SIGKILL)
        clean.process.wait()
        check("SIGKILL leaves the -wal", os.path.exists(database + "-wal"))

        crashed = Serve(database, port)
        answered_at, statuses, retry_after, api_error = None, set(), set(), None
        # A POST sent just before the gate opened can be answered by the dashboard (201) after the banner is read:
        # that install was written by an open dashboard, so it is counted, not taken for a refused write.
        created_once_open = 0
        while crashed.banner_at is None and crashed.process.poll() is None and time.monotonic() - crashed.started < 300:
            for method, path, body in (("GET", "/", None), ("GET", "/api/installs", None),
                                       ("POST", "/api/installs", '{"locale":"en","storefront":"USA"}')):
                if crashed.banner_at is not None:
                    break
                status, fields, reply = request(port, method, path, body)
                if status == 0:
                    continue
                if method == "POST" and status == 201:
                    created_once_open += 1
                answered_at = answered_at or time.monotonic() - crashed.started
                if crashed.banner_at is None:
                    statuses.add(status)
                    retry_after.add(fields.get("retry-after"))
                    if path.startswith("/api/") and status == 503:
                        api_error = json.loads(reply or b"{}").get("error")
            time.sleep(0.02)
        banner = crashed.wait_for_banner(300)
        lines = [line for _, line in crashed.errors]
        check("after a crash: the port answers at once", answered_at is not None and answered_at <= 1.0,
              "first answer %.3f s" % (answered_at or -1))
        check("after a crash: every answer before the check passed is 503 with Retry-After",
              statuses == {503} and retry_after == {"2"}, "statuses %s, Retry-After %s" % (sorted(statuses), sorted(map(str, retry_after))))
        check("after a crash: the JSON API says why", api_error is not None and "integrity_check" in api_error, str(api_error))
        check("after a crash: it says it checks, and that the check passed",
              any("was not closed cleanly" in line for line in lines) and any("passed PRAGMA integrity_check" in line for line in lines),
              " | ".join(lines[-3:])[:300])
        check("after a crash: serving once the check passed", banner is not None, "banner %.3f s" % (banner or -1))
        ledger = request(port, "GET", "/api/installs/%s/ledger" % install)
        rows = json.loads(ledger[2] or b"[]") if ledger[0] == 200 else []
        check("the purchase made before the kill is on its install's ledger", len(rows) == 1, "ledger status %d, %d rows" % (ledger[0], len(rows)))
        print("figures: database %.0f MiB; after a clean stop the first 200 came %.3f s after exec; after SIGKILL the port "
              "answered in %.3f s and the dashboard served after %.1f s" % (size_mib, first_200, answered_at or -1, banner or -1), flush=True)
        crashed.process.send_signal(signal.SIGTERM)
        crashed.process.wait(timeout=60)
        count = sqlite3.connect(database).execute("SELECT count(*) FROM installs").fetchone()[0]
        check("nothing the 503s refused was written", count == args.installs + 1 + created_once_open,
              "%d installs (%d seeded, 1 before the kill, %d answered 201 once the gate opened)" % (count, args.installs, created_once_open))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("%d passed, %d failed" % (len(PASSED), len(FAILED)))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
