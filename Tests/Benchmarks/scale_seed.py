#!/usr/bin/env python3
"""Seeds a Tip Jar database for the scale benchmark: INSTALLS installs and DELIVERIES ledger
rows, one install ("the big install", the oldest) with BIG ledger rows, in one big transaction.

The database must already hold the schema (created by `tipjar serve`, which also writes the
identity stamp `PRAGMA user_version`; this script never changes it). Rows follow
Sources/TipJarSQLite/TipJarSchema.swift exactly (v1 + v2 columns, v7's accounts, CHECK values), and are consistent:
every ledger row has its transaction, every "counted" row its `counted_transactions` key, and
hearts = min(5, counted transactions) per install. The bulk rows are produced inside SQLite by
recursive CTEs, so seeding takes seconds. Prints the big install's ID and a hearts=3 count as JSON.

    python3 scale_seed.py DATABASE [--installs 100000] [--deliveries 1000000] [--big 1000] [--seed 1]
Standard library only.
"""
import argparse
import json
import random
import sqlite3
import sys
import time
import uuid

PRODUCTS = ["com.example.tipjar.tip.coffee", "com.example.tipjar.tip.snack", "com.example.tipjar.tip.lunch"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("--installs", type=int, default=100_000)
    parser.add_argument("--deliveries", type=int, default=1_000_000)
    parser.add_argument("--big", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.time()

    db = sqlite3.connect(args.database, isolation_level=None)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in ("installs", "accounts", "transactions", "counted_transactions", "deliveries"):
        if table not in tables:
            sys.exit("scale_seed: %s has no table %s; start `tipjar serve` on it once first" % (args.database, table))
    if db.execute("SELECT count(*) FROM installs").fetchone()[0]:
        sys.exit("scale_seed: %s already holds installs" % args.database)
    stamp = db.execute("PRAGMA user_version").fetchone()[0]
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA cache_size = -200000")
    db.execute("BEGIN IMMEDIATE")

    # Installs: UUID-shaped lower-case IDs as the server makes them; created one minute apart, the
    # big install first (oldest), so it sits on the last page of /installs.
    now_ms = int(time.time() * 1000)
    first_ms = now_ms - args.installs * 60_000
    rows = []
    for n in range(args.installs):
        install_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rows.append((install_id, "en" if rng.random() < 0.7 else "pt-BR", "USA" if rng.random() < 0.7 else "BRA",
                     "account-" + install_id[:8], 0, 1 if rng.random() < 0.05 else 0, 1 if rng.random() < 0.5 else 0,
                     first_ms + n * 60_000, "scale %d" % n if rng.random() < 0.3 else ""))
    # The storefront is the account's (v7-account-storefronts): one `accounts` row per install's own account.
    db.executemany("INSERT INTO accounts (account_id, storefront) VALUES (?, ?)", [(row[3], row[2]) for row in rows])
    db.executemany("""INSERT INTO installs (id, locale, account_id, hearts, legacy_has_tipped, is_running,
                      created_at_ms, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                   [row[:2] + row[3:] for row in rows])
    big_id = rows[0][0]
    # rowid n+1 is rows[n]; the big install is rowid 1, the others share the remaining deliveries.
    db.execute("CREATE TEMP TABLE install_by_number (n INTEGER PRIMARY KEY, id TEXT NOT NULL, account_id TEXT NOT NULL)")
    db.execute("INSERT INTO temp.install_by_number SELECT rowid, id, account_id FROM installs")

    # Deliveries: x = 1…D; the first BIG go to the big install, the rest round-robin over the others.
    # Outcomes ~70% counted, 10% duplicate, 8% unverified, 7% revoked, 5% unknownProduct (before the
    # heart spreading below). Every
    # row has its own transaction ID (1,000,000 + x) except duplicates, which repeat the ID of the
    # install's latest earlier counted delivery, as a redelivery through the listener would.
    others = args.installs - 1
    db.execute("""
        CREATE TEMP TABLE seed_deliveries AS
        WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x WHERE n < :total)
        SELECT n,
               CASE WHEN n <= :big THEN 1 ELSE 2 + ((n - :big - 1) % :others) END AS install_number,
               CASE WHEN (n * 37) % 100 < 70 THEN 'counted'
                    WHEN (n * 37) % 100 < 80 THEN 'duplicate'
                    WHEN (n * 37) % 100 < 88 THEN 'unverified'
                    WHEN (n * 37) % 100 < 95 THEN 'revoked'
                    ELSE 'unknownProduct' END AS outcome
        FROM x
        """, {"total": args.deliveries, "big": args.big, "others": max(others, 1)})
    # Spread the heart counts: install number k (not the big one) keeps its first k % 6 counted
    # deliveries; the later ones become unverified, so hearts take every value 0…5.
    db.execute("""
        UPDATE temp.seed_deliveries SET outcome = 'unverified' WHERE n IN (
            SELECT n FROM (SELECT n, install_number,
                                  row_number() OVER (PARTITION BY install_number ORDER BY n) AS r
                           FROM temp.seed_deliveries WHERE outcome = 'counted')
            WHERE install_number > 1 AND r > install_number % 6)
        """)
    db.execute("""
        INSERT INTO deliveries (id, install_id, transaction_id, product_id, path, outcome, finished, at_ms)
        SELECT s.n, i.id,
               1000000 + s.n,
               CASE WHEN s.outcome = 'unknownProduct' THEN 'com.example.tipjar.tip.retired'
                    ELSE CASE s.n % 3 WHEN 0 THEN :p0 WHEN 1 THEN :p1 ELSE :p2 END END,
               CASE WHEN s.outcome = 'duplicate' THEN 'listener'
                    ELSE CASE s.n % 10 WHEN 0 THEN 'listener' WHEN 1 THEN 'launch' WHEN 2 THEN 'restore' ELSE 'purchase' END END,
               s.outcome,
               CASE WHEN s.outcome = 'unverified' THEN 0 ELSE 1 END,
               :first + s.n * 5000
        FROM temp.seed_deliveries s JOIN temp.install_by_number i ON i.n = s.install_number
        ORDER BY s.n
        """, {"big": args.big, "others": max(others, 1), "p0": PRODUCTS[0], "p1": PRODUCTS[1], "p2": PRODUCTS[2],
              "first": first_ms})
    # A duplicate repeats the install's latest earlier counted transaction; with none, it is counted.
    db.execute("""
        UPDATE deliveries SET transaction_id = coalesce((
            SELECT p.transaction_id FROM deliveries p
            WHERE p.install_id = deliveries.install_id AND p.id < deliveries.id AND p.outcome = 'counted'
            ORDER BY p.id DESC LIMIT 1), -1)
        WHERE outcome = 'duplicate'
        """)
    db.execute("""
        UPDATE deliveries SET outcome = 'counted', path = 'purchase', transaction_id = 1000000 + id
        WHERE outcome = 'duplicate' AND transaction_id = -1
        """)
    # One store transaction per distinct transaction ID (the first delivery decides its data).
    db.execute("""
        INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status,
                                  is_finished, is_external, revocation_date_ms, revocation_reason)
        SELECT d.transaction_id, d.product_id, d.at_ms - 1000, a.storefront, i.account_id, d.install_id, 'purchased',
               d.finished, CASE WHEN d.id % 20 = 0 THEN 1 ELSE 0 END,
               CASE WHEN d.outcome = 'revoked' THEN d.at_ms END,
               CASE WHEN d.outcome = 'revoked' THEN 'other' END
        FROM deliveries d JOIN installs i ON i.id = d.install_id JOIN accounts a ON a.account_id = i.account_id
        WHERE d.outcome <> 'duplicate'
        ORDER BY d.transaction_id
        """)
    db.execute("""
        INSERT INTO counted_transactions (install_id, transaction_id)
        SELECT install_id, transaction_id FROM deliveries WHERE outcome = 'counted' ORDER BY transaction_id, install_id
        """)
    # One aggregate pass (the counted keys are ordered by transaction, not by install).
    db.execute("""
        UPDATE installs SET hearts = min(5, counted.n)
        FROM (SELECT install_id, count(*) AS n FROM counted_transactions GROUP BY install_id) AS counted
        WHERE counted.install_id = installs.id
        """)
    db.execute("DROP TABLE temp.seed_deliveries")
    db.execute("DROP TABLE temp.install_by_number")
    problems = db.execute("PRAGMA foreign_key_check").fetchall()
    if problems:
        db.execute("ROLLBACK")
        sys.exit("scale_seed: foreign key problems: %r" % problems[:5])
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    counts = {table: db.execute("SELECT count(*) FROM %s" % table).fetchone()[0]
              for table in ("installs", "deliveries", "transactions", "counted_transactions")}
    big_rows = db.execute("SELECT count(*) FROM deliveries WHERE install_id = ?", (big_id,)).fetchone()[0]
    hearts3 = db.execute("SELECT count(*) FROM installs WHERE hearts = 3").fetchone()[0]
    assert db.execute("PRAGMA user_version").fetchone()[0] == stamp, "the identity stamp changed"
    db.close()
    print(json.dumps({"bigInstall": big_id, "bigInstallRows": big_rows, "hearts3": hearts3, "counts": counts,
                      "seconds": round(time.time() - started, 1)}))


if __name__ == "__main__":
    main()
