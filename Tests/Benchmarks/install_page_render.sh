#!/usr/bin/env bash
# Renders the install page view model 100,000 times on one core (release build) and
# prints renders per second. Target: >= 50,000 renders/s.
set -euo pipefail
cd "$(dirname "$0")/../.."
TIPJAR_BENCHMARK=1 swift test -c release -Xswiftc -enable-testing --filter InstallPageRenderBenchmark 2>&1 | grep -E "install page with|passed|failed"
