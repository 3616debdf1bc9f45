#!/usr/bin/env bash
# Mustache render benchmark: builds Tests/Benchmarks/MustacheBench (its own package,
# depending on this repository's `Mustache` library by path, built in its own .build) in release
# and runs it. It prints renders per second of a ~3 KB page (layout parent with blocks, a partial
# in a loop, a 20-row table), typed MustacheValue and JSONSerialization input.
#
#   Tests/Benchmarks/render_bench.sh
# Target: >= 50,000 renders/s on one core.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE/MustacheBench"
echo "== swift build -c release (in $PWD)"
swift build -c release --product MustacheBench 2>&1 | tail -3
BIN="$(swift build -c release --product MustacheBench --show-bin-path)/MustacheBench"
echo "== $BIN"
if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$BIN"
else
    "$BIN"
fi
