#!/usr/bin/env python3
"""`.storekit` files with many products, on the release `tipjar`.

    python3 Tests/Benchmarks/storekit_scale_bench.py [--sizes 500,2000,10000] [--timeout 600]

For each size N, writes a `.storekit` file of N consumable products (the shape of
Tests/TipJarTests/Fixtures/storekit/v3-three-tiers-pt-BR.storekit: `en_US` and `pt_BR` names, format 3.0), then
1. times `tipjar check-storekit FILE` (wall clock and the child's CPU), best of --repeat runs (one when a run takes
   more than 30 s), since the machine is shared and a neighbour's build only ever adds time;
2. starts `tipjar serve --storekit FILE` on a temporary database and times it from exec to its banner (wall, and
   the server's CPU so far);
3. times the first `GET /catalog` (wall, and the server's CPU it cost), a second one, and one after a change
   (`POST /api/installs`): the catalog does not change while serving, so neither should render it again.
Prints one line per figure and the target line (check-storekit of 10,000 products within 2 s); exits 1 when a
target size misses it. A step that takes longer than --timeout seconds is reported as such and the size's
remaining steps are skipped (the build before the fix needed minutes for 4,000 products). Standard library only;
loopback only. TIPJAR_BIN picks the binary (default .build/release/tipjar, built if missing).
"""
import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import Server, release_binary  # noqa: E402

TARGET_PRODUCTS = 10_000
TARGET_SECONDS = 2.0


def storekit_file(count):
    """A format 3.0 `.storekit` document with `count` consumable products, as Xcode writes them."""
    products = [
        {
            "displayPrice": "%d.99" % (index % 50),
            "familyShareable": False,
            "internalID": "%08X" % index,
            "localizations": [
                {"description": "Tip number %d" % index, "displayName": "Tip %d" % index, "locale": "en_US"},
                {"description": "Gorjeta número %d" % index, "displayName": "Gorjeta %d" % index, "locale": "pt_BR"},
            ],
            "productID": "com.example.tipjar.tip.t%05d" % index,
            "referenceName": "Tip %d" % index,
            "type": "Consumable",
        }
        for index in range(count)
    ]
    return {
        "identifier": "5CA1EBE7",
        "nonRenewingSubscriptions": [],
        "products": products,
        "settings": {"_locale": "en_US", "_storefront": "USA"},
        "subscriptionGroups": [],
        "version": {"major": 3, "minor": 0},
    }


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def get(port, method, path, body=None, timeout=600):
    """One request on a fresh connection; returns (status, body length)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        data = body.encode() if body is not None else b""
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n" % (method, path, port)
        if body is not None:
            head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
        sock.sendall(head.encode() + b"\r\n" + data)
        received = b""
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if received.startswith(b"HTTP/1.1 ") else 0
    return status, len(rest)


def timed_page(server, method, path, body=None, timeout=600):
    """(seconds, server CPU seconds, status, bytes) of one request."""
    cpu, started = server.cpu_seconds(), time.monotonic()
    status, size = get(server.port, method, path, body, timeout)
    return time.monotonic() - started, server.cpu_seconds() - cpu, status, size


def check_storekit(binary, path, timeout):
    """(wall seconds, CPU seconds, stdout) of one `tipjar check-storekit`; None when it timed out."""
    cpu, started = children_cpu(), time.monotonic()
    try:
        result = subprocess.run([binary, "check-storekit", path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if result.returncode != 0:
        sys.exit("check-storekit %s exited %d: %r" % (path, result.returncode, result.stderr[:300]))
    return time.monotonic() - started, children_cpu() - cpu, result.stdout


def measure(binary, count, folder, timeout, repeat):
    """Prints the figures of one size; returns check-storekit's wall time (None when it timed out)."""
    path = os.path.join(folder, "products-%d.storekit" % count)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(storekit_file(count), f, indent=2, ensure_ascii=False)
    size_mib = os.path.getsize(path) / (1 << 20)
    runs = []
    while len(runs) < max(1, repeat):
        run = check_storekit(binary, path, timeout)
        if run is None:
            print("%6d products (%.1f MiB): check-storekit took longer than %d s; skipped the rest" % (count, size_mib, timeout), flush=True)
            return None
        runs.append(run)
        if run[0] > 30:
            break
    check_wall, check_cpu, stdout = min(runs, key=lambda run: run[0])
    tips = sum(1 for line in stdout.splitlines() if line.count(b"\t") == 2)
    if tips != count:
        sys.exit("check-storekit %s listed %d tips of %d" % (path, tips, count))
    print(
        "%6d products (%.1f MiB): check-storekit %.2f s (CPU %.2f s; best of %d)" % (count, size_mib, check_wall, check_cpu, len(runs)),
        flush=True,
    )

    started = time.monotonic()
    server = Server(["--storekit", path])
    try:
        start_wall, start_cpu = time.monotonic() - started, server.cpu_seconds()
        first = timed_page(server, "GET", "/catalog", timeout=timeout)
        second = timed_page(server, "GET", "/catalog", timeout=timeout)
        get(server.port, "POST", "/api/installs", json.dumps({"locale": "en", "launch": True}))
        after_change = timed_page(server, "GET", "/catalog", timeout=timeout)
        for name, (_, _, status, _) in [("first", first), ("second", second), ("after a change", after_change)]:
            if status != 200:
                sys.exit("GET /catalog (%s) answered %d" % (name, status))
        print(
            "%6d products: serve start-up %.2f s (CPU %.2f s); first /catalog %.2f s (CPU %.2f s, %.1f MiB); "
            "second %.3f s (CPU %.3f s); after a change %.3f s (CPU %.3f s)"
            % (count, start_wall, start_cpu, first[0], first[1], first[3] / (1 << 20), second[0], second[1], after_change[0], after_change[1]),
            flush=True,
        )
    except socket.timeout:
        print("%6d products: a /catalog request took longer than %d s" % (count, timeout), flush=True)
    finally:
        server.stop()
    return check_wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="500,2000,10000", help="product counts, comma-separated")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one step may take")
    parser.add_argument("--repeat", type=int, default=3, help="check-storekit runs per size (the best is shown)")
    options = parser.parse_args()
    binary = release_binary()
    folder = tempfile.mkdtemp(prefix="tipjar-storekit-scale-")
    failed = False
    try:
        for count in [int(size) for size in options.sizes.split(",")]:
            seconds = measure(binary, count, folder, options.timeout, options.repeat)
            if count >= TARGET_PRODUCTS:
                met = seconds is not None and seconds <= TARGET_SECONDS
                failed = failed or not met
                shown = "more than %d s" % options.timeout if seconds is None else "%.2f s" % seconds
                print("target: check-storekit of %d products within %.0f s: %s %s" % (count, TARGET_SECONDS, shown, "✔" if met else "✘ missed"))
    finally:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
