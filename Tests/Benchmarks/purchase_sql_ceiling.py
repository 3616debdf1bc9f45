#!/usr/bin/env python3
"""The purchase's own SQL, replayed by SQLite alone: how many purchases per second the statements a purchase
commits allow, with no HTTP, JSON or service around them, beside the one-row-transaction ceiling that
`purchase_bench.sh` compares the server with.

A purchase commits, in one transaction (`SQLiteTipJarStorage.issue(_:thenRecord:)` and `record(_:in:)` in
`Sources/TipJarSQLite/SQLiteTipJarStorage+Ledger.swift`; this script mirrors those statements): a SAVEPOINT, the
transaction's INSERT (19 columns, four indexes), the install's hearts read, the counted-transaction INSERT, the
heart's UPDATE while under five, the delivery INSERT (one index), RELEASE, COMMIT. The group commit puts the
purchases waiting for the writer in one transaction, so the replay runs batches of 1 and of 8 purchases.

The database is made by the release server itself (its schema and migrations), with installs created and launched
through the JSON API, so the pages touched are the server's. Each replay runs on a copy, in WAL mode with
foreign keys on and the given `synchronous`, SQLite's automatic checkpoint left as it is.

    python3 Tests/Benchmarks/purchase_sql_ceiling.py [--bin .build/release/tipjar] [--seconds 4] [--installs 8]
"""
import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRODUCT = "com.example.tipjar.tip.coffee"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def make_database(binary, path, installs):
    """Creates `installs` running installs, each with one purchase, through the server's JSON API."""
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--database", path],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                call(port, "GET", "/api/store")
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    sys.exit("the server did not start")
                time.sleep(0.05)
        ids = []
        for _ in range(installs):
            install = call(port, "POST", "/api/installs", {"locale": "en", "launch": True})
            call(port, "POST", "/api/installs/%s/purchases" % install["id"], {"productID": PRODUCT})
            ids.append(install["id"])
        return ids
    finally:
        server.terminate()
        server.wait(timeout=30)


def replay(path, synchronous, batch, seconds, ids):
    """Purchases per second and CPU microseconds per purchase of the purchase's statements, `batch` per commit."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = %s" % synchronous)
    db.execute("PRAGMA foreign_keys = ON")
    columns = [row[1] for row in db.execute("PRAGMA table_info(transactions)")]
    accounts = dict(db.execute("SELECT id, account_id FROM installs"))
    insert = "INSERT INTO transactions (%s) VALUES (%s)" % (", ".join(columns), ", ".join("?" * len(columns)))
    next_id = (db.execute("SELECT max(id) FROM transactions").fetchone()[0] or 0) + 1
    now = int(time.time() * 1000)

    def purchase(transaction_id, install_id):
        values = {"id": transaction_id, "product_id": PRODUCT, "purchase_date_ms": now, "storefront": "USA",
                  "account_id": accounts[install_id], "install_id": install_id, "status": "purchased", "is_finished": 1,
                  "is_external": 0, "revocation_date_ms": None, "revocation_reason": None, "purchased_quantity": 1,
                  "app_account_token": None, "price": "0.99", "currency": "USD", "product_type": "Consumable",
                  "app_bundle_id": "com.example.tipjar", "signed_date_ms": now, "has_purchase_issue": 0}
        db.execute("SAVEPOINT tipjar_sp1")
        db.execute(insert, [values[column] for column in columns])
        hearts = db.execute("SELECT hearts FROM installs WHERE id = ?", (install_id,)).fetchone()[0]
        db.execute("INSERT INTO counted_transactions (install_id, transaction_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                   (install_id, transaction_id))
        if hearts < 5:
            db.execute("UPDATE installs SET hearts = ? WHERE id = ?", (hearts + 1, install_id))
        db.execute("INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms, note) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (install_id, transaction_id, PRODUCT, "purchase", "counted", 1, now, None))
        db.execute("RELEASE tipjar_sp1")

    done, cpu, end = 0, time.process_time(), time.time() + seconds
    while time.time() < end:
        db.execute("BEGIN IMMEDIATE")
        for _ in range(batch):
            purchase(next_id, ids[next_id % len(ids)])
            next_id += 1
            done += 1
        db.execute("COMMIT")
    db.close()
    return done / seconds, (time.process_time() - cpu) * 1e6 / max(1, done)


def one_row_ceiling(path, synchronous, seconds):
    """`purchase_bench.sh`'s ceiling: one-row INSERT transactions."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = %s" % synchronous)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    n, end = 0, time.time() + seconds
    while time.time() < end:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t (v) VALUES (?)", (n,))
        db.execute("COMMIT")
        n += 1
    db.close()
    return n / seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "tipjar"))
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--installs", type=int, default=8)
    args = parser.parse_args()
    if not os.access(args.bin, os.X_OK):
        subprocess.run(["swift", "build", "-c", "release", "--product", "tipjar"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="tipjar-sql-ceiling-")
    try:
        seed = os.path.join(work, "seed.sqlite3")
        ids = make_database(args.bin, seed, args.installs)
        print("purchase SQL replayed by Python's sqlite3 (SQLite %s), %d installs, %.0f s per run"
              % (sqlite3.sqlite_version, len(ids), args.seconds))
        print("%-10s %-22s %14s %16s" % ("durability", "run", "per second", "CPU µs/purchase"))
        for synchronous in ("FULL", "NORMAL"):
            ceiling = one_row_ceiling(os.path.join(work, "ceiling-%s.sqlite3" % synchronous), synchronous, args.seconds)
            print("%-10s %-22s %14.0f %16s" % (synchronous.lower(), "one-row ceiling", ceiling, "-"))
            for batch in (1, 8):
                copy = os.path.join(work, "replay-%s-%d.sqlite3" % (synchronous, batch))
                shutil.copyfile(seed, copy)
                rate, cpu = replay(copy, synchronous, batch, args.seconds, ids)
                print("%-10s %-22s %14.0f %16.0f   (%.2fx the ceiling)"
                      % (synchronous.lower(), "purchases, %d a commit" % batch, rate, cpu, rate / ceiling))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
