#!/usr/bin/env python3
"""Get Transaction History on an account with a million transactions: the server's CPU time per page against the
same page read by Python's `sqlite3` from the same file (the reference, measured in the same run).

Starts `tipjar serve` (TIPJAR_BIN, else the release build) on a new database, buys one tip through the JSON API so the
file holds the schema and one real row, stops it, then copies that row TRANSACTIONS times inside SQLite (a recursive
CTE: new IDs, one second apart, every 1,000th refunded), all in one Apple Account. Starts the server again and asks
`GET /inApps/v2/history/{id}` (a JWT of Apple's shape; its signature is not verified) for PAGES pages from the start,
PAGES from the middle (a revision that points there) and PAGES backwards from the end (`sort=DESCENDING`), and
`GET /inApps/v2/refund/lookup/{id}` for the refunds, on one keep-alive connection. CPU time is the server's user plus
system time (/proc/PID/stat) over the pages; the reference runs the storage's own SQL
(Sources/TipJarSQLite/SQLiteTipJarStorage+ServerAPI.swift) for the same pages. With `--walk` it also walks every page
and checks that every transaction is listed once.

    python3 Tests/Benchmarks/history_bench.py [--transactions 1000000] [--pages 200] [--walk]
Standard library only.
"""
import argparse
import base64
import http.client
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import release_binary  # noqa: E402

BUNDLE_ID = "com.example.tipjar"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bearer():
    now = int(time.time())
    head = {"alg": "ES256", "kid": "KEYID12345", "typ": "JWT"}
    claims = {"iss": "bench", "iat": now, "exp": now + 3000, "aud": "appstoreconnect-v1", "bid": BUNDLE_ID}
    return "Bearer " + ".".join([b64url(json.dumps(head).encode()), b64url(json.dumps(claims).encode()), b64url(b"\x01" * 64)])


class Serve:
    def __init__(self, database):
        self.process = subprocess.Popen([release_binary(), "serve", "--port", "0", "--database", database],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        banner = self.process.stdout.readline().decode()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not match:
            self.process.kill()
            sys.exit(f"tipjar serve did not start: {banner!r}")
        self.connection = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=60)

    def request(self, method, path, body=None, headers=None):
        self.connection.request(method, path, body=json.dumps(body) if body is not None else None,
                                headers={"Content-Type": "application/json", **(headers or {})})
        response = self.connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)

    def cpu_seconds(self):
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.connection.close()
        self.process.terminate()
        self.process.wait(timeout=30)


def seed(database, template_id, count):
    db = sqlite3.connect(database, isolation_level=None)
    columns = [row[1] for row in db.execute("PRAGMA table_info(transactions)")]
    copied = ", ".join("n.id" if c == "id" else
                       "t.purchase_date_ms - (? - n.i) * 1000" if c == "purchase_date_ms" else
                       "t.purchase_date_ms - (? - n.i) * 1000 + CASE WHEN n.i % 1000 = 0 THEN 500 ELSE 0 END" if c == "signed_date_ms" else
                       "CASE WHEN n.i % 1000 = 0 THEN t.purchase_date_ms - (? - n.i) * 1000 + 500 END" if c == "revocation_date_ms" else
                       "CASE WHEN n.i % 1000 = 0 THEN 'other' END" if c == "revocation_reason" else
                       "CASE WHEN n.i % 1000 = 0 THEN 'REFUND_FULL' END" if c == "revocation_type" else
                       "CASE WHEN n.i % 1000 = 0 THEN 100000 END" if c == "revocation_percentage" else
                       "1" if c == "is_finished" else "t." + c for c in columns)
    started = time.time()
    db.execute("BEGIN")
    db.execute(f"""
        WITH RECURSIVE n(i, id) AS (SELECT 1, ? + 1 UNION ALL SELECT i + 1, id + 1 FROM n WHERE i < ?)
        INSERT INTO transactions ({", ".join(columns)}) SELECT {copied} FROM n, transactions t WHERE t.id = ?
        """, (template_id, count, count, count, count, template_id))
    db.execute("COMMIT")
    db.close()
    print(f"seeded {count:,} transactions in {time.time() - started:.1f} s", flush=True)


def reference_page(db, account, after, descending, order="signed_date_ms"):
    """The storage's query for one page, as Sources/TipJarSQLite/SQLiteTipJarStorage+ServerAPI.swift writes it."""
    index = "transactions_history" if order == "signed_date_ms" else "transactions_refunds"
    condition = ["account_id = ?", "environment = 'Xcode'", "status = 'purchased'", "has_purchase_issue = 0", "settled_as IS NULL",
                 "(app_bundle_id = ? OR app_bundle_id IS NULL)"]
    arguments = [account, BUNDLE_ID]
    if order != "signed_date_ms":
        condition.append("revocation_date_ms IS NOT NULL")
    if after:
        condition.append(f"({order}, id) {'<' if descending else '>'} (?, ?)")
        arguments += list(after)
    direction = "DESC" if descending else "ASC"
    rows = db.execute(f"SELECT * FROM transactions INDEXED BY {index} WHERE {' AND '.join(condition)} "
                      f"ORDER BY {order} {direction}, id {direction} LIMIT 21", arguments).fetchall()
    return rows


def revision_of(milliseconds, tid):
    return b64url(f"{milliseconds}.{tid}".encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transactions", type=int, default=1_000_000)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--walk", action="store_true")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tipjar-history-")
    database = os.path.join(folder, "db.sqlite3")
    try:
        server = Serve(database)
        _, install = server.request("POST", "/api/installs", {"accountID": "big", "launch": True})
        _, bought = server.request("POST", f"/api/installs/{install['id']}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
        template = bought["transactionID"]
        server.stop()
        seed(database, template, args.transactions)
        server = Serve(database)
        auth = {"Authorization": bearer()}
        db = sqlite3.connect(database)
        db.row_factory = sqlite3.Row
        middle = db.execute("SELECT signed_date_ms, id FROM transactions WHERE account_id = 'big' ORDER BY signed_date_ms, id "
                            "LIMIT 1 OFFSET ?", (args.transactions // 2,)).fetchone()
        middle = (middle["signed_date_ms"], middle["id"])
        cases = [("from the start", None, False), ("from the middle", middle, False), ("from the end, DESCENDING", None, True)]
        print(f"{'case':<28} {'ours CPU/page':>14} {'sqlite3/page':>13} {'ratio':>7} {'ours wall p50':>14}")
        for name, start, descending in cases:
            revision = revision_of(*start) if start else None
            walls = []
            before = server.cpu_seconds()
            listed = 0
            for _ in range(args.pages):
                query = ("?sort=DESCENDING" if descending else "?sort=ASCENDING") + (f"&revision={revision}" if revision else "")
                began = time.perf_counter()
                status, page = server.request("GET", f"/inApps/v2/history/{template}{query}", headers=auth)
                walls.append(time.perf_counter() - began)
                assert status == 200 and len(page["signedTransactions"]) == 20, (status, page and len(page["signedTransactions"]))
                listed += len(page["signedTransactions"])
                revision = page["revision"]
            ours = (server.cpu_seconds() - before) / args.pages
            # The reference: the same pages' SQL in Python's sqlite3, keyset from the same place.
            after = start
            began = time.process_time()
            for _ in range(args.pages):
                rows = reference_page(db, "big", after, descending)
                after = (rows[19]["signed_date_ms"], rows[19]["id"])
            reference = (time.process_time() - began) / args.pages
            walls.sort()
            print(f"{name:<28} {ours * 1e3:>11.2f} ms {reference * 1e3:>10.2f} ms {ours / reference if reference else 0:>6.1f}× "
                  f"{walls[len(walls) // 2] * 1e3:>11.2f} ms", flush=True)
        before, revision, pages = server.cpu_seconds(), None, 0
        while pages < args.pages:
            status, refunds = server.request("GET", f"/inApps/v2/refund/lookup/{template}" + (f"?revision={revision}" if revision else ""),
                                             headers=auth)
            assert status == 200, status
            revision, pages = refunds["revision"], pages + 1
            if not refunds["hasMore"]:
                break
        print(f"{'refund lookup, ' + str(pages) + ' pages':<28} {(server.cpu_seconds() - before) / pages * 1e3:>11.2f} ms", flush=True)
        if args.walk:
            seen, revision, began = set(), None, time.time()
            while True:
                query = "?sort=ASCENDING" + (f"&revision={revision}" if revision else "")
                status, page = server.request("GET", f"/inApps/v2/history/{template}{query}", headers=auth)
                for signed in page["signedTransactions"]:
                    part = signed.split(".")[1]
                    seen.add(json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["transactionId"])
                revision = page["revision"]
                if not page["hasMore"]:
                    break
            total = args.transactions + 1
            print(f"walked every page in {time.time() - began:.0f} s: {len(seen):,} of {total:,} transactions listed once",
                  flush=True)
            if len(seen) != total:
                sys.exit(1)
        server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
