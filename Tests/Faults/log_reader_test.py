#!/usr/bin/env python3
"""Losing the log's reader never stops the server.

Runs the release `tipjar serve --port 0` (TIPJAR_BIN, else .build/release/tipjar; this script builds
nothing) with standard output and standard error into one pipe, twice:
  a. `tipjar serve 2>&1 | head -3`: the pipe is read for three lines, then its read end is closed,
     so every later log write fails with EPIPE (pipe(7); SIGPIPE is ignored by the server);
  b. a pipe that is never read after the banner, so it fills (64 KiB) and stays full.
Each time it sends REQUESTS requests over a few keep-alive connections and checks that every one is
answered (5 s each at most), that the process is still alive, and that SIGTERM still stops it with
exit code 0. In (b) it then reads the pipe again (the server's log buffer holds 256 KiB, so
some of the 5,000 access-log lines were dropped) and expects one line that reports how many, and
the lines logged plus those reported dropped to be one per request. Prints one line per case and `N passed, M failed`; exits 1 on any failure.
Standard library only; about 5 s.
"""
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REQUESTS = int(os.environ.get("LOG_READER_REQUESTS", "5000"))
CONNECTIONS = 4


def binary():
    configured = os.environ.get("TIPJAR_BIN")
    return os.path.abspath(configured) if configured else os.path.join(ROOT, ".build", "release", "tipjar")


def read_line(fd, pending, deadline):
    """One line from the pipe `fd` (bytes kept in `pending`), or None at the deadline or EOF."""
    while b"\n" not in pending[0]:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return None
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        pending[0] += chunk
    line, _, pending[0] = pending[0].partition(b"\n")
    return line.decode(errors="replace")


def start(folder):
    """The server with stdout and stderr into one pipe; returns (process, read end, port, lines read)."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen([binary(), "serve", "--port", "0", "--database", os.path.join(folder, "db.sqlite3")],
                               stdout=write_end, stderr=write_end, cwd=folder)
    os.close(write_end)
    pending, lines, port = [b""], [], None
    deadline = time.monotonic() + 20
    while port is None:
        line = read_line(read_end, pending, deadline)
        if line is None:
            process.kill()
            sys.exit("tipjar serve did not print its banner: %r" % lines)
        lines.append(line)
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if match:
            port = int(match.group(1))
    return process, read_end, port, lines


def answered(port, count):
    """Sends `count` GET requests over CONNECTIONS keep-alive connections; returns how many got a 200."""
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(CONNECTIONS)]
    request = ("GET /api/store HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port).encode()
    buffers = [b""] * CONNECTIONS
    ok = 0
    try:
        for number in range(count):
            index = number % CONNECTIONS
            sock = sockets[index]
            sock.sendall(request)
            data = buffers[index]
            while True:
                head_end = data.find(b"\r\n\r\n")
                if head_end >= 0:
                    head = data[:head_end].decode(errors="replace")
                    length = int(re.search(r"(?i)content-length:\s*(\d+)", head).group(1))
                    if len(data) >= head_end + 4 + length:
                        break
                chunk = sock.recv(65536)  # socket.timeout after 5 s: the server froze
                if not chunk:
                    return ok
                data += chunk
            if head.startswith("HTTP/1.1 200"):
                ok += 1
            buffers[index] = data[head_end + 4 + length:]
    except OSError:
        return ok
    finally:
        for sock in sockets:
            sock.close()
    return ok


def stop(process):
    """SIGTERM; the exit code, or None if the server did not stop within 10 s (then SIGKILLed)."""
    if process.poll() is not None:
        return process.returncode
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


def case_reader_closed(folder):
    process, read_end, port, lines = start(folder)
    pending, deadline = [b""], time.monotonic() + 2
    while len(lines) < 3:  # head -3
        line = read_line(read_end, pending, deadline)
        if line is None:
            break
        lines.append(line)
    os.close(read_end)
    ok = answered(port, REQUESTS)
    alive = process.poll() is None
    code = stop(process)
    problems = []
    if ok != REQUESTS:
        problems.append("%d of %d requests answered" % (ok, REQUESTS))
    if not alive:
        problems.append("the server died (exit code %s, %s)" % (process.returncode, describe(process.returncode)))
    elif code != 0:
        problems.append("SIGTERM gave exit code %s (%s)" % (code, describe(code)))
    return problems


def case_reader_stopped(folder):
    process, read_end, port, _ = start(folder)
    ok = answered(port, REQUESTS)
    alive = process.poll() is None
    problems = []
    if ok != REQUESTS:
        problems.append("%d of %d requests answered" % (ok, REQUESTS))
    if not alive:
        problems.append("the server died (exit code %s, %s)" % (process.returncode, describe(process.returncode)))
    # The reader is back: what was waiting is written, then one line counts what was dropped; the
    # rest comes at shutdown. Every request is either logged or counted.
    process.send_signal(signal.SIGTERM)
    pending, deadline, logged, dropped, reports = [b""], time.monotonic() + 15, 0, 0, 0
    while True:
        line = read_line(read_end, pending, deadline)
        if line is None:
            break
        if " status=" in line:
            logged += 1
        report = re.search(r"(\d+) log lines dropped", line)
        if report:
            reports += 1
            dropped += int(report.group(1))
    os.close(read_end)
    code = stop(process)
    if alive and reports == 0:
        problems.append("no line reported dropped access-log lines once the pipe was read (%d logged)" % logged)
    if alive and logged + dropped != REQUESTS:
        problems.append("%d lines logged + %d reported dropped != %d requests" % (logged, dropped, REQUESTS))
    if alive and code != 0:
        problems.append("SIGTERM gave exit code %s (%s)" % (code, describe(code)))
    print("     %d access-log lines written, %d reported dropped in %d line(s)" % (logged, dropped, reports), flush=True)
    return problems


def describe(code):
    if code is None:
        return "still running after 10 s"
    if code < 0:
        return "killed by " + signal.Signals(-code).name
    return "exited"


def main():
    if not os.path.exists(binary()):
        sys.exit("no release binary at %s (swift build -c release --product tipjar, or set TIPJAR_BIN)" % binary())
    passed = failed = 0
    for name, case in [("reader closed after 3 lines (| head -3)", case_reader_closed),
                       ("reader never reads (the pipe fills)", case_reader_stopped)]:
        with tempfile.TemporaryDirectory(prefix="tipjar-log-reader-") as folder:
            problems = case(folder)
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, "; ".join(problems)), flush=True)
        else:
            passed += 1
            print("ok   %s: %d requests answered, server alive, SIGTERM exit 0" % (name, REQUESTS), flush=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
