#!/usr/bin/env bash
# Purchases per second through POST /api/installs/{id}/purchases, driven by wrk (8 connections,
# one install each: an install allows one open purchase), at --durability full and normal,
# beside the raw SQLite ceiling (one-row INSERT transactions, same settings) measured in the same
# run. wrk keeps the load generator out of the way (scale_bench.sh's Python clients saturate first).
#
# The machine is shared and its disk's fsync time drifts, so each durability runs ROUNDS times,
# and each round brackets the server between two half-length ceiling runs (ceiling, server,
# ceiling; the round's ceiling is their mean); the ratio quoted is the median of the rounds' ratios.
#
#   Tests/Benchmarks/purchase_bench.sh [seconds]       # default 8 s per server run; ROUNDS=5
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
SECONDS_EACH="${1:-8}"
ROUNDS="${ROUNDS:-5}"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release --product tipjar)
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # durability round -> "purchases/s p99 non-2xx"
  local port; port="$(free_port)"
  "$BIN" serve --port "$port" --database "$WORK/$1-$2.sqlite3" --durability "$1" >/dev/null 2>&1 &
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

ceiling() { # FULL|NORMAL name seconds
  python3 - "$WORK/ceiling-$1-$2.sqlite3" "$1" "$3" <<'PY'
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

echo "purchases (wrk -t8 -c8, ${SECONDS_EACH}s, one install per connection), release build; $ROUNDS rounds of ceiling, server, ceiling"
printf '%-12s %6s %12s %10s %12s %8s %s\n' durability round purchases/s p99 ceiling/s ratio non-2xx
summary=()
for durability in full normal; do
  pragma="$(tr '[:lower:]' '[:upper:]' <<<"$durability")"
  ratios=()
  for round in $(seq 1 "$ROUNDS"); do
    half="$(python3 -c "print($SECONDS_EACH / 2)")"
    before="$(ceiling "$pragma" "$round-before" "$half")"
    read -r rps p99 bad <<<"$(run "$durability" "$round")"
    after="$(ceiling "$pragma" "$round-after" "$half")"
    limit="$(( (before + after) / 2 ))"
    ratio="$(python3 -c "print('%.2f' % ($rps/$limit))")"
    ratios+=("$ratio")
    printf '%-12s %6s %12s %10s %12s %7sx %s\n' "$durability" "$round" "$rps" "$p99" "$limit" "$ratio" "$bad"
  done
  summary+=("$durability: median ratio $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')x (rounds: ${ratios[*]})")
done
printf '%s\n' "${summary[@]}"
