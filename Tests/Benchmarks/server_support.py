"""Shared by the connection-flood benchmarks (slow_reader_bench.py, address_flood_bench.py): the
release `tipjar serve` on a free port with a temporary database, its peak RSS, a well-behaved
keep-alive client and latency percentiles. Standard library only.
"""
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def raise_fd_limit():
    """Raises RLIMIT_NOFILE to the hard limit (the server inherits it); returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def release_binary():
    """TIPJAR_BIN, else <repo>/.build/release/tipjar, built with SwiftPM if missing."""
    configured = os.environ.get("TIPJAR_BIN")
    if configured:
        return os.path.abspath(configured)
    path = os.path.join(ROOT, ".build", "release", "tipjar")
    if not os.path.exists(path):
        print("== building the release tipjar (swift build -c release --product tipjar)", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "tipjar"], cwd=ROOT, check=True)
    return path


class Server:
    """`tipjar serve --port 0` with a temporary database; the port comes from the start-up banner."""

    def __init__(self, arguments=()):
        self.folder = tempfile.mkdtemp(prefix="tipjar-flood-")
        self.log = open(os.path.join(self.folder, "server.log"), "wb")
        command = [release_binary(), "serve", "--port", "0", "--database", os.path.join(self.folder, "db.sqlite3")]
        self.process = subprocess.Popen(command + list(arguments), stdout=subprocess.PIPE, stderr=self.log)
        banner = self.process.stdout.readline().decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not match:
            self.stop()
            sys.exit("tipjar serve did not start: %r (log in %s)" % (banner, self.folder))
        self.port = int(match.group(1))

    def peak_rss_mib(self):
        """VmHWM of the server process, in MiB."""
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def access_log_lines(self):
        """Responses the server has logged so far (one access-log line each, on stderr)."""
        self.log.flush()
        with open(self.log.name, "rb") as f:
            return sum(1 for line in f if b" status=" in line)

    def cpu_seconds(self):
        """User plus system CPU time of the server so far (from /proc/PID/stat)."""
        with open("/proc/%d/stat" % self.process.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def read_response(sock):
    """Reads one response with Content-Length; returns its status (0 if the connection ended first)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return 0
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return 0
        body += chunk
    return int(lines[0].split()[1])


class Client:
    """A well-behaved client from 127.0.0.1: one request at a time, reads every answer, keeps the
    connection alive and reconnects when the server closes it. Every request counts: a 200 is a
    success, anything else (another status, a refused or dropped connection, 5 s without an
    answer) a failure."""

    def __init__(self, port, path, headers=""):
        self.port, self.path = port, path
        self.request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n" % (path, port, headers)).encode()
        self.sock = None
        # `latencies` (of 200s) may be reset between phases; the counts cover every request.
        self.latencies, self.succeeded, self.failures, self.statuses, self.retries = [], 0, 0, {}, 0

    def one(self, fresh=False):
        started = time.monotonic()
        status = 0
        if fresh:
            self.close()
        reused = self.sock is not None
        for _ in range(2):
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.sendall(self.request)
                status = read_response(self.sock)
            except OSError:
                status = 0
            if status or not reused:
                break
            # The server closed a kept-alive connection between two requests: like any HTTP
            # client (RFC 9112 §9.3.1), retry once on a new connection (counted in `retries`).
            self.retries += 1
            self.close()
            reused = False
        elapsed = time.monotonic() - started
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status == 200:
            self.latencies.append(elapsed)
            self.succeeded += 1
        else:
            self.failures += 1
            self.close()

    def run(self, count, fresh_every=10):
        for i in range(count):
            self.one(fresh=(i % fresh_every == 0))

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def summary(self):
        total = self.succeeded + self.failures
        return {
            "requests": total,
            "success": 100.0 * self.succeeded / total if total else 0.0,
            "p50": percentile(self.latencies, 50) * 1000,
            "p99": percentile(self.latencies, 99) * 1000,
            "statuses": dict(sorted(self.statuses.items())),
            "retries": self.retries,
        }


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100.0 * (len(ordered) - 1))))]


def established(port, peer=None):
    """Server-side ESTABLISHED TCP connections on 127.0.0.1:port (from /proc/net/tcp), all of them
    or only those whose client is the IPv4 address `peer`."""
    local = ":%04X" % port
    remote = "%08X:" % int.from_bytes(socket.inet_aton(peer), "little") if peer else ""
    count = 0
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            if fields[1].endswith(local) and fields[2].startswith(remote) and fields[3] == "01":
                count += 1
    return count


def tcp_memory_mib():
    """Kernel memory in TCP buffers, all sockets (from /proc/net/sockstat; pages of 4 KiB)."""
    try:
        with open("/proc/net/sockstat") as f:
            for line in f:
                if line.startswith("TCP:"):
                    fields = line.split()
                    return int(fields[fields.index("mem") + 1]) * 4 / 1024.0
    except (OSError, ValueError):
        pass
    return float("nan")
