# Sourced by purchase_bench.sh, purchase_ab.sh and ceiling_under_load.sh: the load they drive, so they measure the same
# purchases, and the raw SQLite ceiling they compare it with.

# wrk from Debian when it is missing.
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The raw SQLite ceiling: one connection, WAL at `synchronous` SYNC (FULL or NORMAL), one-row INSERT transactions on a
# new file at PATH for SECONDS; prints the commits a second.
#   sqlite_ceiling PATH SYNC SECONDS
sqlite_ceiling() {
  python3 - "$1" "$2" "$3" <<'PY'
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

# Waits for the server on `port` to answer, creates `count` launched installs (each its own Apple Account) and
# writes `lua`, a wrk script in which each wrk thread buys the coffee tip on an install of its own (an install
# allows one open purchase).
#   purchase_load PORT COUNT LUA
purchase_load() {
  local port="$1" count="$2" lua="$3"
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/store" && break; sleep 0.05; done
  local ids=()
  for _ in $(seq 1 "$count"); do
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
  } > "$lua"
}
