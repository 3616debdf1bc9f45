#!/usr/bin/env bash
# Faults 2 and 3 of issue 6, at the server level: `tipjar serve` refuses a bad database file at
# start-up with a clear message naming the file, within 5 s, exit status non-zero, and the file's
# bytes (sha256, and its -wal's) are unchanged afterwards.
#
#   TIPJAR_BIN=.build/release/tipjar Tests/Faults/startup_faults.sh
#
# Cases: a file of random bytes; an SQLite header followed by random bytes; a real database cut in
# half (page-aligned) and cut mid-page; a WAL from another database placed beside a database; a
# read-only database file (chmod a-w); a read-only folder. A control case checks that a good
# database starts. Builds nothing: TIPJAR_BIN defaults to .build/release/tipjar (current folder,
# else the repository root). Prints `N passed, M failed`; exits 1 on any failure.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
if [ -n "${TIPJAR_BIN:-}" ]; then BIN="$TIPJAR_BIN"
elif [ -x .build/release/tipjar ]; then BIN="$PWD/.build/release/tipjar"
else BIN="$ROOT/.build/release/tipjar"; fi
[ -x "$BIN" ] || { echo "startup_faults: no executable at $BIN; build it: swift build -c release --product tipjar"; exit 2; }
command -v python3 >/dev/null || { echo "startup_faults: python3 is required"; exit 2; }

WORK="$(mktemp -d /tmp/tipjar-startup-faults.XXXXXX)"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null
    chmod -R u+w "$WORK" 2>/dev/null
    if [ "${FAULTS_KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
PASSED=0; FAILED=0; FAILURES=()
pass() { PASSED=$((PASSED + 1)); echo "PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); FAILURES+=("$1: $2"); echo "FAIL  $1: $2"; }

# start_server DB LOG -> sets SERVER_PID and PORT (waits for the "serving … on http://…:PORT/" line)
start_server() {
    "$BIN" serve --port 0 --database "$1" >"$2.out" 2>"$2.err" &
    SERVER_PID=$!
    PORT=""
    for _ in $(seq 200); do
        PORT="$(sed -n 's#.*http://127\.0\.0\.1:\([0-9]*\)/.*#\1#p' "$2.out" | head -1)"
        [ -n "$PORT" ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.05
    done
    echo "could not start the server on $1:"; cat "$2.out" "$2.err" | tail -5
    return 1
}
kill_server() { [ -n "$SERVER_PID" ] && { kill -9 "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; }; SERVER_PID=""; }

# populate PORT N: N installs with two purchases each, through the JSON API
populate() {
    python3 - "$1" "$2" <<'PY'
import http.client, json, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
def post(path, body):
    c.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    r = c.getresponse(); data = r.read()
    if r.status >= 300: sys.exit("%s answered %d: %r" % (path, r.status, data[:200]))
    return json.loads(data)
for i in range(count):
    iid = post("/api/installs", {"locale": "en", "launch": True, "label": "fixture %d" % i})["id"]
    for product in ("com.example.tipjar.tip.coffee", "com.example.tipjar.tip.lunch"):
        post("/api/installs/%s/purchases" % iid, {"productID": product})
PY
}

# make_db PATH N -> a real database made by the server, checkpointed into the main file (no -wal)
make_db() {
    start_server "$1" "$1.make" || return 1
    populate "$PORT" "$2" || return 1
    kill_server
    python3 - "$1" <<'PY' || return 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()  # the last connection removes the -wal and -shm files
PY
    rm -f "$1".make.out "$1".make.err
}

# make_db_with_wal PATH N -> a database whose committed writes are still in PATH-wal (server SIGKILLed)
make_db_with_wal() {
    start_server "$1" "$1.make" || return 1
    populate "$PORT" "$2" || return 1
    kill_server
    rm -f "$1-shm" "$1".make.out "$1".make.err
    [ -s "$1-wal" ] || { echo "no -wal was left beside $1"; return 1; }
}

digest() { for f in "$@"; do [ -e "$f" ] && sha256sum "$f" | cut -d' ' -f1 || echo "absent"; done | tr '\n' ' '; }

# expect_refusal NAME DB FILE_TO_NAME... : the server must exit non-zero within 5 s, name one of
# the given files, and leave DB and DB-wal byte for byte as they were. Extra: REQUIRE_WORD (regex).
expect_refusal() {
    local name="$1" db="$2"; shift 2
    local before after status output elapsed start named=0 f
    before="$(digest "$db" "$db-wal")"
    start=$(date +%s.%N)
    output="$(timeout -s KILL 5 "$BIN" serve --port 0 --database "$db" 2>&1)"
    status=$?
    elapsed=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
    after="$(digest "$db" "$db-wal")"
    local message; message="$(printf '%s' "$output" | grep -v '^method=' | head -3 | cut -c1-400)"
    for f in "$@"; do case "$output" in *"$f"*) named=1 ;; esac; done
    if [ "$status" -eq 137 ]; then
        fail "$name" "still running after 5 s (killed); output: $message"
    elif [ "$status" -eq 0 ]; then
        fail "$name" "exited 0 (accepted the file?); output: $message"
    elif printf '%s' "$output" | grep -q "serving"; then
        fail "$name" "started serving before exiting $status; output: $message"
    elif [ "$named" -ne 1 ]; then
        fail "$name" "exit $status but the message does not name $*: $message"
    elif [ -n "${REQUIRE_WORD:-}" ] && ! printf '%s' "$output" | grep -qiE "$REQUIRE_WORD"; then
        fail "$name" "exit $status but the message does not say /$REQUIRE_WORD/: $message"
    elif [ "$before" != "$after" ]; then
        fail "$name" "the file changed: sha256 before [$before] after [$after]"
    else
        pass "$name (exit $status in ${elapsed}s, bytes unchanged): $message"
    fi
    local leftovers; leftovers="$(cd "$(dirname "$db")" && ls -A | grep -F "$(basename "$db")-" | grep -vE '\.(out|err)$' | tr '\n' ' ')"
    [ -n "$leftovers" ] && echo "      note: files beside it afterwards: $leftovers"
}

echo "startup_faults: binary $BIN, work folder $WORK"

# ---- control: a good database starts and serves
mkdir -p "$WORK/good"
if make_db "$WORK/good/good.sqlite3" 20; then
    if start_server "$WORK/good/good.sqlite3" "$WORK/good/run"; then
        code="$(python3 -c "import http.client,sys; c=http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=5); c.request('GET','/api/installs'); print(c.getresponse().status)" "$PORT" 2>&1)"
        kill_server
        [ "$code" = 200 ] && pass "control: a good database starts and GET /api/installs answers 200" || fail "control" "GET /api/installs answered $code"
    else
        fail "control" "a good database did not start"
    fi
else
    fail "control" "could not create a database with the server"
fi

# ---- fault 2: corrupt files
mkdir -p "$WORK/random"
head -c 65536 /dev/urandom >"$WORK/random/random.sqlite3"
expect_refusal "random bytes (64 KiB)" "$WORK/random/random.sqlite3" "$WORK/random/random.sqlite3"

mkdir -p "$WORK/header"
{ head -c 100 "$WORK/good/good.sqlite3"; head -c $((4096 * 8 - 100)) /dev/urandom; } >"$WORK/header/header.sqlite3"
expect_refusal "SQLite header + random pages" "$WORK/header/header.sqlite3" "$WORK/header/header.sqlite3"

mkdir -p "$WORK/half" "$WORK/midpage"
SIZE=$(stat -c %s "$WORK/good/good.sqlite3")
PAGE=$(python3 -c "import sys; h=open(sys.argv[1],'rb').read(18); p=h[16]<<8|h[17]; print(65536 if p==1 else p)" "$WORK/good/good.sqlite3")
HALF=$(( (SIZE / PAGE / 2) * PAGE ))
head -c "$HALF" "$WORK/good/good.sqlite3" >"$WORK/half/half.sqlite3"
echo "      (real database: $SIZE bytes, page size $PAGE; cut to $HALF bytes and to $((HALF + PAGE / 2)) bytes)"
expect_refusal "truncated database (first half, page-aligned)" "$WORK/half/half.sqlite3" "$WORK/half/half.sqlite3"
head -c $((HALF + PAGE / 2)) "$WORK/good/good.sqlite3" >"$WORK/midpage/midpage.sqlite3"
expect_refusal "truncated database (cut mid-page)" "$WORK/midpage/midpage.sqlite3" "$WORK/midpage/midpage.sqlite3"

mkdir -p "$WORK/foreign" "$WORK/other"
if make_db "$WORK/foreign/target.sqlite3" 10 && make_db_with_wal "$WORK/other/other.sqlite3" 30; then
    cp "$WORK/other/other.sqlite3-wal" "$WORK/foreign/target.sqlite3-wal"
    echo "      (foreign WAL: $(stat -c %s "$WORK/foreign/target.sqlite3-wal") bytes from other.sqlite3)"
    expect_refusal "WAL from another database beside a database" "$WORK/foreign/target.sqlite3" \
        "$WORK/foreign/target.sqlite3-wal" "$WORK/foreign/target.sqlite3"
else
    fail "foreign WAL" "could not prepare the databases"
fi

# Same, but the other database was brand new: its WAL holds the whole schema creation.
mkdir -p "$WORK/foreign2" "$WORK/fresh"
if make_db "$WORK/foreign2/target.sqlite3" 10 && make_db_with_wal "$WORK/fresh/fresh.sqlite3" 1; then
    cp "$WORK/fresh/fresh.sqlite3-wal" "$WORK/foreign2/target.sqlite3-wal"
    expect_refusal "WAL of a freshly created database beside another database" "$WORK/foreign2/target.sqlite3" \
        "$WORK/foreign2/target.sqlite3-wal" "$WORK/foreign2/target.sqlite3"
else
    fail "foreign WAL (fresh)" "could not prepare the databases"
fi

# ---- fault 3: read-only file and folder (a clear start-up error)
mkdir -p "$WORK/rofile"
cp "$WORK/good/good.sqlite3" "$WORK/rofile/ro.sqlite3"
chmod a-w "$WORK/rofile/ro.sqlite3"
REQUIRE_WORD="read-only|readonly|permission|not writable" \
    expect_refusal "read-only database file (chmod a-w)" "$WORK/rofile/ro.sqlite3" "$WORK/rofile/ro.sqlite3"
chmod u+w "$WORK/rofile/ro.sqlite3"

mkdir -p "$WORK/rofolder"
cp "$WORK/good/good.sqlite3" "$WORK/rofolder/db.sqlite3"
chmod a-w "$WORK/rofolder"
REQUIRE_WORD="read-only|readonly|permission|not writable" \
    expect_refusal "read-only folder (chmod a-w) holding the database" "$WORK/rofolder/db.sqlite3" "$WORK/rofolder"
chmod u+w "$WORK/rofolder"

echo
if [ "$FAILED" -gt 0 ]; then
    echo "failures:"; for f in "${FAILURES[@]}"; do echo "  - $f"; done
fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
