#!/usr/bin/env python3
"""The descriptor limit is part of the design: more clients than descriptors never make the
server spin or stop answering.

Runs the release `tipjar serve --port 0` (TIPJAR_BIN, else .build/release/tipjar; builds nothing)
under `ulimit -Sn 1024; ulimit -Hn 1024` (the common soft limit, with the hard limit lowered too
so that the server cannot raise it), then:
  1. expects the start-up line that names the connection cap fitted to that limit;
  2. opens CLIENTS connections from 127.0.0.1-127.0.0.4 (under the per-address cap), each sending
     the first line of a request and no more, so none is idle: more than the server has
     descriptors for (accept(2) would fail with EMFILE);
  3. once the server has answered what it could (0.3 s with under 0.03 s of CPU, or 10 s), reads its CPU
     time (utime + stime, /proc/PID/stat) over 2 s: a loop that retries a failing accept on a
     level-triggered listening socket burns up to 2 s (one core); the bound is 0.3 s;
  4. closes a third of its connections and expects a fresh connection from 127.0.0.1 to get an
     answer (200 or 503, not a timeout) within 5 s;
  5. expects SIGTERM to stop the server with exit code 0.
Then the event streams, whose budget is fitted with the connection caps: under each of `ulimit -n 1024` and
`ulimit -n 256`, a fresh server, an install, and STREAMS (1,200 from 16 addresses, 130 from 2) open
`GET /installs/{id}/events`, re-opened as an `EventSource` would whenever the server answers 503 and closes one;
meanwhile a client that is not streaming, on 127.0.0.1, makes 5 requests on fresh connections and must get 200 each
time: streams never hold every slot.
Prints one line per check and `N passed, M failed`; exits 1 on any failure. Standard library only;
about 20 s.
"""
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIMIT = 1024
CLIENTS = 1200
ADDRESSES = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"]
CPU_BOUND = 0.3


def binary():
    configured = os.environ.get("TIPJAR_BIN")
    return os.path.abspath(configured) if configured else os.path.join(ROOT, ".build", "release", "tipjar")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_of(port, timeout=5):
    """The status of GET /api/store on a fresh connection from 127.0.0.1, or 0 without an answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(("GET /api/store HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port).encode())
            data = b""
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    return 0
                data += chunk
            return int(data.split(b" ")[1])
    except (OSError, ValueError, IndexError):
        return 0


def start_server(folder, limit):
    """`tipjar serve` under `ulimit -n limit` (soft and hard) in `folder`; returns (process, port, log path)."""
    log_path = os.path.join(folder, "server-%d.log" % limit)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            ["bash", "-c", 'ulimit -Sn %d && ulimit -Hn %d && exec "$0" serve --port 0 --database "$1"' % (limit, limit),
             binary(), os.path.join(folder, "db-%d.sqlite3" % limit)],
            stdout=subprocess.PIPE, stderr=log, cwd=folder)
    banner = process.stdout.readline().decode()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
    if not match:
        process.kill()
        sys.exit("tipjar serve did not start: %r (%s)" % (banner, open(log_path).read()[-500:]))
    return process, int(match.group(1)), log_path


def create_install(port):
    """POST /api/installs; returns the new install's ID."""
    body = b'{"locale":"en","launch":true}'
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("POST /api/installs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                      "Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, len(body))).encode() + body)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    match = re.search(rb'"id"\s*:\s*"([0-9a-fA-F-]{36})"', data)
    if not match:
        sys.exit("POST /api/installs answered %r" % data[:300])
    return match.group(1).decode()


class Streams:
    """`count` event streams of one install from `addresses`, each re-opened 100 ms after the server closes it (as
    an EventSource reconnects), on a thread of their own until `stop()`."""

    def __init__(self, port, install, addresses, count):
        self.port, self.install, self.addresses, self.count = port, install, addresses, count
        self.open = {}  # slot -> socket
        self.answered = {"200": 0, "503": 0, "other": 0}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def connect(self, slot):
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5,
                                            source_address=(self.addresses[slot % len(self.addresses)], 0))
            sock.sendall(("GET /installs/%s/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n\r\n"
                          % (self.install, self.port)).encode())
            sock.setblocking(False)
            self.open[slot] = (sock, b"")
        except OSError:
            pass

    def run(self):
        for slot in range(self.count):
            self.connect(slot)
        while not self.stopping.is_set():
            closed = []
            for slot, (sock, head) in list(self.open.items()):
                try:
                    data = sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if head is not None and len(head) < 12:
                    head += data
                    if len(head) >= 12:
                        code = head[9:12].decode(errors="replace")
                        self.answered[code if code in ("200", "503") else "other"] += 1
                        head = None
                    self.open[slot] = (sock, head)
                if not data:
                    sock.close()
                    closed.append(slot)
            for slot in closed:
                del self.open[slot]
            self.stopping.wait(0.1)  # an EventSource waits before it reconnects
            for slot in closed:
                self.connect(slot)

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping.set()
        self.thread.join(30)
        for sock, _ in self.open.values():
            sock.close()


def streams_leave_room(check, folder, limit, addresses, count):
    """Under `limit`, `count` streams from `addresses` (re-opened when refused) and a client that is not streaming."""
    process, port, _ = start_server(folder, limit)
    try:
        install = create_install(port)
        streams = Streams(port, install, addresses, count)
        streams.start()
        deadline = time.time() + 10
        while time.time() < deadline and streams.answered["200"] + streams.answered["503"] < count:
            time.sleep(0.05)  # polling for the streams' first answers, at most 10 s
        statuses = [status_of(port) for _ in range(5)]
        check("ulimit -n %d, %d streams from %d addresses: a client that is not streaming is served" % (limit, count, len(addresses)),
              statuses == [200] * 5, "statuses %s (streams answered %s)" % (statuses, streams.answered))
        streams.stop()
    finally:
        process.kill()
        process.wait()


def main():
    if not os.path.exists(binary()):
        sys.exit("no release binary at %s (swift build -c release --product tipjar, or set TIPJAR_BIN)" % binary())
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < CLIENTS + 100:
        print("SKIP: this test needs %d descriptors for its own clients (hard limit %d)" % (CLIENTS + 100, hard))
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    results = []

    def check(name, ok, detail):
        results.append(ok)
        print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail), flush=True)

    with tempfile.TemporaryDirectory(prefix="tipjar-fd-limit-") as folder:
        log_path = os.path.join(folder, "server.log")
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                ["bash", "-c", 'ulimit -Sn %d && ulimit -Hn %d && exec "$0" serve --port 0 --database "$1"' % (LIMIT, LIMIT),
                 binary(), os.path.join(folder, "db.sqlite3")],
                stdout=subprocess.PIPE, stderr=log, cwd=folder)
        try:
            banner = process.stdout.readline().decode()
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
            if not match:
                sys.exit("tipjar serve did not start: %r (%s)" % (banner, open(log_path).read()[-500:]))
            port = int(match.group(1))
            with open(log_path) as f:
                cap = re.search(r"at most (\d+) connections", f.read())
            check("start-up names the fitted cap", cap is not None and int(cap.group(1)) < LIMIT,
                  cap.group(0) if cap else "no 'at most N connections' line on standard error")

            clients, refused = [], 0
            head = ("GET /api/store HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port).encode()  # never finished
            for number in range(CLIENTS):
                try:
                    sock = socket.create_connection(("127.0.0.1", port), timeout=5,
                                                    source_address=(ADDRESSES[number % len(ADDRESSES)], 0))
                    sock.sendall(head)
                    clients.append(sock)
                except OSError:
                    refused += 1
            # The connections past the cap are answered and closed as the server reaches them in its accept queue (a
            # debug build on a busy machine takes a while): the window starts once that work is done, when 0.3 s pass
            # with under 0.03 s of CPU, or after 10 s. A server that spins never gets there, and fails the window.
            deadline = time.time() + 10
            while time.time() < deadline:
                start = cpu_seconds(process.pid)
                time.sleep(0.3)
                if cpu_seconds(process.pid) - start < 0.03:
                    break
            before = cpu_seconds(process.pid)
            time.sleep(2.0)  # the measurement window, not a wait for a condition
            used = cpu_seconds(process.pid) - before
            check("no spinning at the descriptor limit", used < CPU_BOUND,
                  "%.2f s of CPU in 2 s with %d connections open (%d refused at connect), bound %.1f s"
                  % (used, len(clients), refused, CPU_BOUND))

            for sock in clients[: CLIENTS // 3]:
                sock.close()
            status = status_of(port)
            check("a fresh client is answered", status in (200, 503), "status %s (0: no answer within 5 s)" % status)
            for sock in clients[CLIENTS // 3:]:
                sock.close()
            alive = process.poll() is None
            process.send_signal(signal.SIGTERM)
            try:
                code = process.wait(15)
            except subprocess.TimeoutExpired:
                code = None
            check("SIGTERM stops it", alive and code == 0, "exit code %s" % code)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        streams_leave_room(check, folder, 1024, ["127.0.3.%d" % i for i in range(1, 17)], 1200)
        streams_leave_room(check, folder, 256, ["127.0.4.1", "127.0.4.2"], 130)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
