#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Self-check of tools/ws-load: compiles it (javac, no Maven), runs ParserCheck (the frame, SSE and
# chunked parsers fed split every way, the histogram, the tracker), then:
#   1. echo, 50 connections, warm-up 1 s, 2 s measured, against a Spindle launcher (MultiLoopServer
#      on port 0, built by scripts/lib/common.sh's spindle_classpath when stale): opened == 50,
#      completions > 0, no errors, no open failures, every close answered 1000, server CPU read
#   2. broadcast and sse, 50 subscribers, against TestServer (src/test/java), a blocking server of
#      the four routes that fragments messages, pings inside them, and cuts events into chunks:
#      the same checks, plus published > 0 and no incomplete message
#   3. echo against a port nobody listens on must exit 1
# Fails (exit 1) when a server does not start or a check does not hold.
#
#   tools/ws-load/smoke.sh [--keep DIR]     (--keep: leave the JSON reports in DIR)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"

ROOT="$(spindle_root)"
READY_TIMEOUT=60
keep=""
if [[ "${1:-}" == "--keep" ]]; then
  [[ -n "${2:-}" ]] || { echo "error: --keep needs a directory" >&2; exit 2; }
  keep="$2"
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--keep DIR]" >&2
  exit 2
fi

spindle_find_jdk
work="$(mktemp -d "${TMPDIR:-/tmp}/ws-load-smoke.XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [[ -n "$keep" ]]; then mkdir -p "$keep" && cp "$work"/*.json "$keep"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "ws-load smoke: FAILED: $*" >&2
  exit 1
}

echo "compiling tools/ws-load ..." >&2
mapfile -t sources < <(find "$ROOT/tools/ws-load/src" -name '*.java')
"$JAVA_HOME/bin/javac" --release 25 -d "$work/classes" "${sources[@]}"
"$JAVA_HOME/bin/java" -cp "$work/classes" dev.spindle.tools.wsload.ParserCheck || fail "ParserCheck"

# Starts "$@" in the background; sets server_pid and server_port from its "listening on HOST:PORT".
start_server() {
  "$@" >"$work/server.out" 2>&1 &
  server_pid=$!
  local waited=0
  until grep -q "listening on" "$work/server.out"; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.out" >&2; fail "server exited before listening: $*"; }
    (( waited++ < READY_TIMEOUT * 10 )) || fail "server not listening after ${READY_TIMEOUT}s: $*"
    sleep 0.1
  done
  server_port="$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$work/server.out" | head -n 1)"
  [[ -n "$server_port" ]] || fail "no port in the server's output"
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# Runs WsLoad MODE against server_port into $work/MODE.json and checks the report.
run_and_check() {
  local mode="$1" label="$2" rc=0
  "$JAVA_HOME/bin/java" -cp "$work/classes" dev.spindle.tools.wsload.WsLoad "$mode" --port "$server_port" \
    --connections 50 --warmup 1 --duration 2 --pid "$server_pid" --out "$work/$label.json" || rc=$?
  (( rc == 0 )) || fail "$label: exit status $rc"
  /usr/bin/env python3 - "$work/$label.json" "$mode" <<'PY' || fail "$label: report checks"
import json, sys
r = json.load(open(sys.argv[1]))
mode = sys.argv[2]
problems = []
def need(ok, what):
    if not ok:
        problems.append(what)
need(r["opened"] == 50, "opened %s != 50" % r["opened"])
need(r["completions"] > 0, "no completions")
need(r["errors"] == {}, "errors %s" % r["errors"])
need(r["open_failures"] == {}, "open failures %s" % r["open_failures"])
need(r["failed"] is None, "failed: %s" % r["failed"])
need(r["latency_us"]["count"] == r["completions"], "latency count != completions")
need(r["server_cpu_schedstat_s"] is not None and r["server_cpu_schedstat_s"] > 0, "no server CPU")
if mode == "echo" or mode == "broadcast":
    want = 50 if mode == "echo" else 51
    need(r["close_codes"] == {"1000": want}, "close codes %s, want 1000 x %d" % (r["close_codes"], want))
if mode != "echo":
    need(r["publisher_open"] is True, "publisher not open")
    need(r["published"] > 0, "nothing published")
    need(r["incomplete_messages"] == 0 and r["missing_deliveries"] == 0, "incomplete messages")
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
PY
  echo "ws-load smoke: $label ok" >&2
}

cp="$(spindle_classpath launchers)"
start_server "$JAVA_HOME/bin/java" -cp "$cp" dev.spindle.launch.MultiLoopServer 0 2
run_and_check echo echo-spindle
stop_server

start_server "$JAVA_HOME/bin/java" -cp "$work/classes" dev.spindle.tools.wsload.TestServer 0
run_and_check echo echo-testserver
run_and_check broadcast broadcast-testserver
run_and_check sse sse-testserver
dead_port="$server_port"
stop_server

rc=0
"$JAVA_HOME/bin/java" -cp "$work/classes" dev.spindle.tools.wsload.WsLoad echo --port "$dead_port" --connections 5 \
  --open-timeout 5 --out "$work/dead.json" 2>/dev/null || rc=$?
(( rc == 1 )) || fail "echo against a closed port: exit status $rc, want 1"
echo "ws-load smoke: closed port exits 1, ok" >&2
echo "ws-load smoke: all checks passed" >&2
