#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Idle WebSocket connections per server strategy: how much heap, RSS and CPU N idle sockets on the
# benchmark app's GET /ws/echo (permessage-deflate on) cost at a fixed 256 MiB heap, and whether
# the server still answers, echoes and lets the memory go when they close.
#
#   scripts/websocket-idle.sh [--servers A,B] [--connections N] [--max-connections M] [--no-deflate]
#                             [--sse] [--quick] [--out DIR]
#
#   --servers A,B    rows of scripts/lib/bench-servers.sh or server classes (default:
#                    VirtualThreadServer, SingleLoopServer, MultiLoopServer, IoUringServer); the
#                    NettyServer and VertxServer references serve the same routes
#   --connections N  idle sockets per server (default 10000)
#   --max-connections M  the server's -Dspindle.maxConnections (default N + 100: the GET /plaintext
#                    below is one more connection, and at the default limit, 10,000, 10,000 sockets
#                    leave no room for it, so it is answered 503 "too many connections" by design)
#   --no-deflate     offer no permessage-deflate (default: offer it, as /ws/echo accepts it): what the
#                    extension's per-connection state costs
#   --sse            idle GET /sse/broadcast event streams instead of WebSockets: what a held-open
#                    server-sent-event stream costs (probes: one event by POST /sse/publish)
#   --quick          1000 connections on VirtualThreadServer and MultiLoopServer; the run goes to a
#                    temporary directory unless --out is given
#   --out DIR        where the run goes (default results/websocket-idle/<UTC timestamp>/, with --sse
#                    results/sse-idle/<UTC timestamp>/)
#
# Each server starts on 127.0.0.1 (`java <spindle_java_opts> -Xms256m -Xmx256m
# -Xlog:gc*:file=raw/<server>/gc.log -Dspindle.maxConnections=M -cp <cp> <MainClass> 0 2`, a
# benchmark row's -D properties and workers too), then scripts/lib/ws_idle.py:
#   1. warm-up: 20 sockets opened, echoed once and closed (lazy class and pool set-up is not per-connection)
#   2. baseline: `jcmd <pid> GC.run`, then heap used from `jcmd <pid> GC.heap_info`; VmRSS and Threads
#      from /proc/<pid>/status
#   3. N sockets opened, 200 concurrently, each within 15 s (failures are counted by error); no client
#      pings, so they are idle but for the server's own pings (every 30 s by default)
#   4. 10 s idle, then the server's utime+stime over 30 s more (/proc/<pid>/stat; also per 5 s), then
#      the baseline's measures again; heap/conn = (heap idle - heap base) / opened, RSS/conn alike.
#      30 s is the server's ping interval: every idle socket gets one ping in it, so the figure is the
#      steady idle cost with keep-alive. (A 10 s window gave 1.5 % or 15.8 % on the same server,
#      depending on whether the pings 30 s after the opening fell into it.)
#   5. 200 random sockets each send a text message and must read the echo within 10 s; a
#      GET /plaintext on a new connection must answer 200
#   6. every socket closed with 1000 (the server's close code must be 1000), 2 s, heap after a full GC
# Then the server is stopped (SIGTERM, SIGKILL after 15 s). Every step has a timeout; the whole
# client run gives up after 15 minutes; a server takes about 80 s at 10,000 connections.
#
# A server PASSES when all N connections opened, every probe echoed, every close read 1000, the
# GET answered 200, its output holds no OutOfMemoryError and it stayed up, idle CPU < 5 % of one
# core over the 30 s, heap per idle connection <= 12 KiB (10,000 in at most 120 MiB, under half the heap), and the
# heap after the close is within 10 MiB of the baseline (scripts/lib/ws_idle.py, RULE; in summary.md).
#
# Writes DIR/summary.md, summary.tsv, meta.tsv, and raw/<server>/: server.out, server.err, gc.log,
# client.json (every measure, jcmd's heap_info text), client.log, launch.tsv. A run under results/ keeps
# raw/ as raw.tar.gz (scripts/lib/raw_archive.py). Rebuild the summary:
#   /usr/bin/python3 scripts/lib/ws_idle.py report DIR
#
# The script raises the open-files limit to 65536, or to the hard limit if that is lower (it must
# exceed N + 100: each process holds N sockets).
# Exit status: 0 every server passed; 1 a server failed (or did not start); 2 bad arguments.
# Env: SPINDLE_JVM_OPTS replaces spindle_java_opts' flags (the heap flags are set regardless).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd -P)"

READY_TIMEOUT=60      # seconds to wait for "listening on"
STOP_TIMEOUT=15       # seconds between SIGTERM and SIGKILL
CLIENT_TIMEOUT=1000   # seconds: the client's own deadline (900 s) plus its last measures
HEAP=256m
WORKERS=2
DEFAULT_SERVERS=(VirtualThreadServer SingleLoopServer MultiLoopServer IoUringServer)
QUICK_SERVERS=(VirtualThreadServer MultiLoopServer)

usage() {
  echo "usage: $(basename "$0") [--servers A,B] [--connections N] [--quick] [--out DIR]   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }

command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"
servers_arg="" connections="" max_connections="" compression=deflate kind=websocket quick=0 out_arg=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --servers) need_value "$@"; servers_arg="$2"; shift ;;
    --connections) need_value "$@"; connections="$2"; shift ;;
    --max-connections) need_value "$@"; max_connections="$2"; shift ;;
    --no-deflate) compression=none ;;
    --sse) kind=sse ;;
    --quick) quick=1 ;;
    --out) need_value "$@"; out_arg="$2"; shift ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
if [[ -n "$servers_arg" ]]; then
  IFS=, read -r -a servers <<<"$servers_arg"
elif (( quick )); then
  servers=("${QUICK_SERVERS[@]}")
else
  servers=("${DEFAULT_SERVERS[@]}")
fi
(( ${#servers[@]} > 0 )) || usage
connections="${connections:-$( (( quick )) && echo 1000 || echo 10000)}"
[[ "$connections" =~ ^[1-9][0-9]*$ ]] || { echo "error: --connections must be a positive whole number" >&2; usage; }
max_connections="${max_connections:-$(( connections + 100 ))}"
[[ "$max_connections" =~ ^[1-9][0-9]*$ ]] || { echo "error: --max-connections must be a positive whole number" >&2; usage; }
server_props=("-Dspindle.maxConnections=$max_connections")

# Each server: "<name>|<fqcn>|<props>|<workers>", from its benchmark row or its class.
plan=()
for server in "${servers[@]}"; do
  class="$server" props="" workers="$WORKERS"
  for r in "${SPINDLE_BENCH_SERVERS[@]}"; do
    if [[ "${r%%|*}" == "$server" ]]; then
      IFS='|' read -r _ class props row_workers <<<"$r"
      [[ -z "${row_workers:-}" ]] || workers="$row_workers"
      break
    fi
  done
  found="$(spindle_find_server "$class")"   # exits 2 with the list of servers if unknown
  case "${found%% *}" in
    launchers | netty-server | references/vertx) ;;
    *) echo "error: $server (module ${found%% *}) serves no /ws/echo or /sse/broadcast: the launchers, NettyServer and VertxServer do" >&2; exit 2 ;;
  esac
  plan+=("$server|${found%% *}|${found#* }|$props|$workers")
done

# Debian's python3 by its path: the first python3 on PATH may not see Debian's packages.
spindle_ensure_packages python3 python3-websockets
PY=/usr/bin/python3
"$PY" -c 'import websockets' 2>/dev/null || spindle_die "$PY cannot import websockets although python3-websockets is installed"
spindle_find_jdk
spindle_java_opts
[[ -x "$JAVA_HOME/bin/jcmd" ]] || spindle_die "no jcmd in $JAVA_HOME/bin (a JDK, not a JRE, is needed)"
jvm_flags=()
for f in "${SPINDLE_JVM_FLAGS[@]}"; do
  [[ "$f" == -Xms* || "$f" == -Xmx* ]] || jvm_flags+=("$f")
done
jvm_flags+=("-Xms$HEAP" "-Xmx$HEAP")
# N sockets on each side of loopback: both the server and the client need more than 1024 fds.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(( $(ulimit -n) > connections + 100 )) || spindle_die "open-files limit $(ulimit -n) is too low for $connections connections"

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="$(spindle_run_dir "$out_arg" "$quick" "$( [[ $kind == sse ]] && echo sse-idle || echo websocket-idle)" "$stamp")"
[[ ! -e "$out/summary.md" ]] || spindle_die "$out already holds a run; pick another --out"
# what the JVMs load, copied, so a build in this tree during the run cannot change it
snapshot="$(mktemp -d -t spindle-ws-idle-classes.XXXXXX)"
declare -A cp_of=()
for entry in "${plan[@]}"; do
  IFS='|' read -r _ module _ <<<"$entry"
  if [[ -z "${cp_of[$module]:-}" ]]; then
    mkdir -p "$snapshot/${module//\//-}"
    cp_of[$module]="$(spindle_snapshot_cp "$(spindle_classpath "$module")" "$snapshot/${module//\//-}")"
  fi
done
echo "websocket-idle: ${#plan[@]} server(s), $connections idle $( [[ $kind == sse ]] && echo 'event streams' || echo 'WebSockets') each; output $out" >&2

meta() { printf '%s\t%s\n' "$1" "${2//$'\n'/ }" >>"$out/meta.tsv"; }
spindle_meta_begin "$out/meta.tsv" "$command_line"
meta jvm_flags "${jvm_flags[*]} -Xlog:gc*:file=raw/<server>/gc.log"
meta connections "$connections"
meta server_props "${server_props[*]}"
meta compression "$compression"
meta kind "$kind"
meta open_files "$(ulimit -n)"
meta python "$("$PY" --version 2>&1); websockets $("$PY" -c 'import websockets; print(websockets.__version__)')"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$out/servers"

server_pid="" client_pid=""
cleanup() {
  [[ -z "$client_pid" ]] || spindle_stop_pid "$client_pid" 10
  [[ -z "$server_pid" ]] || spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
  rm -rf "$snapshot"
}
trap cleanup EXIT
trap 'echo "interrupted; partial run in $out" >&2; exit 130' INT
trap 'echo "terminated; partial run in $out" >&2; exit 143' TERM

for entry in "${plan[@]}"; do
  IFS='|' read -r name module fqcn props workers <<<"$entry"
  cp="${cp_of[$module]}"
  dir="$out/raw/$name"
  mkdir -p "$dir"
  echo "$name" >>"$out/servers"
  row_props=()
  read -r -a row_props <<<"$props"
  cmd=("$JAVA_HOME/bin/java" "${jvm_flags[@]}" "-Xlog:gc*:file=$dir/gc.log" "${server_props[@]}" "${row_props[@]}" -cp "$cp" "$fqcn" 0 "$workers")
  cmd_text="${cmd[*]//$snapshot/<classes>}"
  printf '%s\t%s\n' command "${cmd_text//$out/<run>}" >"$dir/launch.tsv"
  "${cmd[@]}" >"$dir/server.out" 2>"$dir/server.err" </dev/null &
  server_pid=$!
  if ! port="$(spindle_await_ready "$server_pid" "$dir/server.out" "$dir/server.err" "$READY_TIMEOUT" 2>"$dir/launch-error.txt")"; then
    printf '%s\t%s\n' started no >>"$dir/launch.tsv"
    spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"; server_pid=""
    echo "websocket-idle: $name did not start (see $dir/launch-error.txt)" >&2
    continue
  fi
  rm -f "$dir/launch-error.txt"
  printf '%s\t%s\n' started yes port "$port" pid "$server_pid" >>"$dir/launch.tsv"
  echo "websocket-idle: $name pid $server_pid on 127.0.0.1:$port" >&2
  # in the background and waited for, so a signal reaches the trap at once
  timeout -k 10 "$CLIENT_TIMEOUT" "$PY" "$LIB/ws_idle.py" run --port "$port" --pid "$server_pid" \
    --jcmd "$JAVA_HOME/bin/jcmd" --connections "$connections" --compression "$compression" --kind "$kind" --out "$dir/client.json" > >(tee "$dir/client.log" >&2) 2>&1 &
  client_pid=$!
  rc=0
  wait "$client_pid" || rc=$?
  client_pid=""
  (( rc == 0 )) || printf '%s\t%s\n' client_error "the client exited with status $rc" >>"$dir/launch.tsv"
  if spindle_pid_alive "$server_pid"; then
    spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
    printf '%s\t%s\n' stop "SIGTERM at the end: $SPINDLE_STOPPED" >>"$dir/launch.tsv"
  else
    status=0
    wait "$server_pid" 2>/dev/null || status=$?
    printf '%s\t%s\n' stop "had exited during the run (status $status)" >>"$dir/launch.tsv"
  fi
  server_pid=""
done

meta finished "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
"$PY" "$LIB/ws_idle.py" report "$out" || rc=$?
SPINDLE_PYTHON="$PY" spindle_pack_raw "$out"
if (( rc != 0 )); then
  echo "websocket-idle: FAILED; results in $out/summary.md" >&2
  exit 1
fi
echo "websocket-idle: every server passed; results in $out/summary.md" >&2
