#!/usr/bin/env bash
# Purchases per second through POST /api/installs/{id}/purchases, driven by wrk (8 and 32
# connections, one wrk thread and one install each: an install allows one open purchase), at
# --durability full and normal, beside the raw SQLite ceiling (one-row INSERT transactions, same
# settings) measured in the same run. wrk keeps the load generator out of the way (scale_bench.sh's
# Python clients saturate first). Each run also prints the server's CPU time per purchase (user +
# system, from /proc/PID/stat, over the wrk run only), in microseconds, and the kilobytes it wrote per purchase
# (`wchar` of /proc/PID/io: WAL frames, checkpoints and sockets), which a busy neighbour does not move.
#
# The machine is shared and its disk's fsync time drifts, so each durability runs ROUNDS times,
# and each round brackets the server between two half-length ceiling runs (ceiling, server,
# ceiling; the round's ceiling is their mean); the ratio quoted is the median of the rounds' ratios.
#
# NOTIFICATIONS="off on" runs each configuration twice: without a notifications URL, and with App Store Server
# Notifications posted to nginx (a receiver that costs the machine least), counting the server's CPU until the last
# notification is delivered, so the sending is in the figure; the summary gives the ratio on/off of CPU per purchase.
#
#   Tests/Benchmarks/purchase_bench.sh [seconds]       # default 8 s per server run; ROUNDS=5, CONNECTIONS="8 32",
#                                                      # NOTIFICATIONS=off, DURABILITIES="full normal"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/Tests/Benchmarks/purchase_load.sh"
BIN="${TIPJAR_BIN:-$ROOT/.build/release/tipjar}"
SECONDS_EACH="${1:-8}"
ROUNDS="${ROUNDS:-5}"
CONNECTIONS="${CONNECTIONS:-8 32}"
NOTIFICATIONS="${NOTIFICATIONS:-off}"
DURABILITIES="${DURABILITIES:-full normal}"
TICKS="$(getconf CLK_TCK)"
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release --product tipjar)
WORK="$(mktemp -d)"
PID=""
NGINX_PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime (proc(5)); the command name has no spaces
written() { awk '$1 == "wchar:" {print $2}' "/proc/$1/io"; } # bytes passed to write(2) and kin: WAL frames, checkpoints, sockets

# The notifications receiver: nginx answering 204 to every POST /hook (started once, when NOTIFICATIONS has "on").
RECEIVER=""
if [[ " $NOTIFICATIONS " == *" on "* ]]; then
  command -v nginx >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null; }
  RECEIVER_PORT="$(free_port)"
  mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
  USER_LINE=""; [ "$(id -u)" -eq 0 ] && USER_LINE="user root root;"
  cat >"$WORK/nginx/nginx.conf" <<NGINX
$USER_LINE
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/tmp/body;
    proxy_temp_path $WORK/nginx/tmp/proxy;
    fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
    scgi_temp_path $WORK/nginx/tmp/scgi;
    server { listen 127.0.0.1:$RECEIVER_PORT; location /hook { return 204; } }
}
NGINX
  nginx -p "$WORK/nginx" -e "$WORK/nginx/logs/error.log" -c "$WORK/nginx/nginx.conf" &
  NGINX_PID=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null -X POST "http://127.0.0.1:$RECEIVER_PORT/hook" && break; sleep 0.05; done
  RECEIVER="http://127.0.0.1:$RECEIVER_PORT/hook"
fi

# The newest notification's state (delivered once the queue is drained: four lanes send roughly in order).
newest_state() {
  curl -s "http://127.0.0.1:$1/api/notifications?limit=1" | python3 -c 'import json,sys; p=json.load(sys.stdin); print(p[0]["state"] if p else "none")'
}

run() { # durability round connections notifications -> "purchases/s p99 non-2xx cpu-µs-per-purchase kB-written-per-purchase"
  local port; port="$(free_port)"
  local extra=()
  [ "${4:-off}" = on ] && extra=(--notifications-url "$RECEIVER")
  "$BIN" serve --port "$port" --database "$WORK/$1-$2-${4:-off}.sqlite3" --durability "$1" "${extra[@]}" >/dev/null 2>&1 &
  PID=$!
  purchase_load "$port" "$3" "$WORK/post.lua"
  local ticks_before ticks_after written_before written_after
  ticks_before="$(cpu_ticks "$PID")"
  written_before="$(written "$PID")"
  local out; out="$(wrk -t"$3" -c"$3" -d"${SECONDS_EACH}s" --latency -s "$WORK/post.lua" "http://127.0.0.1:$port")"
  if [ "${4:-off}" = on ]; then # the sending is part of a purchase's cost: wait for the queue to drain
    for _ in $(seq 1 600); do [ "$(newest_state "$port")" = delivered ] && break; sleep 0.1; done
  fi
  ticks_after="$(cpu_ticks "$PID")"
  written_after="$(written "$PID")"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  local rps p99 non2xx requests cpu
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  non2xx="$(awk '/Non-2xx/ {print $5}' <<<"$out")"
  requests="$(awk '/requests in/ {print $1}' <<<"$out")"
  cpu="$(python3 -c "print('%.0f' % (($ticks_after - $ticks_before) * 1e6 / $TICKS / max(1, $requests)))")"
  local kb; kb="$(python3 -c "print('%.1f' % (($written_after - $written_before) / 1000 / max(1, $requests)))")"
  echo "$rps $p99 ${non2xx:-0} $cpu $kb"
}

ceiling() { sqlite_ceiling "$WORK/ceiling-$1-$2.sqlite3" "$1" "$3"; } # FULL|NORMAL name seconds

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "purchases (wrk -tN -cN, ${SECONDS_EACH}s, one install per connection), release build; $ROUNDS rounds of ceiling, server, ceiling"
printf '%-12s %5s %6s %12s %10s %12s %8s %8s %8s %s\n' durability conns round purchases/s p99 ceiling/s ratio cpu-µs kB-wrtn non-2xx
summary=()
declare -A median_cpu
for connections in $CONNECTIONS; do
  for durability in $DURABILITIES; do
    pragma="$(tr '[:lower:]' '[:upper:]' <<<"$durability")"
    declare -A ratios=() cpus=()
    pair_ratios=()
    # Off and on take turns within each round, so the ratio of a round compares two runs seconds apart on the
    # shared machine; the summary quotes the median of the rounds' ratios beside the ratio of the medians.
    for round in $(seq 1 "$ROUNDS"); do
      declare -A round_cpu=()
      for notifications in $NOTIFICATIONS; do
        half="$(python3 -c "print($SECONDS_EACH / 2)")"
        before="$(ceiling "$pragma" "$connections-$round-$notifications-before" "$half")"
        read -r rps p99 bad cpu kb <<<"$(run "$durability" "$connections-$round" "$connections" "$notifications")"
        after="$(ceiling "$pragma" "$connections-$round-$notifications-after" "$half")"
        limit="$(( (before + after) / 2 ))"
        ratio="$(python3 -c "print('%.2f' % ($rps/$limit))")"
        ratios[$notifications]="${ratios[$notifications]:-} $ratio"
        cpus[$notifications]="${cpus[$notifications]:-} $cpu"
        round_cpu[$notifications]="$cpu"
        printf '%-12s %5s %6s %12s %10s %12s %7sx %8s %8s %s\n' "$durability" "$connections" "$round$([ "$notifications" = on ] && echo +n)" "$rps" "$p99" "$limit" "$ratio" "$cpu" "$kb" "$bad"
      done
      if [ -n "${round_cpu[on]:-}" ] && [ -n "${round_cpu[off]:-}" ]; then
        pair_ratios+=("$(python3 -c "print('%.2f' % (${round_cpu[on]} / max(1, ${round_cpu[off]})))")")
      fi
    done
    for notifications in $NOTIFICATIONS; do
      median_cpu["$durability-$connections-$notifications"]="$(printf '%s\n' ${cpus[$notifications]} | median)"
      summary+=("$durability, $connections connections, notifications $notifications: median ratio $(printf '%s\n' ${ratios[$notifications]} | median)x (rounds:${ratios[$notifications]}); median CPU ${median_cpu["$durability-$connections-$notifications"]} µs per purchase")
    done
    if [ "${#pair_ratios[@]}" -gt 0 ]; then
      summary+=("$durability, $connections connections: CPU per purchase with notifications on / off = $(python3 -c "print('%.2f' % (${median_cpu["$durability-$connections-on"]} / max(1, ${median_cpu["$durability-$connections-off"]})))")x of the medians, $(printf '%s\n' "${pair_ratios[@]}" | median)x the median of the rounds (${pair_ratios[*]}) (target <= 1.5x)")
    fi
    unset ratios cpus
  done
done
printf '%s\n' "${summary[@]}"
