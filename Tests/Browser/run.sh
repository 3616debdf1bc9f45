#!/bin/sh
# Runs the real-browser end-to-end tests against the release server binary
# (TIPJAR_BIN, default .build/release/tipjar; build it with `swift build -c release --product tipjar`).
# Runs them in BROWSER_WORKERS processes (default 2, pytest-xdist), each with its own server and Chromium.
# Prints pytest's summary line; the exit code is pytest's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
"$here/install.sh" || exit $?
cd "$here/../.." || exit 1
python3 -m pytest -p no:cacheprovider -n "${BROWSER_WORKERS:-2}" --durations=12 "$@" Tests/Browser
exit $?
