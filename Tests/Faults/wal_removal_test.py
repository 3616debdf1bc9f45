#!/usr/bin/env python3
"""Nothing acknowledged is lost when the `-wal` is deleted under load and the server is then killed.

SQLite keeps writing through the descriptor it opened, so after `rm tipjar.sqlite3-wal` every commit
still succeeds, into a file no path names; a crash then loses every commit since the last checkpoint
(https://www.sqlite.org/howtocorrupt.html, "Unlinking or renaming a database file while in use"). The
server must notice, copy those commits into the database file before it acknowledges anything more,
and refuse writes from then on (Sources/SQLiteDatabase/DatabaseWriter+WALLoss.swift). This
script checks that from outside, on the server binary, at `--durability full`. Each round:
  1. starts the server on the previous round's database (a fresh one in round 1);
  2. creates a few launched installs and drives purchases from one thread per install, over one
     keep-alive connection each (`POST /api/installs/{id}/purchases`, every other thread also
     `/external-purchases`), recording every answer that acknowledged a tip (Tests/Faults/crash_test.py's
     `Client`);
  3. once a first purchase is acknowledged (a bounded poll), deletes the `-wal` after a random 0-0.5 s more
     (seeded RNG, seed printed) while they run;
  4. keeps purchasing until the server's log says it found the loss (`database writes stopped` naming
     the write-ahead log): writes made meanwhile may answer 503, which acknowledges nothing;
  5. SIGKILLs the server, in half the rounds as soon as that line is read, in the others after a
     further random 0-0.3 s of purchases (all refused by then);
  6. restarts the server on the same file and checks, through the API, that every acknowledged
     transaction of every install so far is counted in its install's ledger (crash_test's `verify`).

The kill timing is honest about what any program can promise: between an external deletion and the
moment the server next looks (its next write transaction, or the stat after each COMMIT) a kill
loses the commits the deleted log held, whatever the program; no kill is sent in that window. Every
kill comes after the loss was logged, which the server does only once those commits are in the
database file (or after giving up on that, in which case the log says so and writes answered 503).

Prints one line per round, `totals: rounds=N acknowledged=N found=N lost=N` and `N passed, N failed`;
exits 1 on any loss or failed round. About 2-3 minutes on 2 cores with the debug binary.

Environment: TIPJAR_BIN (default: `swift build --show-bin-path`/tipjar, the debug build),
WAL_SEED (default: random), WAL_ROUNDS (default 60), WAL_CLIENTS (default 4), WAL_KEEP=1 keeps the
temporary folder. Standard library only.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crash_test import ROOT, Server, start_round, verify  # noqa: E402

LOSS_LOGGED_TIMEOUT = 15.0  # the server finds the loss at its next write; 30 s is its own bound for securing
TOTAL_BUDGET = 240.0


def find_binary():
    configured = os.environ.get("TIPJAR_BIN")
    if configured:
        return os.path.abspath(configured)
    folder = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return os.path.join(folder or os.path.join(ROOT, ".build", "debug"), "tipjar")


def log_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def loss_line(path, offset):
    """The server's line, written after `offset` of its log, saying it found the write-ahead log gone; or None."""
    with open(path, "rb") as log:
        log.seek(offset)
        for line in log.read().decode("utf-8", "replace").splitlines():
            if "database writes stopped" in line and "write-ahead log" in line:
                return line
    return None


def main():
    binary = find_binary()
    if not os.access(binary, os.X_OK):
        print("wal_removal_test: no executable at %s; build it first: swift build" % binary)
        return 2
    seed = int(os.environ.get("WAL_SEED") or random.SystemRandom().randrange(1, 2 ** 31))
    rounds = int(os.environ.get("WAL_ROUNDS", "60"))
    clients = int(os.environ.get("WAL_CLIENTS", "4"))
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="tipjar-wal-")
    database = os.path.join(folder, "wal.sqlite3")
    log_path = os.path.join(folder, "server.log")
    print("wal_removal_test: binary %s, seed %d (rerun with WAL_SEED=%d), %d rounds, %d clients, --durability full, database %s"
          % (binary, seed, seed, rounds, clients, database), flush=True)

    started = time.time()
    installs = []
    acknowledged = {}
    passed = failed = 0
    total_ack = total_lost = total_refused = 0
    secured_rounds = 0
    server = None
    try:
        server = Server(binary, database, log_path)
        for number in range(1, rounds + 1):
            if time.time() - started > TOTAL_BUDGET:
                print("round %d: time budget of %.0f s used up; stopping early" % (number, TOTAL_BUDGET))
                failed += rounds - number + 1
                break
            stop_event = threading.Event()
            round_installs, threads, problems = start_round(server.port, number, clients, "wal", rng, stop_event)
            installs.extend(round_installs)
            offset = log_size(log_path)
            for thread in threads:
                thread.start()
            # The -wal goes once purchases are being acknowledged (a bounded poll: a loaded machine can take a while
            # to answer the first), then after a random part of a second more.
            first_deadline = time.time() + 10
            while not any(thread.acknowledged for thread in threads) and time.time() < first_deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 0.5))
            try:
                os.unlink(database + "-wal")
            except FileNotFoundError:
                problems.append("no -wal to delete while purchases ran")
            deadline = time.time() + LOSS_LOGGED_TIMEOUT
            line = loss_line(log_path, offset)
            while line is None and time.time() < deadline and server.process.poll() is None:
                time.sleep(0.01)  # a bounded poll of the log, not a wait for a guessed duration
                line = loss_line(log_path, offset)
            if line is None:
                problems.append("the server did not log the -wal's loss within %.0f s" % LOSS_LOGGED_TIMEOUT)
            elif "every commit it held was copied into" in line:
                secured_rounds += 1
            at_once = rng.random() < 0.5
            extra = 0.0 if at_once else rng.uniform(0.0, 0.3)
            if extra:
                time.sleep(extra)
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()
            stop_event.set()
            for thread in threads:
                thread.join(15)
            round_ack = 0
            statuses = {}
            for thread, install_id in zip(threads, round_installs):
                acknowledged.setdefault(install_id, []).extend(thread.acknowledged)
                round_ack += len(thread.acknowledged)
                for key, count in thread.statuses.items():
                    statuses[key] = statuses.get(key, 0) + count
                if thread.is_alive():
                    problems.append("client for %s still running 15 s after the kill" % install_id)
            refused = sum(count for key, count in statuses.items() if key.endswith(" 503"))
            server.kill()
            try:
                server = Server(binary, database, log_path)
            except RuntimeError as error:
                server = None
                problems.append("restart after SIGKILL failed: %s" % error)
            lost = round_ack
            if server is not None:
                _, lost_all, verify_problems = verify(server.port, installs, acknowledged)
                problems.extend(verify_problems)
                lost = sum(1 for install_id, _ in lost_all if install_id in round_installs)
            if round_ack == 0:
                problems.append("no purchase was acknowledged before the -wal was deleted (answers %s)" % statuses)
            total_ack += round_ack
            total_lost += lost
            total_refused += refused
            print("round %2d/%d: kill %s the loss was logged; acknowledged %d, lost %d, refused with 503 %d; answers %s; %s"
                  % (number, rounds, "as soon as" if at_once else "%.2f s after" % extra, round_ack, lost, refused,
                     dict(sorted(statuses.items())), "PASS" if not problems else "FAIL"), flush=True)
            for problem in problems[:20]:
                print("    - " + problem)
            if problems:
                failed += 1
            else:
                passed += 1
            if server is None:
                failed += rounds - number
                print("stopping: the server cannot be restarted")
                break
        if server is not None:
            server.stop()
            server = None
    finally:
        if server is not None:
            server.kill()
        if failed and os.path.exists(log_path):
            print("server log tail (%s):" % log_path)
            with open(log_path, "rb") as log:
                lines = [l for l in log.read().decode("utf-8", "replace").splitlines() if "method=" not in l]
            for line in lines[-15:]:
                print("    " + line)
        if os.environ.get("WAL_KEEP") == "1" or failed:
            print("kept %s" % folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("totals: rounds=%d acknowledged=%d found=%d lost=%d refused=%d; the log said the commits were secured in %d round(s) (%.1f s, seed %d)"
          % (passed + failed, total_ack, total_ack - total_lost, total_lost, total_refused, secured_rounds, time.time() - started, seed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
