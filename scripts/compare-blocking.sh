#!/usr/bin/env bash
# Shows why the executor matters for blocking handlers: GET /blocking/100 with
# <clients> concurrent ab clients takes ~<clients>x longer on SingleThreadServer
# (one request at a time) than on VirtualThreadServer (one virtual thread each).
#   scripts/compare-blocking.sh [clients] [requests]     (defaults 20 100)
# Env: SPINDLE_BLOCKING_MS (default 100) sets the simulated blocking time.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

SERVERS=(SingleThreadServer VirtualThreadServer)
READY_TIMEOUT=60   # seconds to wait for "listening on"
STOP_TIMEOUT=10    # seconds between SIGTERM and SIGKILL

usage() {
  echo "usage: $(basename "$0") [clients] [requests]   (defaults 20 100; clients <= requests)" >&2
  exit 2
}
(( $# <= 2 )) || usage
clients="${1:-20}" requests="${2:-100}" ms="${SPINDLE_BLOCKING_MS:-100}"
for n in "$clients" "$requests" "$ms"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
done
(( clients <= requests )) || usage   # ab refuses -c > -n

spindle_ensure_packages apache2-utils
spindle_find_jdk

work="$(mktemp -d -t spindle-compare.XXXXXX)"
server_pid=""

# Stops the server we started, by its PID only (run-server.sh execs java, so $! is the JVM).
stop_server() {
  [[ -n "$server_pid" ]] || return 0
  local pid="$server_pid" i
  server_pid=""
  kill -TERM "$pid" 2>/dev/null || true
  for (( i = 0; i < STOP_TIMEOUT * 10; i++ )); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "warning: server pid $pid ignored SIGTERM for ${STOP_TIMEOUT}s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build once in the foreground, so the readiness timeout below never covers a Maven build.
for s in "${SERVERS[@]}"; do
  found="$(spindle_find_server "$s")"
  spindle_classpath "${found%% *}" >/dev/null
done

# Starts server $1 on a free port; sets server_pid and port.
start_server() {
  local name="$1" out="$work/$1.out" err="$work/$1.err" line="" i
  "$SCRIPTS/run-server.sh" "$name" 0 >"$out" 2>"$err" &
  server_pid=$!
  for (( i = 0; i < READY_TIMEOUT * 10; i++ )); do
    line="$(grep -m 1 'listening on' "$out" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "error: $name exited before it was ready; its output:" >&2
      cat "$out" "$err" >&2
      server_pid=""
      exit 1
    fi
    sleep 0.1
  done
  if [[ -z "$line" ]]; then
    echo "error: $name printed no 'listening on' line within ${READY_TIMEOUT}s; its output:" >&2
    cat "$out" "$err" >&2
    exit 1
  fi
  # The port is the last ":<digits>" of the line ("X listening on 127.0.0.1:43125").
  port="$(grep -oE ':[0-9]+' <<<"$line" | tail -n 1 | tr -d ':')"
  [[ -n "$port" ]] || { echo "error: no port in '$line'" >&2; exit 1; }
}

declare -A took failed non2xx
url_path="/blocking/$ms"
for s in "${SERVERS[@]}"; do
  start_server "$s"
  echo "$s on 127.0.0.1:$port: ab -c $clients -n $requests $url_path ..." >&2
  # Warm-up round (1 ms each) so class loading and JIT do not count against either server.
  ab -q -c "$clients" -n "$clients" "http://127.0.0.1:$port/blocking/1" >/dev/null 2>&1 || true
  ab_out="$work/$s.ab"
  ab_rc=0
  ab -q -s 60 -c "$clients" -n "$requests" "http://127.0.0.1:$port$url_path" >"$ab_out" 2>&1 || ab_rc=$?
  stop_server
  took[$s]="$(awk '/^Time taken for tests:/ {print $5}' "$ab_out")"
  failed[$s]="$(awk '/^Failed requests:/ {print $3}' "$ab_out")"
  non2xx[$s]="$(awk '/^Non-2xx responses:/ {print $3}' "$ab_out")"
  if (( ab_rc != 0 )) || [[ -z "${took[$s]}" ]]; then
    echo "error: ab against $s failed (exit $ab_rc):" >&2
    cat "$ab_out" >&2
    exit 1
  fi
done

echo
echo "GET $url_path, $clients concurrent clients, $requests requests"
printf '%-22s %12s %8s %8s\n' server seconds failed non-2xx
for s in "${SERVERS[@]}"; do
  printf '%-22s %12s %8s %8s\n' "$s" "${took[$s]}" "${failed[$s]:-0}" "${non2xx[$s]:-0}"
done
# Expected: single ~ requests*ms, virtual ~ ceil(requests/clients)*ms, ratio ~ clients.
awk -v a="${took[SingleThreadServer]}" -v b="${took[VirtualThreadServer]}" -v c="$clients" \
  'BEGIN { if (b > 0) printf "ratio single/virtual: %.1fx (ideal ~%dx)\n", a / b, c }'
