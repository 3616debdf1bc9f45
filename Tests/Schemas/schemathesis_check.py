#!/usr/bin/env python3
"""Holds the server to Public/api/openapi.json with generated requests (schemathesis, every check).

Starts `tipjar serve` (TIPJAR_BIN, default .build/release/tipjar) on an ephemeral loopback port with
a temporary database, runs `schemathesis run` with `--checks all` against it (a bounded number of
cases per operation, a fixed seed, so a run takes well under three minutes), and reads the run's
JUnit report. Exit 0 when every failure schemathesis reports is a 501 answer to a method the
server does not know (RFC 9110 §15.6.2: schemathesis sends unregistered methods such as QUERY and
counts any 5xx as a server error); otherwise every other failure is printed and the exit status is 1.

Environment: SCHEMATHESIS_MAX_EXAMPLES (default 12) and SCHEMATHESIS_SEED (default 1) change the run;
SCHEMATHESIS_KEEP=1 keeps the temporary folder (server log, JUnit report).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_PATH = os.path.join(ROOT, "Public", "api", "openapi.json")
CONFIG_PATH = os.path.join(ROOT, "Tests", "Schemas", "schemathesis.toml")
BINARY = os.environ.get("TIPJAR_BIN", os.path.join(ROOT, ".build", "release", "tipjar"))
# RFC 9110 §9 and RFC 5789 name these; a server answers 501 to any other (§15.6.2).
KNOWN_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}


def start_server(folder):
    """`tipjar serve --port 0` on a new database; returns the process and its port (from the banner)."""
    command = [BINARY, "serve", "--port", "0", "--database", os.path.join(folder, "tipjar.sqlite3")]
    log = open(os.path.join(folder, "server.log"), "wb")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log)
    banner = process.stdout.readline().decode()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
    if not match:
        process.kill()
        sys.exit(f"schemathesis_check: tipjar serve did not start: {banner!r} (log in {folder})")
    return process, int(match.group(1))


def is_unknown_method_501(text):
    """A failure whose every response is a 501 to a request whose method RFC 9110 does not define."""
    statuses = re.findall(r"\[(\d{3})\]", text)
    methods = set(re.findall(r"curl -X ([A-Za-z]+)", text))
    return bool(statuses) and set(statuses) == {"501"} and bool(methods) and not (methods & KNOWN_METHODS)


def failures(junit_path):
    """(test case name, failure text) for every failed or erroring case of the JUnit report."""
    found = []
    for case in ElementTree.parse(junit_path).getroot().iter("testcase"):
        for child in case:
            if child.tag in ("failure", "error"):
                found.append((case.get("name", "?"), (child.get("message") or "") + "\n" + (child.text or "")))
    return found


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"schemathesis_check: no server binary at {BINARY} (build it, or set TIPJAR_BIN)")
    folder = tempfile.mkdtemp(prefix="tipjar-schemathesis-")
    process, port = start_server(folder)
    junit = os.path.join(folder, "junit.xml")
    command = ["schemathesis", "--no-color", "--config-file", CONFIG_PATH, "run", SPEC_PATH, "--url", f"http://127.0.0.1:{port}",
               "--checks", "all", "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "12"),
               "--seed", os.environ.get("SCHEMATHESIS_SEED", "1"), "--workers", "1",
               "--request-timeout", "10", "--continue-on-failure",
               "--report", "junit", "--report-junit-path", junit, "--generation-database", "none"]
    try:
        run = subprocess.run(command, cwd=folder)
        if not os.path.exists(junit):
            print(f"schemathesis_check: schemathesis wrote no report (exit {run.returncode})")
            return 1
        problems = [(name, text) for name, text in failures(junit) if not is_unknown_method_501(text)]
        accepted = len(failures(junit)) - len(problems)
        for name, text in problems:
            print(f"FAILED {name}\n{text.strip()}\n")
        print(f"schemathesis_check: {len(problems)} failures, {accepted} accepted (501 for methods RFC 9110 does not define)")
        return 1 if problems else 0
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        if os.environ.get("SCHEMATHESIS_KEEP"):
            print(f"schemathesis_check: kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
