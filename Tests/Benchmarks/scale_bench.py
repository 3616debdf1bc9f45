#!/usr/bin/env python3
"""Scale benchmark, driven by scale_bench.sh. Standard library only.

1. `tipjar serve` creates the schema on a new temporary database, then is stopped;
   scale_seed.py fills it with 100,000 installs and 1,000,000 ledger rows (one install with 1,000).
2. The release server runs on it (`--durability full`) and this script measures, with sequential
   keep-alive requests (http.client), p50/p99 ms of `/installs` pages (page 1, page 50, an install
   ID prefix search, `?hearts=3`) and of `/installs/{id}` for the install with 1,000 ledger rows.
3. Purchases per second through `POST /api/installs/{id}/purchases`: CLIENTS keep-alive
   connections (wrk when installed, else Python threads), each on its own new install, for
   SECONDS, at `--durability full` and then (server restarted on the same file) at `--durability normal`.
4. The raw SQLite ceiling in the same run and folder: a loop of one-row INSERT transactions, WAL,
   synchronous FULL / NORMAL, for SECONDS each.
Prints every figure and the ratios; the targets are page p99 <= 10 ms and purchases at FULL >= 1.0x
the one-row-transaction ceiling.
"""
import argparse
import http.client
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PRODUCTS = ["com.example.tipjar.tip.coffee", "com.example.tipjar.tip.snack", "com.example.tipjar.tip.lunch"]


def percentile(samples, p):
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    return ordered[max(0, math.ceil(p / 100.0 * len(ordered)) - 1)]


class Server:
    def __init__(self, binary, database, durability, log_path, timeout=300):
        self.log = open(log_path, "ab")
        started = time.time()
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--database", database, "--durability", durability],
                                        stdout=subprocess.PIPE, stderr=self.log)
        result = {}
        reader = threading.Thread(target=lambda: result.setdefault("line", self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        match = re.search(rb"http://127\.0\.0\.1:(\d+)/", result.get("line", b""))
        if not match:
            self.kill()
            raise SystemExit("scale_bench: the server did not start on %s within %d s (see %s)" % (database, timeout, log_path))
        self.port = int(match.group(1))
        self.startup_seconds = time.time() - started
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def peak_rss_mib(self):
        try:
            with open("/proc/%d/status" % self.process.pid) as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return float("nan")

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()


def call(conn, method, path, body=None):
    headers = {}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


def measure_page(port, path, count, warmup=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(warmup):
        call(conn, "GET", path)
    samples, sizes, statuses = [], set(), {}
    for _ in range(count):
        started = time.perf_counter()
        status, body = call(conn, "GET", path)
        samples.append((time.perf_counter() - started) * 1000.0)
        statuses[status] = statuses.get(status, 0) + 1
        sizes.add(len(body))
    conn.close()
    return samples, statuses, sizes


def new_installs(port, clients):
    """One new, launched install per client (an install allows one open purchase at a time)."""
    setup = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    installs = []
    for index in range(clients):
        status, body = call(setup, "POST", "/api/installs", {"locale": "en", "launch": True, "label": "bench client %d" % index})
        if status != 201:
            raise SystemExit("scale_bench: POST /api/installs answered %d: %r" % (status, body[:200]))
        installs.append(json.loads(body)["id"])
    setup.close()
    return installs


def wrk_milliseconds(text):
    """A wrk latency such as 812.00us, 2.23ms or 1.10s, in milliseconds."""
    match = re.match(r"([0-9.]+)(us|ms|s)$", text)
    if not match:
        return float("nan")
    return float(match.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[match.group(2)]


def purchases(port, clients, seconds):
    """CLIENTS keep-alive connections, each buying tips for its own new install: with wrk (one
    thread per connection) when it is installed, which keeps the load generator's CPU small,
    else with Python threads (which saturate first, near 2,700 purchases/s on 2 cores)."""
    installs = new_installs(port, clients)
    if shutil.which("wrk"):
        return purchases_with_wrk(port, installs, seconds)
    return purchases_with_threads(port, installs, seconds)


def purchases_with_wrk(port, installs, seconds):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write("local ids = {%s}\n" % ", ".join('"%s"' % i for i in installs))
    script.write("local products = {%s}\n" % ", ".join('"%s"' % p for p in PRODUCTS))
    script.write("""
local next_index = 0
function setup(thread) next_index = next_index + 1; thread:set("id", ids[next_index]) end
local n = 0
function request()
  n = n + 1
  return wrk.format("POST", "/api/installs/" .. id .. "/purchases", {["Content-Type"] = "application/json"},
                    '{"productID":"' .. products[n % #products + 1] .. '"}')
end
""")
    script.close()
    try:
        out = subprocess.run(["wrk", "-t%d" % len(installs), "-c%d" % len(installs), "-d%ds" % max(1, round(seconds)), "--latency",
                              "-s", script.name, "http://127.0.0.1:%d" % port], check=True, stdout=subprocess.PIPE, text=True).stdout
    finally:
        os.remove(script.name)
    per_second = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    total = int(re.search(r"([0-9]+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: ([0-9]+)", out)
    bad = int(non2xx.group(1)) if non2xx else 0
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    return {"perSecond": per_second * (total - bad) / total if total else 0.0, "purchased": total - bad,
            "other": {"non-2xx": bad} if bad else {}, "p50": wrk_milliseconds(p50.group(1)) if p50 else float("nan"),
            "p99": wrk_milliseconds(p99.group(1)) if p99 else float("nan"), "seconds": seconds, "driver": "wrk"}


def purchases_with_threads(port, installs, seconds):
    clients = len(installs)
    barrier = threading.Barrier(clients + 1)
    results = [None] * clients
    deadline = {}

    def client(index):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        path = "/api/installs/%s/purchases" % installs[index]
        ok, other, latencies, n = 0, {}, [], 0
        barrier.wait()
        while time.perf_counter() < deadline["at"]:
            started = time.perf_counter()
            status, body = call(conn, "POST", path, {"productID": PRODUCTS[n % 3]})
            latencies.append((time.perf_counter() - started) * 1000.0)
            n += 1
            if 200 <= status < 300 and json.loads(body).get("outcome") == "purchased":
                ok += 1
            else:
                other[status] = other.get(status, 0) + 1
        conn.close()
        results[index] = (ok, other, latencies)

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    deadline["at"] = time.perf_counter() + seconds
    started = time.perf_counter()
    barrier.wait()
    for thread in threads:
        thread.join(seconds + 60)
    elapsed = time.perf_counter() - started
    ok = sum(r[0] for r in results if r)
    other = {}
    for r in results:
        for k, v in (r[1] if r else {}).items():
            other[k] = other.get(k, 0) + v
    latencies = [x for r in results if r for x in r[2]]
    return {"perSecond": ok / elapsed, "purchased": ok, "other": other, "p50": percentile(latencies, 50),
            "p99": percentile(latencies, 99), "seconds": elapsed, "driver": "python threads"}


def raw_ceiling(folder, synchronous, seconds):
    """One-row INSERT transactions in a loop: WAL, synchronous=FULL/NORMAL, foreign_keys on."""
    path = os.path.join(folder, "ceiling-%s.sqlite3" % synchronous.lower())
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = %s" % synchronous)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("""CREATE TABLE deliveries (id INTEGER PRIMARY KEY, install_id TEXT NOT NULL, transaction_id INTEGER NOT NULL,
                  product_id TEXT NOT NULL, path TEXT NOT NULL, outcome TEXT NOT NULL, finished INTEGER NOT NULL, at_ms INTEGER NOT NULL)""")
    db.execute("CREATE INDEX deliveries_by_install ON deliveries (install_id, id)")
    count = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms) "
                   "VALUES (?, ?, ?, 'purchase', 'counted', 1, ?)",
                   ("00000000-0000-4000-8000-000000000000", count, PRODUCTS[count % 3], count))
        db.execute("COMMIT")
        count += 1
    elapsed = time.perf_counter() - started
    db.close()
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(path + suffix)
        except OSError:
            pass
    return count / elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--installs", type=int, default=100_000)
    parser.add_argument("--deliveries", type=int, default=1_000_000)
    parser.add_argument("--big", type=int, default=1_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--dir", default=None, help="parent folder of the temporary database (default: $TMPDIR)")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    folder = tempfile.mkdtemp(prefix="tipjar-scale-", dir=args.dir)
    database = os.path.join(folder, "scale.sqlite3")
    log_path = os.path.join(folder, "server.log")
    server = None
    try:
        print("== scale benchmark in %s (binary %s)" % (folder, args.bin), flush=True)
        server = Server(args.bin, database, "full", log_path)
        server.kill()  # the schema and identity stamp are committed before the server listens
        server = None
        print("== seeding %d installs, %d ledger rows (one install with %d)" % (args.installs, args.deliveries, args.big), flush=True)
        seed = subprocess.run([sys.executable, os.path.join(HERE, "scale_seed.py"), database, "--installs", str(args.installs),
                               "--deliveries", str(args.deliveries), "--big", str(args.big)],
                              check=True, stdout=subprocess.PIPE, text=True)
        seeded = json.loads(seed.stdout.strip().splitlines()[-1])
        print("   seeded in %.1f s: %s; file %.0f MiB" % (seeded["seconds"], seeded["counts"], os.path.getsize(database) / 1048576.0),
              flush=True)
        big = seeded["bigInstall"]

        server = Server(args.bin, database, "full", log_path)
        print("== tipjar serve --durability full: listening %.2f s after exec (start-up checks on a %.0f MiB file)"
              % (server.startup_seconds, os.path.getsize(database) / 1048576.0), flush=True)
        # A rare ID prefix (4 hex digits: about 2 of 100,000 installs) and a common one (2: about 390).
        pages = [
            ("/installs (page 1)", "/installs"),
            ("/installs?page=50", "/installs?page=50"),
            ("/installs?q=<4-digit id prefix>", "/installs?q=" + big[:4]),
            ("/installs?q=<2-digit id prefix>", "/installs?q=" + big[:2]),
            ("/installs?hearts=3", "/installs?hearts=3"),
            ("/installs?hearts=3&page=50", "/installs?hearts=3&page=50"),
            ("/installs/{id} (1,000 ledger rows)", "/installs/" + big),
        ]
        page_results = []
        for label, path in pages:
            samples, statuses, sizes = measure_page(server.port, path, args.requests)
            page_results.append((label, path, samples, statuses, sizes))
            print("   %-36s p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  statuses %s  %s B"
                  % (label, percentile(samples, 50), percentile(samples, 99), max(samples), statuses,
                     "/".join(str(s) for s in sorted(sizes)[:2])), flush=True)

        print("== purchases: %d clients x %.0f s at --durability full" % (args.clients, args.seconds), flush=True)
        full = purchases(server.port, args.clients, args.seconds)
        print("   %.0f purchases/s (%d purchased, other answers %s; latency p50 %.2f ms p99 %.2f ms; %s)"
              % (full["perSecond"], full["purchased"], full["other"], full["p50"], full["p99"], full["driver"]), flush=True)
        rss_full = server.peak_rss_mib()
        server.kill()
        server = Server(args.bin, database, "normal", log_path)
        print("== purchases: %d clients x %.0f s at --durability normal (restarted in %.2f s)"
              % (args.clients, args.seconds, server.startup_seconds), flush=True)
        normal = purchases(server.port, args.clients, args.seconds)
        print("   %.0f purchases/s (%d purchased, other answers %s; latency p50 %.2f ms p99 %.2f ms; %s)"
              % (normal["perSecond"], normal["purchased"], normal["other"], normal["p50"], normal["p99"], normal["driver"]), flush=True)
        rss_normal = server.peak_rss_mib()
        server.kill()
        server = None

        print("== raw SQLite ceiling: one-row INSERT transactions, WAL, %.0f s each (python sqlite3 %s, same folder)"
              % (args.seconds, sqlite3.sqlite_version), flush=True)
        ceiling_full = raw_ceiling(folder, "FULL", args.seconds)
        print("   synchronous=FULL:   %.0f transactions/s" % ceiling_full, flush=True)
        ceiling_normal = raw_ceiling(folder, "NORMAL", args.seconds)
        print("   synchronous=NORMAL: %.0f transactions/s" % ceiling_normal, flush=True)

        print()
        print("Scale benchmark: %d installs, %d ledger rows; %d sequential keep-alive requests per page; release build"
              % (seeded["counts"]["installs"], seeded["counts"]["deliveries"], args.requests))
        print("%-38s %9s %9s  %s" % ("page", "p50 ms", "p99 ms", "target p99 <= 10 ms"))
        missed = []
        for label, path, samples, statuses, sizes in page_results:
            p99 = percentile(samples, 99)
            ok = p99 <= 10.0 and set(statuses) == {200}
            if not ok:
                missed.append("%s p99 %.2f ms%s" % (label, p99, "" if set(statuses) == {200} else " statuses %s" % statuses))
            print("%-38s %9.2f %9.2f  %s" % (label, percentile(samples, 50), p99, "ok" if ok else "MISSED"))
        print("%-38s %9s %9s %9s %9s" % ("purchases (%d clients, %.0f s)" % (args.clients, args.seconds), "per s", "ceiling", "ratio", "p99 ms"))
        for name, result, ceiling in (("durability full", full, ceiling_full), ("durability normal", normal, ceiling_normal)):
            ratio = result["perSecond"] / ceiling if ceiling else 0.0
            print("%-38s %9.0f %9.0f %8.2fx %9.2f%s" % (name, result["perSecond"], ceiling, ratio, result["p99"],
                                                         "  (target >= 1.0x: %s)" % ("ok" if ratio >= 1.0 else "MISSED") if name.endswith("full") else ""))
            if name.endswith("full") and ratio < 1.0:
                missed.append("purchases at FULL %.2fx the one-row-transaction ceiling" % ratio)
        print("tipjar peak RSS (VmHWM): %.1f MiB at full, %.1f MiB at normal" % (rss_full, rss_normal))
        print("targets missed: %s" % ("; ".join(missed) if missed else "none"))
    finally:
        if server is not None:
            server.kill()
        if args.keep:
            print("kept %s" % folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
