#!/usr/bin/env bash
# Two builds' CPU per purchase, taking turns run by run: for a change whose effect is smaller than the shared host's
# drift. purchase_bench.sh runs one build for minutes, while this host's speed moves by 15 % from one minute to the
# next, so two builds it measured apart can differ by more than the change; here each pair of runs is seconds apart.
#
# Each run: a new database at --durability $DURABILITY (default normal), eight installs, one second of wrk (8
# connections, one install each) to warm up, then four seconds measured: the server's CPU time (utime + stime of
# /proc/PID/stat, every thread, proc(5)) divided by the purchases answered, and the purchases a second. Prints each
# pair, then the medians and how many pairs favour each build.
#
#   Tests/Benchmarks/purchase_ab.sh BUILD_A BUILD_B [pairs]     # default 8 pairs; DURABILITY=full for synced commits
set -euo pipefail
A="$1"; B="$2"; PAIRS="${3:-8}"; DURABILITY="${DURABILITY:-normal}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/Tests/Benchmarks/purchase_load.sh"
TICKS="$(getconf CLK_TCK)"
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() { # binary -> CPU µs per purchase
  local port; port="$(free_port)"
  rm -f "$WORK"/db.sqlite3*
  "$1" serve --port "$port" --database "$WORK/db.sqlite3" --durability "$DURABILITY" >/dev/null 2>&1 &
  PID=$!
  purchase_load "$port" 8 "$WORK/post.lua"
  wrk -t8 -c8 -d1s -s "$WORK/post.lua" "http://127.0.0.1:$port" >/dev/null
  local before after requests
  before="$(cpu_ticks "$PID")"
  requests="$(wrk -t8 -c8 -d4s -s "$WORK/post.lua" "http://127.0.0.1:$port" | awk '/requests in/ {print $1}')"
  after="$(cpu_ticks "$PID")"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  python3 -c "print('%.0f %.0f' % (($after - $before) * 1e6 / $TICKS / max(1, $requests), $requests / 4))"
}

echo "CPU µs per purchase, durability $DURABILITY, 8 connections; A = $A, B = $B"
results=()
for pair in $(seq 1 "$PAIRS"); do
  read -r a a_rate <<<"$(run "$A")"; read -r b b_rate <<<"$(run "$B")"
  echo "pair $pair: A $a µs ($a_rate/s)  B $b µs ($b_rate/s)  (B - A = $((b - a)) µs)"
  results+=("$a $b $a_rate $b_rate")
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [tuple(map(int, line.split())) for line in sys.stdin if line.strip()]
pairs = [(r[0], r[1]) for r in rows]
a, b = [p[0] for p in pairs], [p[1] for p in pairs]
print("median A %.0f µs, B %.0f µs (B/A %.2f); median of B - A %+.0f µs; B lower in %d of %d pairs" % (
    statistics.median(a), statistics.median(b), statistics.median(b) / statistics.median(a),
    statistics.median(y - x for x, y in pairs), sum(y < x for x, y in pairs), len(pairs)))
print("purchases a second: median A %.0f, B %.0f (B/A %.2f); B higher in %d of %d pairs" % (
    statistics.median(r[2] for r in rows), statistics.median(r[3] for r in rows),
    statistics.median(r[3] for r in rows) / statistics.median(r[2] for r in rows), sum(r[3] > r[2] for r in rows), len(rows)))'
