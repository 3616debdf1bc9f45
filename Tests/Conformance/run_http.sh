#!/usr/bin/env bash
# Starts the release tipjar server on a free port with a temporary database and runs the HTTP/1.1
# conformance check against it, slow-client cases included. Exit status: the check's.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${TIPJAR_BIN:-$root/.build/release/tipjar}"
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$bin" serve --port "$port" --database "$work/tipjar.sqlite3" >"$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
  sleep 0.1
done
python3 "$root/Tests/Conformance/http/check.py" --port "$port" --slow
