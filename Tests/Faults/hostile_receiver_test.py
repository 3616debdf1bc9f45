#!/usr/bin/env python3
"""No receiver can take the dashboard down: `tipjar serve` posts App Store Server Notifications V2 to a receiver of
this script's (raw sockets on 127.0.0.1) that answers as one hostile or broken server would, one mode a case. Each
case buys a tip, waits for the notification's first attempt to end (GET /api/notifications), and checks

- the attempt's `sendAttemptResult` (Apple's names, https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult;
  the mapping is Sources/TipJarDashboard/Notifications/SocketNotificationHop.swift's and NotificationTransport.swift's),
- that the server still answers,
- the server's CPU time over the case: a receiver that holds the attempt (silence, one byte a second) costs no CPU
  while it waits, since every wait is poll(2) with the attempt's 5 s deadline.

Then the restart case: a server killed with SIGKILL while its posts are under way, restarted on the same database
against a redirect loop, stays up; each notification shows the cut attempt (OTHER) and the loop's CIRCULAR_REDIRECT.

    TIPJAR_BIN=.build/debug/tipjar python3 Tests/Faults/hostile_receiver_test.py
Prints 'N passed, M failed' and exits non-zero on a failure. Standard library only.
"""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BIN = os.environ.get("TIPJAR_BIN") or os.path.join(ROOT, ".build", "debug", "tipjar")
PRODUCT = "com.example.tipjar.tip.coffee"
ATTEMPT_TIMEOUT = 5.0  # NotificationSender's attemptTimeout
# A waiting attempt may cost at most this much server CPU (the purchase and its writes included); before the sender
# had a socket client of its own, a silent receiver cost 3.4 s of CPU in 4 s.
WAIT_CPU_BOUND = 0.5


def read_request(conn):
    """(path, body) of one request, as far as Content-Length says; None if the client went away first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return path, body


def status(code, extra=""):
    return ("HTTP/1.1 %d Status\r\nContent-Length: 0\r\nConnection: close\r\n%s\r\n" % (code, extra)).encode()


class Receiver:
    """A developer's server on an ephemeral port that answers every request as `mode` says."""

    def __init__(self, mode):
        self.mode = mode
        self.requests = []  # (path, body)
        self.held = []
        self.lock = threading.Lock()
        self.stopped = False
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept_loop, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d/hook" % self.port

    def accept_loop(self):
        while not self.stopped:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        request = read_request(conn)
        if request is None:
            conn.close()
            return
        with self.lock:
            self.requests.append(request)
            number = len(self.requests) - 1
        path = request[0]
        mode = self.mode
        try:
            if mode == "ok":
                conn.sendall(status(200))
            elif mode == "redirect_loop":
                conn.sendall(status(307, "Location: %s\r\n" % path))
            elif mode == "redirect_302_to_itself":
                conn.sendall(status(302, "Location: %s\r\n" % path))
            elif mode == "long_chain":
                conn.sendall(status(308, "Location: /hop%d\r\n" % number))
            elif mode == "redirect_then_ok":
                conn.sendall(status(307, "Location: /final\r\n") if path != "/final" else status(200))
            elif mode == "redirect_to_metadata":
                conn.sendall(status(307, "Location: http://169.254.169.254/latest/meta-data/\r\n"))
            elif mode == "silence":
                with self.lock:
                    self.held.append(conn)
                return
            elif mode == "trickle":
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
                    conn.sendall(bytes([byte]))
                    time.sleep(1)
            elif mode == "huge_body":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
                chunk = b"x" * (1 << 20)
                for _ in range(1024):
                    conn.sendall(chunk)
            elif mode == "huge_headers":
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                line = b"X-Filler: " + b"y" * 1000 + b"\r\n"
                for _ in range(100 * 1024):  # 100 MB of field lines
                    conn.sendall(line)
            elif mode == "http09":
                conn.sendall(b"<html><body>an HTTP/0.9 answer has no status line</body></html>")
            elif mode == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            elif mode == "close":
                pass
        except OSError:
            pass  # the dashboard hung up: what a bounded reader does
        conn.close()

    def stop(self):
        self.stopped = True
        with self.lock:
            for conn in self.held:
                conn.close()
            self.held = []
        self.listener.close()


class Dashboard:
    """`tipjar serve --port 0` on `database`; the port comes from the banner."""

    def __init__(self, database, arguments=()):
        self.log = open(database + ".log", "ab")
        self.process = subprocess.Popen(
            [BIN, "serve", "--port", "0", "--database", database] + list(arguments), stdout=subprocess.PIPE, stderr=self.log)
        banner = self.process.stdout.readline().decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not match:
            self.kill()
            sys.exit("tipjar serve did not start: %r (log %s.log)" % (banner, database))
        self.port = int(match.group(1))

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.process.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def alive(self):
        if self.process.poll() is not None:
            return False
        return self.request("GET", "/api/store")[0] == 200

    def purchase(self):
        status_code, install = self.request("POST", "/api/installs", {"accountID": "ana", "launch": True})
        assert status_code == 201 or status_code == 200, (status_code, install)
        status_code, answer = self.request("POST", "/api/installs/%s/purchases" % install["id"], {"productID": PRODUCT})
        assert status_code == 200, (status_code, answer)

    def newest(self):
        status_code, page = self.request("GET", "/api/notifications?limit=1")
        return page[0] if status_code == 200 and page else None

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_for(condition, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return condition()


# mode: (expected sendAttemptResult, whether the attempt waits for the deadline)
CASES = {
    "ok": ("SUCCESS", False),
    "redirect_then_ok": ("SUCCESS", False),
    "redirect_loop": ("CIRCULAR_REDIRECT", False),
    "redirect_302_to_itself": ("UNSUCCESSFUL_HTTP_RESPONSE_CODE", False),
    "long_chain": ("CIRCULAR_REDIRECT", False),
    "redirect_to_metadata": ("OTHER", False),
    "silence": ("TIMED_OUT", True),
    "trickle": ("TIMED_OUT", True),
    "huge_body": ("SUCCESS", False),
    "huge_headers": ("INVALID_RESPONSE", False),
    "http09": ("INVALID_RESPONSE", False),
    "reset": ("PREMATURE_CLOSE", False),
    "close": ("PREMATURE_CLOSE", False),
    "refused": ("NO_RESPONSE", False),
}


def main():
    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""), flush=True)
        if ok:
            passed += 1
        else:
            failed += 1

    folder = tempfile.mkdtemp(prefix="tipjar-hostile-")
    dashboard = Dashboard(os.path.join(folder, "cases.sqlite3"))
    try:
        for mode, (expected, waits) in CASES.items():
            if mode == "refused":
                # A port bound and never listened on refuses every connection, and no other process can take it meanwhile.
                reserved = socket.socket()
                reserved.bind(("127.0.0.1", 0))
                url, receiver = "http://127.0.0.1:%d/hook" % reserved.getsockname()[1], None
            else:
                receiver = Receiver(mode)
                url = receiver.url
            code, _ = dashboard.request("PUT", "/api/notifications/settings", {"url": url, "timeScale": 1})
            check("%s: the URL is saved" % mode, code == 200, str(code))
            previous = dashboard.newest()
            cpu_before, started = dashboard.cpu_seconds(), time.time()
            dashboard.purchase()

            def ended():
                item = dashboard.newest()
                if not item or (previous and item["id"] == previous["id"]):
                    return None
                attempts = [a for a in item["sendAttempts"] if not a["underWay"]]
                return attempts[0] if attempts else None

            attempt = wait_for(ended, timeout=ATTEMPT_TIMEOUT + 20)
            elapsed, cpu = time.time() - started, dashboard.cpu_seconds() - cpu_before
            result = attempt["sendAttemptResult"] if attempt else None
            check("%s: the attempt is %s" % (mode, expected), result == expected,
                  "got %s (%s)" % (result, attempt.get("detail") if attempt else "no attempt ended"))
            check("%s: the server still answers" % mode, dashboard.alive())
            if waits:
                check("%s: %.1f s of waiting cost %.3f s of server CPU (bound %.1f s)" % (mode, elapsed, cpu, WAIT_CPU_BOUND),
                      elapsed >= ATTEMPT_TIMEOUT - 0.5 and cpu <= WAIT_CPU_BOUND)
            if mode in ("redirect_then_ok",):
                paths = [path for path, _ in receiver.requests]
                check("%s: the body reached the 307's target" % mode, paths[-1] == "/final" and receiver.requests[-1][1] == receiver.requests[0][1], str(paths))
            if receiver:
                receiver.stop()
            else:
                reserved.close()
    finally:
        dashboard.stop()

    # SIGKILL while posts are under way, then a restart against a redirect loop on the same database.
    database = os.path.join(folder, "restart.sqlite3")
    silent = Receiver("silence")
    dashboard = Dashboard(database, ["--notifications-url", silent.url, "--notification-time-scale", "1"])
    for _ in range(3):
        dashboard.purchase()
    check("kill -9: three posts are under way", bool(wait_for(lambda: len(silent.requests) == 3, 20)), str(len(silent.requests)))
    dashboard.kill()
    silent.stop()
    loop = Receiver("redirect_loop")
    for start in range(2):
        dashboard = Dashboard(database, ["--notifications-url", loop.url, "--notification-time-scale", "3600000"])

        def all_failed():
            code, page = dashboard.request("GET", "/api/notifications")
            return page if code == 200 and len(page) == 3 and all(item["state"] == "failed" for item in page) else None

        page = wait_for(all_failed, 60)
        check("restart %d: every notification ran its retries out and the server stays up" % (start + 1), bool(page) and dashboard.alive())
        if page and start == 0:
            for item in page:
                results = [a["sendAttemptResult"] for a in item["sendAttempts"]]
                check("notification %d: the attempt cut by SIGKILL is on record as OTHER, then the loop's five retries" % item["id"],
                      results == ["OTHER"] + ["CIRCULAR_REDIRECT"] * 5 and "stopped" in (item["sendAttempts"][0].get("detail") or ""),
                      str(results))
        dashboard.stop()
    loop.stop()

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
