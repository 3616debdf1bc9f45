#!/usr/bin/env bash
# `tipjar serve` at start-up: it refuses a bad database file with a clear message naming the file,
# within 5 s, exit status non-zero, and the file's bytes (sha256, and its -wal's) are unchanged
# afterwards; and it starts normally, with all data, on every file SQLite itself opens as sound.
#
#   TIPJAR_BIN=.build/release/tipjar Tests/Faults/startup_faults.sh
#
# Refused: a file of random bytes; an SQLite header followed by random bytes; a real database cut
# in half (page-aligned) and cut mid-page; a WAL from another database placed beside a database;
# one key changed in a deliveries_by_install index page (PRAGMA integrity_check fails, and
# `tipjar check-database` says so and exits 1; after a clean stop `serve` starts at once and its background check
# answers 503 within 30 s, naming it); a read-only database file (chmod a-w); a read-only
# folder (the damaged index is refused after an unclean stop: a -wal beside it). Accepted: a good database (control; `check-database` exits 0); the three states a
# SIGKILL leaves while SQLite starts a new WAL generation (https://www.sqlite.org/walformat.html):
# a new WAL header + the old frame 1, a new frame header + the old page bytes, a header with no
# frame; a database with bytes after its last page. Builds nothing: TIPJAR_BIN defaults to
# .build/release/tipjar (current folder, else the repository root). Prints `N passed, M failed`;
# exits 1 on any failure.
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

# ---- corrupt files
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

# expect_start NAME DB INSTALLS: the server starts on DB, lists INSTALLS installs and answers a purchase with 200
expect_start() {
    local name="$1" db="$2" want="$3" got
    if ! start_server "$db" "$db.run" >/dev/null; then
        fail "$name" "did not start: $(grep -v '^method=' "$db.run.err" | head -3 | cut -c1-400)"; return
    fi
    got="$(python3 - "$PORT" <<'PY'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
ids, page = [], 1
while True:
    c.request("GET", "/api/installs?pageSize=50&page=%d" % page)
    body = json.loads(c.getresponse().read())
    ids += [install["id"] for install in body["installs"]]
    if not body["hasMore"]: break
    page += 1
c.request("POST", "/api/installs/%s/purchases" % ids[0], body='{"productID":"com.example.tipjar.tip.coffee"}',
          headers={"Content-Type": "application/json"})
reply = c.getresponse(); reply.read()
print(len(ids), reply.status)
PY
)"
    kill_server
    if [ "$got" = "$want 200" ]; then pass "$name (started; $want installs listed, a purchase answered 200)"
    else fail "$name" "expected '$want 200' (installs listed, purchase status), got '$got'"; fi
}

# wal_restart DB STATE: leaves DB and DB-wal as a SIGKILL leaves them while SQLite starts a new WAL
# generation: generation 1 was checkpointed into DB, then the next write rewrote the 32-byte WAL
# header (new salts) and was killed before (or while) writing frame 1 (24-byte header, then the page).
wal_restart() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
path, state = sys.argv[1], sys.argv[2]
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("UPDATE installs SET label = label || ' (1)'")    # WAL generation 1 (a real change:
db.execute("PRAGMA wal_checkpoint(FULL)")                    # SQLite skips identical rows) is copied
snapshot, old = open(path, "rb").read(), open(path + "-wal", "rb").read()     # into the database;
db.execute("UPDATE installs SET label = label || ' (2)'")    # generation 2: new header, new frame 1
new = open(path + "-wal", "rb").read()
frame = 24 + db.execute("PRAGMA page_size").fetchone()[0]
db.close()
assert new[:32] != old[:32], "SQLite did not start a new WAL generation"
wal = {"new-header-old-frame": new[:32] + old[32:32 + frame],
       "new-frame-header-old-page": new[:32 + 24] + old[32 + 24:32 + frame],
       "header-only": new[:32]}[state]
open(path, "wb").write(snapshot)
open(path + "-wal", "wb").write(wal)
PY
    [ $? -eq 0 ] || return 1
    rm -f "$1-shm"
}

# ---- files SQLite opens as sound start normally, with all data
for state in new-header-old-frame new-frame-header-old-page header-only; do
    mkdir -p "$WORK/$state"
    cp "$WORK/good/good.sqlite3" "$WORK/$state/db.sqlite3"
    if wal_restart "$WORK/$state/db.sqlite3" "$state"; then
        expect_start "crash while SQLite starts a new WAL generation: $state ($(stat -c %s "$WORK/$state/db.sqlite3-wal")-byte -wal)" \
            "$WORK/$state/db.sqlite3" 20
    else
        fail "WAL restart state $state" "could not build it"
    fi
done
mkdir -p "$WORK/trailing"
{ cat "$WORK/good/good.sqlite3"; head -c 5000 /dev/urandom; } >"$WORK/trailing/db.sqlite3"
expect_start "5,000 bytes after the database's last page" "$WORK/trailing/db.sqlite3" 20

# ---- a damaged index: refused by serve, reported by check-database
mkdir -p "$WORK/index"
cp "$WORK/good/good.sqlite3" "$WORK/index/db.sqlite3"
python3 - "$WORK/index/db.sqlite3" <<'PY'
import sqlite3, sys
path = sys.argv[1]
db = sqlite3.connect(path)
page = db.execute("PRAGMA page_size").fetchone()[0]
leaf = db.execute("SELECT pageno FROM dbstat WHERE name = 'deliveries_by_install' AND pagetype = 'leaf' ORDER BY pageno").fetchone()[0]
ids = [row[0].encode() for row in db.execute("SELECT id FROM installs")]
db.close()
data = bytearray(open(path, "rb").read())
start = (leaf - 1) * page
at = next(found for found in (data.find(i, start, start + page) for i in ids) if found >= 0)
data[at + len(ids[0]) - 1] ^= 0x01   # one hex digit of one install ID in the index's leaf page
open(path, "wb").write(data)
PY
# serve reads every page only after an unclean stop (a -wal beside the file; here the empty one SQLite creates
# when it opens a WAL database, as a crash right after opening leaves it); after a clean stop it checks the header
# alone and starts at once, and check-database finds the damage.
: >"$WORK/index/db.sqlite3-wal"
REQUIRE_WORD="integrity_check" \
    expect_refusal "one key changed in a deliveries_by_install leaf page, after an unclean stop" "$WORK/index/db.sqlite3" "$WORK/index/db.sqlite3"
rm -f "$WORK/index/db.sqlite3-wal" "$WORK/index/db.sqlite3-shm"
before="$(digest "$WORK/index/db.sqlite3")"
output="$("$BIN" check-database "$WORK/index/db.sqlite3" 2>&1)"; status=$?
if [ "$status" -eq 1 ] && printf '%s' "$output" | grep -q "deliveries_by_install" && [ "$before" = "$(digest "$WORK/index/db.sqlite3")" ]; then
    pass "check-database on the damaged index: exit 1, names deliveries_by_install, bytes unchanged: $(printf '%s' "$output" | head -1 | cut -c1-200)"
else
    fail "check-database on the damaged index" "exit $status: $(printf '%s' "$output" | head -3)"
fi
# After a clean stop the same file starts at once, and the background check (PRAGMA integrity_check once serving)
# finds the damage within 30 s: every read then answers 503 and the log names what it found.
mkdir -p "$WORK/indexbg"
cp "$WORK/index/db.sqlite3" "$WORK/indexbg/db.sqlite3"
start=$(date +%s.%N)
if start_server "$WORK/indexbg/db.sqlite3" "$WORK/indexbg/run" >/dev/null; then
    served=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
    got="$(python3 - "$PORT" <<'PY'
import http.client, json, sys, time
port = int(sys.argv[1])
deadline = time.time() + 30
status = 0
while time.time() < deadline:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/api/installs")
    reply = c.getresponse()
    body = reply.read()
    status = reply.status
    c.close()
    if status == 503:
        print(status, json.loads(body).get("error", "")[:300])
        break
    time.sleep(0.1)  # a bounded poll: the check runs in the background
else:
    print(status, "still answering after 30 s")
PY
)"
    kill_server
    logged="$(grep -m1 "background check found damage" "$WORK/indexbg/run.err" | cut -c1-300)"
    case "$got" in
        "503 "*"PRAGMA integrity_check found"*"tipjar check-database"*)
            if printf '%s' "$logged" | grep -q "deliveries_by_install"; then
                pass "the damaged index after a clean stop: serving after ${served}s, then GET /api/installs answered 503 and the log names it: $logged"
            else
                fail "the damaged index after a clean stop" "503 but the log does not name deliveries_by_install: $(grep -v '^method=' "$WORK/indexbg/run.err" | tail -3)"
            fi ;;
        *) fail "the damaged index after a clean stop" "expected a 503 naming the check's finding within 30 s, got '$got'" ;;
    esac
else
    fail "the damaged index after a clean stop" "did not start: $(grep -v '^method=' "$WORK/indexbg/run.err" | head -3 | cut -c1-400)"
fi
output="$("$BIN" check-database "$WORK/good/good.sqlite3" 2>&1)"; status=$?
[ "$status" -eq 0 ] && [ "$output" = "$WORK/good/good.sqlite3: ok" ] && pass "check-database on a good database: exit 0, ok" \
    || fail "check-database on a good database" "exit $status: $output"

# ---- read-only file and folder (a clear start-up error)
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
