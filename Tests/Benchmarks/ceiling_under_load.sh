#!/usr/bin/env bash
# What one synced SQLite commit costs on this host while the machine carries the purchase load: the raw one-row
# ceiling of purchase_bench.sh (WAL, synchronous=FULL, one connection, one INSERT a transaction) measured alone, then
# beside the server taking purchases (wrk, 8 connections, one install each), then alone again. The server runs at
# --durability normal, so it syncs nothing itself and the ceiling's fsyncs share the disk with no other; what changes
# is only the CPU the server and wrk use. On a virtual machine whose disk is emulated by a process on the same cores,
# an fsync waits for that process too, so the ratio shows how much of `full`'s gap to the idle ceiling is the host's.
#
#   Tests/Benchmarks/ceiling_under_load.sh [seconds] [rounds]     # default 4 s a ceiling run, 3 rounds
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/Tests/Benchmarks/purchase_load.sh"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
SECONDS_EACH="${1:-4}"
ROUNDS="${2:-3}"
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release --product tipjar)
WORK="$(mktemp -d)"
PID=""
WRK_PID=""
cleanup() { [ -n "$WRK_PID" ] && kill "$WRK_PID" 2>/dev/null; [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

ceiling() { sqlite_ceiling "$WORK/ceiling-$1.sqlite3" FULL "$SECONDS_EACH"; } # name -> commits a second

echo "one-row synced commits a second, alone and beside $(basename "$BIN") taking purchases at --durability normal (8 connections)"
printf '%6s %10s %12s %10s %8s %12s\n' round alone-1 under-load alone-2 ratio purchases/s
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  before="$(ceiling "$round-before")"
  port="$(free_port)"
  "$BIN" serve --port "$port" --database "$WORK/server-$round.sqlite3" --durability normal >/dev/null 2>&1 &
  PID=$!
  purchase_load "$port" 8 "$WORK/post.lua"
  wrk -t8 -c8 -d1s -s "$WORK/post.lua" "http://127.0.0.1:$port" >/dev/null  # warm-up
  wrk -t8 -c8 -d"$((SECONDS_EACH + 2))s" -s "$WORK/post.lua" "http://127.0.0.1:$port" >"$WORK/wrk.out" &
  WRK_PID=$!
  sleep 1
  loaded="$(ceiling "$round-loaded")"
  wait "$WRK_PID"; WRK_PID=""
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  after="$(ceiling "$round-after")"
  rate="$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$WORK/wrk.out")"
  ratio="$(python3 -c "print('%.2f' % ($loaded / (($before + $after) / 2)))")"
  ratios+=("$ratio")
  printf '%6s %10s %12s %10s %7sx %12s\n' "$round" "$before" "$loaded" "$after" "$ratio" "$rate"
done
echo "median ratio under load / alone: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')x"
