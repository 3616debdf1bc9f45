#!/usr/bin/env python3
"""What live event streams on other installs cost a purchase: server CPU per purchase on install A with N other
installs' pages open (each a `GET /installs/{id}/events` stream, an `EventSource`, from 4 client addresses), against
none open, measured in the same round.

For each round and each N of COUNTS (default 0, 64 and 200), the streams of the first N other installs (each on an
Apple Account of its own) are opened and each is read up to its first event; then PURCHASES (default 300) purchases
of install A are made one after another on one keep-alive connection (POST /api/installs/{id}/purchases), and the
server's CPU time (user + system, /proc/PID/stat) over them is divided by their number. The streams are read all
along, so the server never holds what it sends. A round's ratio is its CPU per purchase with N open over the same
round's with none open; the figure quoted is the median of ROUNDS (default 3) rounds. The machine may be shared with
other work: compare the ratios, not the microseconds.

Then, with the largest N still open, a stream on install A itself: for 30 purchases, the time from each purchase's
answer to the next event on A's stream (p50, p90; 0 when the event came first), so a watched install is seen to get
its event.

  python3 Tests/Benchmarks/live_streams_bench.py

Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar, built if missing), COUNTS, PURCHASES, ROUNDS,
RATIO_TARGET (default 1.5: exit 1 when the largest N's median ratio is above it), LATENCY_TARGET_MS (default 50: exit 1
when the p90 is above it). `serve --durability normal`. Loopback only; raises the descriptor limit itself. Standard
library only.
"""
import http.client
import json
import os
import select
import socket
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_support as support  # noqa: E402

ADDRESSES = ["127.0.3.%d" % i for i in range(1, 5)]
PRODUCT = "com.example.tipjar.tip.coffee"


def create_install(port, account=None):
    """A launched install (on a new account unless `account` is given); returns (id, accountID)."""
    body = {"locale": "en", "launch": True}
    if account:
        body["accountID"] = account
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/api/installs", json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    if response.status != 201 and response.status != 200:
        sys.exit("creating an install answered %d: %r" % (response.status, answer))
    return answer["id"], answer.get("accountID")


class Streams:
    """Open `GET /installs/{id}/events` streams, read by one thread; counts the events each received."""

    def __init__(self, port):
        self.port = port
        self.poller = select.poll()
        self.sockets = {}  # fd -> (socket, install ID)
        self.events = {}  # install ID -> events received
        self.event_times = {}  # install ID -> arrival time of each event
        self.buffers = {}
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def open(self, install_id, slot):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10, source_address=(ADDRESSES[slot % len(ADDRESSES)], 0))
        s.sendall(("GET /installs/%s/events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n\r\n" % (install_id, self.port)).encode())
        s.setblocking(False)
        with self.lock:
            self.sockets[s.fileno()] = (s, install_id)
            self.events.setdefault(install_id, 0)
            self.event_times.setdefault(install_id, [])
            self.buffers[s.fileno()] = b""
            self.poller.register(s.fileno(), select.POLLIN)

    def read(self):
        while self.running:
            for fd, _ in self.poller.poll(50):
                with self.lock:
                    entry = self.sockets.get(fd)
                if not entry:
                    continue
                s, install_id = entry
                try:
                    data = s.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    self.close_fd(fd)
                    continue
                now = time.monotonic()
                buffer = self.buffers[fd] + data
                count = buffer.count(b"event: live")
                self.buffers[fd] = buffer[-16:]
                if count:
                    with self.lock:
                        self.events[install_id] += count
                        self.event_times[install_id].append(now)

    def close_fd(self, fd):
        with self.lock:
            entry = self.sockets.pop(fd, None)
        if entry:
            self.poller.unregister(fd)
            entry[0].close()

    def close_all(self):
        for fd in list(self.sockets):
            self.close_fd(fd)

    def count(self, install_id):
        with self.lock:
            return self.events.get(install_id, 0)

    def wait_for_first_events(self, install_ids, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(self.count(i) >= 1 for i in install_ids):
                return
            time.sleep(0.02)
        sys.exit("not every stream got its first event in %d s" % timeout)

    def stop(self):
        self.running = False
        self.thread.join()
        self.close_all()


def purchase(connection, install_id):
    connection.request(
        "POST", "/api/installs/%s/purchases" % install_id, json.dumps({"productID": PRODUCT}), {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status >= 300:
        sys.exit("a purchase answered %d" % response.status)


def cpu_per_purchase(server, port, install_id, purchases):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(10):  # warm-up
        purchase(connection, install_id)
    before = server.cpu_seconds()
    for _ in range(purchases):
        purchase(connection, install_id)
    after = server.cpu_seconds()
    connection.close()
    return (after - before) * 1e6 / purchases


def main():
    support.raise_fd_limit()
    counts = [int(c) for c in os.environ.get("COUNTS", "0 64 200").split()]
    purchases = int(os.environ.get("PURCHASES", "300"))
    rounds = int(os.environ.get("ROUNDS", "3"))
    ratio_target = float(os.environ.get("RATIO_TARGET", "1.5"))
    latency_target = float(os.environ.get("LATENCY_TARGET_MS", "50"))
    server = support.Server(["--durability", "normal"])
    try:
        port = server.port
        buyer, _ = create_install(port)
        others = [create_install(port)[0] for _ in range(max(counts))]
        print("server CPU per purchase on install A (µs), N other installs' live streams open, %d purchases each, %d rounds"
              % (purchases, rounds))
        print("%6s %s" % ("N", " ".join("%10s" % ("round %d" % (r + 1)) for r in range(rounds))))
        results = {n: [] for n in counts}
        for _ in range(rounds):
            for n in counts:
                streams = Streams(port)
                for slot, install_id in enumerate(others[:n]):
                    streams.open(install_id, slot)
                streams.wait_for_first_events(others[:n])
                results[n].append(cpu_per_purchase(server, port, buyer, purchases))
                streams.stop()
        for n in counts:
            print("%6d %s" % (n, " ".join("%10.0f" % v for v in results[n])))
        base = results[counts[0]]
        summary = {}
        for n in counts[1:]:
            ratios = [v / b for v, b in zip(results[n], base)]
            summary[n] = statistics.median(ratios)
            print("N=%d: median ratio to N=%d %.2fx (rounds: %s)" % (n, counts[0], summary[n], " ".join("%.2f" % r for r in ratios)))

        largest = max(counts)
        streams = Streams(port)
        for slot, install_id in enumerate(others[:largest]):
            streams.open(install_id, slot)
        streams.open(buyer, largest)
        streams.wait_for_first_events(others[:largest] + [buyer])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        latencies = []
        for _ in range(30):
            seen = streams.count(buyer)
            purchase(connection, buyer)
            answered = time.monotonic()
            end = answered + 5
            while streams.count(buyer) <= seen and time.monotonic() < end:
                time.sleep(0.0005)
            with streams.lock:
                arrived = streams.event_times[buyer][seen] if len(streams.event_times[buyer]) > seen else None
            if arrived is None:
                sys.exit("install A's stream got no event within 5 s of a purchase's answer")
            latencies.append(max(0.0, arrived - answered) * 1000)
            time.sleep(0.02)  # the next purchase after this event, not in its burst
        connection.close()
        others_events = sum(streams.count(i) for i in others[:largest])
        streams.stop()
        latencies.sort()
        p90 = latencies[int(0.9 * (len(latencies) - 1))]
        print("watched install A, %d other streams open: event after the purchase's answer p50 %.1f ms, p90 %.1f ms; "
              "events on the other %d streams during those purchases: %d (their first ones included)"
              % (largest, statistics.median(latencies), p90, largest, others_events))
        failed = []
        if largest in summary and summary[largest] > ratio_target:
            failed.append("N=%d costs %.2fx the CPU per purchase of N=%d (target %.2fx)" % (largest, summary[largest], counts[0], ratio_target))
        if p90 > latency_target:
            failed.append("p90 %.1f ms above %.0f ms" % (p90, latency_target))
        for line in failed:
            print("FAIL: " + line)
        return 1 if failed else 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
