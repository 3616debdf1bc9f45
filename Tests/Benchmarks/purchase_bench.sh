#!/usr/bin/env bash
# Purchases per second through POST /api/installs/{id}/purchases, driven by wrk (8 connections,
# one install each: an install allows one open purchase), at --durability full and normal,
# beside the raw SQLite ceiling (one-row INSERT transactions, same settings) measured in the same
# run. wrk keeps the load generator out of the way (scale_bench.sh's Python clients saturate first).
#
#   Tests/Benchmarks/purchase_bench.sh [seconds]       # default 8
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
SECONDS_EACH="${1:-8}"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release --product tipjar)
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # durability
  local port; port="$(free_port)"
  "$BIN" serve --port "$port" --database "$WORK/$1.sqlite3" --durability "$1" >/dev/null 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/store" && break; sleep 0.05; done
  local ids=()
  for _ in $(seq 1 8); do
    ids+=("$(curl -s -X POST -H 'Content-Type: application/json' -d '{"locale":"en","launch":true}' "http://127.0.0.1:$port/api/installs" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')")
  done
  { printf 'local ids = {'; printf '"%s",' "${ids[@]}"; printf '}\n'
    cat <<'LUA'
local next_index = 0
function setup(thread) next_index = next_index + 1; thread:set("id", ids[next_index]) end
function request()
  return wrk.format("POST", "/api/installs/" .. id .. "/purchases", {["Content-Type"] = "application/json"},
                    '{"productID":"com.example.tipjar.tip.coffee"}')
end
LUA
  } > "$WORK/post.lua"
  local out; out="$(wrk -t8 -c8 -d"${SECONDS_EACH}s" --latency -s "$WORK/post.lua" "http://127.0.0.1:$port")"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  local rps p99 non2xx
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  non2xx="$(awk '/Non-2xx/ {print $5}' <<<"$out")"
  echo "$rps $p99 ${non2xx:-0}"
}

ceiling() { # FULL|NORMAL
  python3 - "$WORK/ceiling-$1.sqlite3" "$1" "$SECONDS_EACH" <<'PY'
import sqlite3, sys, time
path, sync, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL"); db.execute("PRAGMA synchronous = %s" % sync)
db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
n, end = 0, time.time() + seconds
while time.time() < end:
    db.execute("BEGIN IMMEDIATE"); db.execute("INSERT INTO t (v) VALUES (?)", (n,)); db.execute("COMMIT"); n += 1
print("%.0f" % (n / seconds))
PY
}

read -r full_rps full_p99 full_bad <<<"$(run full)"
read -r normal_rps normal_p99 normal_bad <<<"$(run normal)"
ceiling_full="$(ceiling FULL)"
ceiling_normal="$(ceiling NORMAL)"
echo "purchases (wrk -t8 -c8, ${SECONDS_EACH}s, one install per connection), release build"
printf '%-18s %12s %10s %12s %8s %s\n' durability purchases/s p99 ceiling/s ratio non-2xx
printf '%-18s %12s %10s %12s %7.2fx %s\n' full "$full_rps" "$full_p99" "$ceiling_full" "$(python3 -c "print($full_rps/$ceiling_full)")" "$full_bad"
printf '%-18s %12s %10s %12s %7.2fx %s\n' normal "$normal_rps" "$normal_p99" "$ceiling_normal" "$(python3 -c "print($normal_rps/$ceiling_normal)")" "$normal_bad"
