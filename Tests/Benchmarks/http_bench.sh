#!/usr/bin/env bash
# HTTP benchmark: the release build of `tipjar serve` beside nginx serving the same bytes,
# measured in the same run with `wrk -t1 -c50 -d10s --latency` on 127.0.0.1.
#
#   Tests/Benchmarks/http_bench.sh            # from any folder; builds .build/release/tipjar if missing
#
# Environment: TIPJAR_BIN (default <repo>/.build/release/tipjar), BENCH_DURATION (default 10s),
# BENCH_CONNECTIONS (default 50), BENCH_IDLE (default 1000 idle keep-alive connections for case 4).
#
# Cases: (1) /app.css, ours vs nginx; (2) /installs/{id} (SQLite read + Mustache render) vs nginx
# serving the saved page; (3) GET /api/installs/{id} vs nginx serving the same JSON bytes;
# (4) case 1 again while 1,000 idle keep-alive connections are held open (ours and nginx).
# Prints req/s, p99 for both, ratio ours/nginx, the server's peak RSS (VmHWM) and the targets:
# static >= 0.5x nginx, install page >= 0.3x, p99 <= 5 ms, RSS <= 100 MiB.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
DURATION="${BENCH_DURATION:-10s}"
CONNS="${BENCH_CONNECTIONS:-50}"
IDLE="${BENCH_IDLE:-1000}"

need_apt() { # command package
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "== installing $2 from Debian"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >/dev/null
}
need_apt wrk wrk
need_apt nginx nginx-light
need_apt python3 python3-minimal
NGINX="$(command -v nginx)"

if [ ! -x "$BIN" ]; then
    echo "== building the release tipjar in $ROOT"
    (cd "$ROOT" && swift build -c release --product tipjar)
fi

# 1,000 idle + 50 busy connections + nginx: raise the descriptor limit as far as allowed.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 8192 2>/dev/null || true

WORK="$(mktemp -d /tmp/tipjar-http-bench.XXXXXX)"
chmod 755 "$WORK"
SERVER_PID=""; NGINX_PID=""; HOLDER_PID=""
cleanup() {
    for pid in $HOLDER_PID $SERVER_PID; do
        [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    if [ -n "$NGINX_PID" ]; then kill -QUIT "$NGINX_PID" 2>/dev/null || true; fi
    for pid in $HOLDER_PID $SERVER_PID $NGINX_PID; do
        [ -n "$pid" ] || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            [ "$pid" = "$SERVER_PID" ] && echo "note: tipjar serve (pid $pid) did not exit within 5 s of SIGTERM; sending SIGKILL" >&2
            kill -9 "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

wait_http() { # port path
    python3 - "$1" "$2" <<'PY'
import http.client, sys, time
port, path = int(sys.argv[1]), sys.argv[2]
deadline = time.time() + 20
while time.time() < deadline:
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", path)
        if c.getresponse().status < 500:
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("server on port %d did not answer %s within 20 s" % (port, path))
PY
}

# ---------------------------------------------------------------- our server
OUR_PORT="$(free_port)"
"$BIN" serve --port "$OUR_PORT" --database "$WORK/bench.sqlite3" >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
wait_http "$OUR_PORT" /app.css
echo "== tipjar serve pid $SERVER_PID on 127.0.0.1:$OUR_PORT ($BIN)"

mkdir -p "$WORK/www/installs" "$WORK/www/api/installs"
INSTALL_ID="$(python3 - "$OUR_PORT" "$WORK/www" <<'PY'
import http.client, json, sys
port, www = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
c.request("POST", "/api/installs", body=json.dumps({"locale": "en", "launch": True, "label": "Benchmark iPhone"}),
          headers={"Content-Type": "application/json"})
r = c.getresponse(); body = r.read()
if r.status != 201:
    sys.exit("POST /api/installs answered %d: %r" % (r.status, body[:300]))
iid = json.loads(body)["id"]
for path, out in [("/installs/" + iid, www + "/installs/" + iid), ("/api/installs/" + iid, www + "/api/installs/" + iid),
                  ("/app.css", www + "/app.css")]:
    c.request("GET", path); r = c.getresponse(); data = r.read()
    if r.status != 200:
        sys.exit("GET %s answered %d" % (path, r.status))
    open(out, "wb").write(data)
print(iid)
PY
)"
chmod -R a+rX "$WORK/www"
# nginx must serve exactly the bytes of Public/app.css (the same file our server reads).
if ! cmp -s "$WORK/www/app.css" "$ROOT/Public/app.css"; then
    echo "warning: GET /app.css differs from $ROOT/Public/app.css; nginx serves Public/app.css" >&2
    cp "$ROOT/Public/app.css" "$WORK/www/app.css"
fi
echo "== install $INSTALL_ID: page $(wc -c <"$WORK/www/installs/$INSTALL_ID") B, json $(wc -c <"$WORK/www/api/installs/$INSTALL_ID") B, app.css $(wc -c <"$WORK/www/app.css") B"

# ---------------------------------------------------------------- nginx
NGINX_PORT="$(free_port)"
mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
USER_LINE=""; [ "$(id -u)" -eq 0 ] && USER_LINE="user root root;"
cat >"$WORK/nginx/nginx.conf" <<EOF
$USER_LINE
daemon off;
master_process on;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 60s;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    types { text/css css; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        location = /app.css { }
        location /installs/ { default_type "text/html; charset=utf-8"; }
        location /api/ { default_type "application/json; charset=utf-8"; }
    }
}
EOF
"$NGINX" -p "$WORK/nginx" -e "$WORK/nginx/logs/error.log" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
wait_http "$NGINX_PORT" /app.css
echo "== nginx pid $NGINX_PID on 127.0.0.1:$NGINX_PORT (worker_processes 1, daemon off)"

# ---------------------------------------------------------------- measuring
# parse_wrk FILE -> "req_per_s p99_ms errors"
parse_wrk() {
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\b", text, re.M)
unit = {"us": 0.001, "ms": 1.0, "s": 1000.0}
errors = 0
m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
if m: errors += int(m.group(1))
m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
if m: errors += sum(int(x) for x in m.groups())
print("%s %s %d" % (rps.group(1) if rps else "0", ("%.3f" % (float(p99.group(1)) * unit[p99.group(2)])) if p99 else "nan", errors))
PY
}

run_wrk() { # label port path -> prints parsed figures, keeps raw output
    local out="$WORK/wrk-$1.txt"
    wrk -t1 -c"$CONNS" -d"$DURATION" --latency "http://127.0.0.1:$2$3" >"$out" 2>&1 || true
    parse_wrk "$out"
}

declare -A RPS P99 ERR
measure() { # key port path
    read -r "RPS[$1]" "P99[$1]" "ERR[$1]" < <(run_wrk "$1" "$2" "$3")
    printf '   %-16s %10.0f req/s  p99 %7.2f ms  errors %s\n' "$1" "${RPS[$1]}" "${P99[$1]}" "${ERR[$1]}"
}

hold_idle() { # port -> starts holder in background; waits until all are connected
    # Spread over four client addresses: tipjar serve allows 512 connections per address.
    python3 "$HERE/idle_connections.py" --port "$1" --count "$IDLE" --seconds 60 --ready "$WORK/idle.ready" --report "$WORK/idle-$1.txt" \
        --sources 127.0.0.11,127.0.0.12,127.0.0.13,127.0.0.14 &
    HOLDER_PID=$!
    for _ in $(seq 300); do [ -f "$WORK/idle.ready" ] && break; kill -0 "$HOLDER_PID" 2>/dev/null || break; sleep 0.1; done
    cat "$WORK/idle.ready" 2>/dev/null || echo "   idle holder did not report ready"
}
release_idle() {
    [ -n "$HOLDER_PID" ] && kill -USR1 "$HOLDER_PID" 2>/dev/null || true
    wait "$HOLDER_PID" 2>/dev/null || true
    HOLDER_PID=""; rm -f "$WORK/idle.ready"
}

echo "== warm-up"
wrk -t1 -c"$CONNS" -d2s "http://127.0.0.1:$OUR_PORT/installs/$INSTALL_ID" >/dev/null 2>&1 || true
wrk -t1 -c"$CONNS" -d2s "http://127.0.0.1:$NGINX_PORT/app.css" >/dev/null 2>&1 || true

echo "== case 1: static /app.css"
measure ours1 "$OUR_PORT" /app.css
measure nginx1 "$NGINX_PORT" /app.css
echo "== case 2: /installs/$INSTALL_ID (ours: SQLite + Mustache; nginx: saved page)"
measure ours2 "$OUR_PORT" "/installs/$INSTALL_ID"
measure nginx2 "$NGINX_PORT" "/installs/$INSTALL_ID"
echo "== case 3: GET /api/installs/$INSTALL_ID (nginx: the same JSON bytes as a static file)"
measure ours3 "$OUR_PORT" "/api/installs/$INSTALL_ID"
measure nginx3 "$NGINX_PORT" "/api/installs/$INSTALL_ID"
echo "== case 4: /app.css while $IDLE idle keep-alive connections are open"
hold_idle "$OUR_PORT"
measure ours4 "$OUR_PORT" /app.css
release_idle
cat "$WORK/idle-$OUR_PORT.txt" 2>/dev/null || true
hold_idle "$NGINX_PORT"
measure nginx4 "$NGINX_PORT" /app.css
release_idle
cat "$WORK/idle-$NGINX_PORT.txt" 2>/dev/null || true

RSS_KB="$(awk '/VmHWM/ {print $2}' "/proc/$SERVER_PID/status" 2>/dev/null || echo 0)"
NGINX_WORKER_RSS="$(for p in $(pgrep -P "$NGINX_PID" 2>/dev/null); do awk '/VmHWM/ {print $2}' "/proc/$p/status"; done | sort -n | tail -1)"
kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAIL: tipjar serve exited during the benchmark"; tail -20 "$WORK/server.log"; exit 1; }

# ---------------------------------------------------------------- report
python3 - "$RSS_KB" "${NGINX_WORKER_RSS:-0}" "$DURATION" "$CONNS" "$IDLE" \
    "${RPS[ours1]}" "${P99[ours1]}" "${ERR[ours1]}" "${RPS[nginx1]}" "${P99[nginx1]}" "${ERR[nginx1]}" \
    "${RPS[ours2]}" "${P99[ours2]}" "${ERR[ours2]}" "${RPS[nginx2]}" "${P99[nginx2]}" "${ERR[nginx2]}" \
    "${RPS[ours3]}" "${P99[ours3]}" "${ERR[ours3]}" "${RPS[nginx3]}" "${P99[nginx3]}" "${ERR[nginx3]}" \
    "${RPS[ours4]}" "${P99[ours4]}" "${ERR[ours4]}" "${RPS[nginx4]}" "${P99[nginx4]}" "${ERR[nginx4]}" <<'PY'
import sys
a = sys.argv[1:]
rss_kb, nginx_rss_kb, duration, conns, idle = int(a[0]), int(a[1] or 0), a[2], a[3], a[4]
vals = a[5:]
names = ["1 static /app.css", "2 install page", "3 GET /api/installs/{id}", "4 /app.css + %s idle" % idle]
targets = {0: 0.5, 1: 0.3, 3: 0.5}
print()
print("HTTP benchmark: wrk -t1 -c%s -d%s --latency, 127.0.0.1, release build" % (conns, duration))
print("%-28s %12s %10s %12s %10s %8s %s" % ("case", "ours req/s", "ours p99", "nginx req/s", "nginx p99", "ratio", "target"))
failed = []
for i, name in enumerate(names):
    o_rps, o_p99, o_err, n_rps, n_p99, n_err = vals[i * 6:(i + 1) * 6]
    o_rps, n_rps, o_p99, n_p99 = float(o_rps), float(n_rps), float(o_p99), float(n_p99)
    ratio = o_rps / n_rps if n_rps else 0.0
    notes = []
    if i in targets:
        ok = ratio >= targets[i]
        notes.append("ratio>=%.1f %s" % (targets[i], "ok" if ok else "MISSED"))
        if not ok: failed.append("%s ratio %.2f < %.1f" % (name, ratio, targets[i]))
    ok = o_p99 <= 5.0
    notes.append("p99<=5ms %s" % ("ok" if ok else "MISSED"))
    if not ok: failed.append("%s p99 %.2f ms > 5 ms" % (name, o_p99))
    if int(o_err): notes.append("ours errors=%s" % o_err); failed.append("%s: %s errors/non-2xx" % (name, o_err))
    if int(n_err): notes.append("nginx errors=%s" % n_err)
    print("%-28s %12.0f %8.2fms %12.0f %8.2fms %7.2fx %s" % (name, o_rps, o_p99, n_rps, n_p99, ratio, ", ".join(notes)))
mib = rss_kb / 1024.0
ok = 0 < mib <= 100
if not ok: failed.append("peak RSS %.1f MiB > 100 MiB" % mib)
print("tipjar peak RSS (VmHWM): %.1f MiB (target <= 100 MiB: %s); nginx worker VmHWM %.1f MiB" % (mib, "ok" if ok else "MISSED", nginx_rss_kb / 1024.0))
print("targets missed: %s" % ("; ".join(failed) if failed else "none"))
PY
