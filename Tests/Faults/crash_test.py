#!/usr/bin/env python3
"""Nothing acknowledged is lost when the server is killed with SIGKILL.

Runs the release server (built beforehand; this script builds nothing) on one temporary database
for all rounds (cumulative). Each round:
  1. creates a few installs through the JSON API (launched, so external purchases reach the
     listener at once);
  2. drives purchases from CLIENTS threads, each on its own install over one keep-alive
     connection (`POST /api/installs/{id}/purchases`; every other thread also makes
     `POST /api/installs/{id}/external-purchases`), recording every answer that acknowledged a
     tip: a 2xx purchase with outcome "purchased" and its transactionID, and a 201 external
     purchase that was delivered and counted;
  3. SIGKILLs the server after a random delay (0.2-1.5 s, from a seeded RNG that is printed);
  4. restarts it on the same file and checks through the API, for every install created so far:
     - every acknowledged install still exists;
     - every acknowledged transactionID is in its install's ledger (`GET /api/installs/{id}/ledger`)
       with a "counted" row (other rows for it may be "duplicate");
     - no transactionID has more than one "counted" row for an install;
     - hearts (`GET /api/installs/{id}`) == min(5, distinct counted transactionIDs).
The restarted server serves the next round. Prints per-round lines, the totals
`acknowledged=N found=N lost=N`, and `N passed, M failed`; exits 1 on any failure.

Environment: TIPJAR_BIN (default .build/release/tipjar, relative to the current folder, else to the
repository root), CRASH_SEED (default: random), CRASH_ROUNDS (default 20), CRASH_CLIENTS (default 6),
CRASH_KEEP=1 keeps the temporary folder. Standard library only.
"""
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PRODUCTS = ["com.example.tipjar.tip.coffee", "com.example.tipjar.tip.snack", "com.example.tipjar.tip.lunch"]
MAX_HEARTS = 5
START_TIMEOUT = 20.0
TOTAL_BUDGET = 225.0  # CI allows 4 minutes for the whole script


def find_binary():
    configured = os.environ.get("TIPJAR_BIN")
    if configured:
        return os.path.abspath(configured)
    for candidate in (os.path.abspath(".build/release/tipjar"), os.path.join(ROOT, ".build/release/tipjar")):
        if os.path.exists(candidate):
            return candidate
    return os.path.abspath(".build/release/tipjar")


class Server:
    """One `tipjar serve --port 0` process; the bound port is read from its first stdout line."""

    def __init__(self, binary, database, log_path):
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--database", database],
                                        stdout=subprocess.PIPE, stderr=self.log, cwd=os.path.dirname(database))
        self.port = None
        deadline = time.time() + START_TIMEOUT
        line = b""
        # The stdout pipe is read with a thread so that a silent server cannot hang us.
        result = {}

        def read_first_line():
            result["line"] = self.process.stdout.readline()

        reader = threading.Thread(target=read_first_line, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        line = result.get("line", b"")
        match = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.kill()
            raise RuntimeError("the server did not start within %.0f s (exit code %s; stdout %r; see %s)"
                               % (START_TIMEOUT, self.process.returncode, line[:200], log_path))
        self.port = int(match.group(1))
        # Drain stdout so the server can never block on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()
        while time.time() < deadline:
            try:
                status, _ = request(self.port, "GET", "/api/store")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError("the server on port %d never answered GET /api/store" % self.port)

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()

    def stop(self):
        """SIGTERM (graceful shutdown); SIGKILL after 5 s. Returns True if it exited by itself."""
        if self.process.poll() is not None:
            return True
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(5)
            graceful = True
        except subprocess.TimeoutExpired:
            graceful = False
        self.kill()
        return graceful


def request(port, method, path, body=None, connection=None, timeout=10):
    """One request; returns (status, parsed JSON or raw bytes)."""
    own = connection is None
    conn = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {}
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data
        return response.status, parsed
    finally:
        if own:
            conn.close()


class Client(threading.Thread):
    """Buys tips for one install, sequentially, over one keep-alive connection, until stopped."""

    def __init__(self, port, install_id, seed, external, stop_event):
        super().__init__(daemon=True)
        self.port, self.install_id, self.external, self.stop_event = port, install_id, external, stop_event
        self.rng = random.Random(seed)
        self.acknowledged = []  # (transactionID, kind)
        self.statuses = {}
        self.unexpected = []  # errors seen before the kill

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while not self.stop_event.is_set():
            product = self.rng.choice(PRODUCTS)
            external = self.external and self.rng.random() < 0.3
            path = "/api/installs/%s/%s" % (self.install_id, "external-purchases" if external else "purchases")
            try:
                status, body = request(self.port, "POST", path, {"productID": product}, connection=conn)
            except (OSError, http.client.HTTPException) as error:
                if not self.stop_event.is_set():
                    # The kill can land between our check and the request; only note it.
                    self.unexpected.append("%s: %r" % (path, error))
                conn.close()
                if self.stop_event.wait(0.05):
                    break
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                continue
            key = "%s %d" % ("external" if external else "purchase", status)
            self.statuses[key] = self.statuses.get(key, 0) + 1
            if not isinstance(body, dict):
                continue
            if not external and 200 <= status < 300 and body.get("outcome") == "purchased" and body.get("transactionID") is not None:
                self.acknowledged.append((int(body["transactionID"]), "purchase"))
            elif external and status == 201 and body.get("delivered") and body.get("outcome") in ("counted", "duplicate"):
                self.acknowledged.append((int(body["transactionID"]), "external"))
        conn.close()


def start_round(port, number, clients, label, rng, stop_event):
    """A round's installs (POST /api/installs, launched) and one client thread per install, not started yet.
    Returns (the new install IDs, the threads, a problem line per install that could not be created)."""
    problems = []
    round_installs = []
    for index in range(clients):
        status, body = request(port, "POST", "/api/installs",
                               {"locale": "en", "launch": True, "label": "%s r%d c%d" % (label, number, index)})
        if status != 201:
            problems.append("POST /api/installs answered %d: %r" % (status, body))
            continue
        round_installs.append(body["id"])
    threads = [Client(port, install_id, rng.randrange(2 ** 32), index % 2 == 1, stop_event)
               for index, install_id in enumerate(round_installs)]
    return round_installs, threads, problems


def verify(port, installs, acknowledged):
    """Checks every install; returns (found, lost [(installID, transactionID)], problems)."""
    problems = []
    found = 0
    lost = []
    for install_id in installs:
        status, body = request(port, "GET", "/api/installs/%s" % install_id)
        if status != 200:
            problems.append("install %s: GET /api/installs answered %d (%r)" % (install_id, status, body))
            lost += [(install_id, tid) for tid, _ in acknowledged.get(install_id, ())]
            continue
        hearts = body["hearts"]
        status, ledger = request(port, "GET", "/api/installs/%s/ledger" % install_id)
        if status != 200 or not isinstance(ledger, list):
            problems.append("install %s: GET ledger answered %d" % (install_id, status))
            lost += [(install_id, tid) for tid, _ in acknowledged.get(install_id, ())]
            continue
        counted = {}
        seen = set()
        for row in ledger:
            tid = int(row["transactionID"])
            seen.add(tid)
            if row["outcome"] == "counted":
                counted[tid] = counted.get(tid, 0) + 1
        for tid, times in counted.items():
            if times > 1:
                problems.append("install %s: transaction %d counted %d times" % (install_id, tid, times))
        for tid, kind in acknowledged.get(install_id, ()):
            if tid in counted:
                found += 1
            else:
                lost.append((install_id, tid))
                problems.append("install %s: acknowledged %s transaction %d is %s" % (
                    install_id, kind, tid, "in the ledger but never counted" if tid in seen else "missing from the ledger"))
        expected = min(MAX_HEARTS, len(counted))
        if hearts != expected:
            problems.append("install %s: hearts %d != min(5, %d counted transactions) = %d" % (install_id, hearts, len(counted), expected))
    return found, lost, problems


def main():
    binary = find_binary()
    if not os.access(binary, os.X_OK):
        print("crash_test: no executable at %s; build it first: swift build -c release --product tipjar" % binary)
        return 2
    seed = int(os.environ.get("CRASH_SEED") or random.SystemRandom().randrange(1, 2 ** 31))
    rounds = int(os.environ.get("CRASH_ROUNDS", "20"))
    clients = int(os.environ.get("CRASH_CLIENTS", "6"))
    rng = random.Random(seed)
    folder = tempfile.mkdtemp(prefix="tipjar-crash-")
    database = os.path.join(folder, "crash.sqlite3")
    log_path = os.path.join(folder, "server.log")
    print("crash_test: binary %s, seed %d (rerun with CRASH_SEED=%d), %d rounds, %d clients, database %s"
          % (binary, seed, seed, rounds, clients, database), flush=True)

    started = time.time()
    installs = []  # every install created so far
    acknowledged = {}  # install ID -> [(transactionID, kind)]
    passed = failed = 0
    total_ack = total_found = total_lost = 0
    server = None
    try:
        server = Server(binary, database, log_path)
        for number in range(1, rounds + 1):
            if time.time() - started > TOTAL_BUDGET:
                print("round %d: time budget of %.0f s used up; stopping early" % (number, TOTAL_BUDGET))
                failed += rounds - number + 1
                break
            stop_event = threading.Event()
            round_installs, threads, problems = start_round(server.port, number, clients, "crash", rng, stop_event)
            installs.extend(round_installs)
            delay = rng.uniform(0.2, 1.5)
            for thread in threads:
                thread.start()
            time.sleep(delay)
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
            server.kill()
            try:
                server = Server(binary, database, log_path)
            except RuntimeError as error:
                server = None
                problems.append("restart after SIGKILL failed: %s" % error)
            found = lost = 0
            if server is not None:
                # The whole history is re-checked; the round's figures count this round's acknowledgements.
                _, lost_all, verify_problems = verify(server.port, installs, acknowledged)
                problems.extend(verify_problems)
                lost = sum(1 for install_id, _ in lost_all if install_id in round_installs)
                found = round_ack - lost
            else:
                lost = round_ack
            if round_ack == 0:
                problems.append("no purchase was acknowledged before the kill (statuses %s)" % statuses)
            total_ack += round_ack
            total_found += found
            total_lost += lost
            verdict = "PASS" if not problems else "FAIL"
            print("round %2d/%d: kill after %.2f s; acknowledged %d (%s); found %d, lost %d; answers %s; %s"
                  % (number, rounds, delay, round_ack,
                     ", ".join("%s %d" % (k, sum(1 for t in threads for _, kind in t.acknowledged if kind == k))
                               for k in ("purchase", "external")),
                     found, lost, dict(sorted(statuses.items())), verdict), flush=True)
            for problem in problems[:20]:
                print("    - " + problem)
            if len(problems) > 20:
                print("    - … %d more" % (len(problems) - 20))
            if problems:
                failed += 1
            else:
                passed += 1
            if server is None:
                failed += rounds - number
                print("stopping: the server cannot be restarted")
                break
        # Final whole-history check on the last restarted server.
        if server is not None:
            found_all, lost_all, final_problems = verify(server.port, installs, acknowledged)
            all_ack = sum(len(v) for v in acknowledged.values())
            print("final check over %d installs: acknowledged=%d found=%d lost=%d%s"
                  % (len(installs), all_ack, found_all, len(lost_all), "" if not final_problems else "; %d problem(s)" % len(final_problems)))
            for problem in final_problems[:20]:
                print("    - " + problem)
            total_lost = max(total_lost, len(lost_all))
            if final_problems and failed == 0:
                failed += 1
                passed -= 1
            graceful = server.stop()
            if not graceful:
                print("note: the server did not exit within 5 s of SIGTERM (killed)")
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
        if os.environ.get("CRASH_KEEP") == "1" or failed:
            print("kept %s" % folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("totals: acknowledged=%d found=%d lost=%d (%.1f s, seed %d)" % (total_ack, total_found, total_lost, time.time() - started, seed))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
