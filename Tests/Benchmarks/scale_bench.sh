#!/usr/bin/env bash
# Scale benchmark: 100,000 installs and 1,000,000 ledger rows, seeded fast with SQL
# (Tests/Benchmarks/scale_seed.py), then the release `tipjar serve` on them: p50/p99 ms of /installs
# pages and of /installs/{id} with 1,000 ledger rows; purchases/s through the JSON API with 8
# concurrent clients at --durability full and normal, beside the raw SQLite one-row-transaction
# ceiling measured in the same run (Tests/Benchmarks/scale_bench.py does the work).
#
#   Tests/Benchmarks/scale_bench.sh [--seconds 10] [--requests 200] [--clients 8] [--dir /tmp] [--keep]
#
# Builds .build/release/tipjar (from this repository) if it is missing; TIPJAR_BIN overrides it.
# Needs python3 (standard library only, with its sqlite3 module) and wrk (installed from Debian if
# missing). Everything runs on 127.0.0.1.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import sqlite3' 2>/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 >/dev/null
fi
# wrk drives the purchase phase (Python threads would saturate before the server does).
command -v wrk >/dev/null 2>&1 || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >/dev/null; }
if [ ! -x "$BIN" ]; then
    echo "== building the release tipjar in $ROOT"
    (cd "$ROOT" && swift build -c release --product tipjar)
fi
exec python3 "$HERE/scale_bench.py" --bin "$BIN" "$@"
