#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The WebSocket and server-sent-event scenarios of the benchmark matrix: every server under
# tools/ws-load (a WebSocket/SSE load generator of our own, one NIO thread), interleaved, on 127.0.0.1.
#
#   scripts/benchmark-websocket.sh [--servers A,B] [--scenarios A,B] [--rounds N] [--duration SECONDS]
#                                  [--pin-server CPUS --pin-client CPUS] [--quick] [--out DIR]
#
#   --servers A,B    rows of scripts/lib/bench-servers.sh (default: VirtualThreadServer,
#                    SingleLoopServer, MultiLoopServer, IoUringServer, NettyServer, VertxServer)
#   --scenarios A,B  of the table below (default: all three)
#   --rounds N       measured rounds per cell, odd (default 3): the figures are their medians
#   --duration S     seconds of each measured window (default 10)
#   --pin-server CPUS, --pin-client CPUS
#                    the server JVMs / ws-load under `taskset -c CPUS` (e.g. 1 and 0): the generator
#                    then never takes the server's CPU
#   --quick          a tenth of the connections, a warm-up of 3 windows of 2 s, 3 s windows, 1 round,
#                    VirtualThreadServer and MultiLoopServer; fails on any error; the run goes to a
#                    temporary directory unless --out is given (CI runs it on two rows)
#   --out DIR        where the run goes (default results/websocket/<UTC timestamp>/)
#
# Scenarios (ws-load mode, connections, message bytes, messages in flight):
#   ws-echo-c1000     1,000 sockets on GET /ws/echo, each with one 32-byte text message in flight:
#                     round trips per second and per server CPU-second, round-trip latency
#   ws-broadcast-10k  10,000 idle members of GET /ws/broadcast's room and one publisher (a member
#                     too) with 4 messages of 32 bytes in flight (a message is done when all 10,000
#                     have it): deliveries per second and per server CPU-second, delivery latency
#                     (the publisher's send to a member's receipt)
#   sse-10k           10,000 GET /sse/broadcast event streams and one keep-alive publisher POSTing
#                     /sse/publish (4 events in flight): events delivered per second and per server
#                     CPU-second, delivery latency
# No extension is offered (the messages are 32 bytes), so no row compresses.
#
# Every server starts once, pinned if asked (`java <spindle_java_opts> -Dspindle.maxConnections=
# 10100 -cp <cp> <MainClass> 0 2`, a row's -D properties and workers too), and stays up for the run.
# Warm-up, per server and scenario: one ws-load run of a fixed length, 6 windows of 5 s after 2 s of
# unmeasured traffic (no stopping early at a favourable moment), judged afterwards: steady when the
# last 3 windows' per-server-CPU-second figures lie within 10 % of their median, do not rise window
# over window by more than 5 %, and at most SPINDLE_WS_JIT_QUIET (50) methods were compiled in the
# last 5 s (`jstat -compiler <pid> 5000` beside the run); else the cell is marked "not steady".
# Then N rounds, each every scenario on every server, the servers' order rotated per round: ws-load
# opens its connections, 2 s of traffic it does not count, then the measured window. Server CPU is
# the sum of /proc/<pid>/task/*/schedstat's run time (nanoseconds) over the window (clock ticks of
# /proc/<pid>/stat beside it, as a check); a cell whose per-CPU-second figure spreads more than 10 %
# over the rounds is marked noisy, and one whose generator was busy over 90 % of the window is
# marked generator-bound (its rate says more about ws-load than the server; per CPU-second still holds).
#
# Writes DIR/summary.md, summary.tsv, meta.tsv, and raw/<server>/<scenario>/{warmup,round-K}.json
# (ws-load's output) with their .log, .jit.tsv and .jstat.txt, and steady.txt (the warm-up's verdict);
# raw/<server>/server.{out,err}, launch.tsv. A run under results/
# keeps raw/ as raw.tar.gz. Rebuild the summary: /usr/bin/python3 scripts/lib/ws_bench.py report DIR
# Exit status: 0 the run finished (the summary says which cells failed); 1 no server started or a
# cell failed outright; 2 bad arguments.
# Env: SPINDLE_JVM_OPTS replaces spindle_java_opts' flags.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd -P)"

READY_TIMEOUT=90
STOP_TIMEOUT=15
WORKERS=2
MAX_CONNECTIONS=10100
WARMUP_WINDOWS=6
WARMUP_WINDOW=5
TRAFFIC_BEFORE=2
JIT_QUIET="${SPINDLE_WS_JIT_QUIET:-50}"
DEFAULT_SERVERS=(VirtualThreadServer SingleLoopServer MultiLoopServer IoUringServer NettyServer VertxServer)
QUICK_SERVERS=(VirtualThreadServer MultiLoopServer)
# name|mode|connections|bytes|in flight|what it measures
SCENARIOS=(
  "ws-echo-c1000|echo|1000|32|1|WebSocket echo: 1,000 sockets, one 32-byte text message in flight each; round trips"
  "ws-broadcast-10k|broadcast|10000|32|4|WebSocket fan-out: 10,000 idle members, one publisher, 4 messages in flight; deliveries"
  "sse-10k|sse|10000|32|4|server-sent events: 10,000 streams, one publisher POSTing /sse/publish, 4 events in flight; deliveries"
)

usage() {
  echo "usage: $(basename "$0") [--servers A,B] [--scenarios A,B] [--rounds N] [--duration S] [--pin-server CPUS --pin-client CPUS] [--quick] [--out DIR]   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }

command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"
servers_arg="" scenarios_arg="" rounds="" duration="" pin_server="" pin_client="" quick=0 out_arg=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --servers) need_value "$@"; servers_arg="$2"; shift ;;
    --scenarios) need_value "$@"; scenarios_arg="$2"; shift ;;
    --rounds) need_value "$@"; rounds="$2"; shift ;;
    --duration) need_value "$@"; duration="$2"; shift ;;
    --pin-server) need_value "$@"; pin_server="$2"; shift ;;
    --pin-client) need_value "$@"; pin_client="$2"; shift ;;
    --quick) quick=1 ;;
    --out) need_value "$@"; out_arg="$2"; shift ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
rounds="${rounds:-$( (( quick )) && echo 1 || echo 3)}"
if (( quick )); then WARMUP_WINDOWS=3 WARMUP_WINDOW=2; fi
duration="${duration:-$( (( quick )) && echo 3 || echo 10)}"
[[ "$rounds" =~ ^[1-9][0-9]*$ && $(( rounds % 2 )) == 1 ]] || { echo "error: --rounds must be an odd positive number (a median of an odd number of rounds)" >&2; usage; }
[[ "$duration" =~ ^[1-9][0-9]*$ ]] || { echo "error: --duration must be a positive whole number of seconds" >&2; usage; }
[[ -z "$pin_server" && -z "$pin_client" || -n "$pin_server" && -n "$pin_client" ]] || { echo "error: --pin-server and --pin-client go together" >&2; usage; }
for cpus in "$pin_server" "$pin_client"; do
  [[ -z "$cpus" || "$cpus" =~ ^[0-9]+([,-][0-9]+)*$ ]] || { echo "error: CPU list '$cpus' is not like 0 or 0-1 or 0,2" >&2; usage; }
done
if [[ -n "$servers_arg" ]]; then
  IFS=, read -r -a servers <<<"$servers_arg"
elif (( quick )); then
  servers=("${QUICK_SERVERS[@]}")
else
  servers=("${DEFAULT_SERVERS[@]}")
fi
(( ${#servers[@]} > 0 )) || usage
scenarios=()
if [[ -n "$scenarios_arg" ]]; then
  IFS=, read -r -a wanted <<<"$scenarios_arg"
  for w in "${wanted[@]}"; do
    found=""
    for s in "${SCENARIOS[@]}"; do [[ "${s%%|*}" == "$w" ]] && found="$s"; done
    [[ -n "$found" ]] || { echo "error: unknown scenario '$w' (known: $(printf '%s ' "${SCENARIOS[@]%%|*}"))" >&2; usage; }
    scenarios+=("$found")
  done
else
  scenarios=("${SCENARIOS[@]}")
fi

# Each server: "<name>|<module>|<fqcn>|<props>|<workers>", from its benchmark row.
plan=()
for server in "${servers[@]}"; do
  row=""
  for r in "${SPINDLE_BENCH_SERVERS[@]}"; do [[ "${r%%|*}" == "$server" ]] && row="$r"; done
  [[ -n "$row" ]] || { echo "error: '$server' is not a row of scripts/lib/bench-servers.sh" >&2; exit 2; }
  IFS='|' read -r _ class props row_workers <<<"$row"
  found="$(spindle_find_server "$class")"   # exits 2 with the list of servers if unknown
  plan+=("$server|${found%% *}|${found#* }|$props|${row_workers:-$WORKERS}")
done

spindle_find_jdk
spindle_java_opts
[[ -x "$JAVA_HOME/bin/jstat" && -x "$JAVA_HOME/bin/javac" ]] || spindle_die "no javac/jstat in $JAVA_HOME/bin (a JDK, not a JRE, is needed)"
[[ -z "$pin_server" ]] || command -v taskset >/dev/null 2>&1 || spindle_ensure_packages util-linux
spindle_python
PY="$SPINDLE_PYTHON"
# 10,000 sockets on each side of loopback, for every server at once
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
(( $(ulimit -n) > MAX_CONNECTIONS + 100 )) || spindle_die "open-files limit $(ulimit -n) is too low for $MAX_CONNECTIONS connections"

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="$(spindle_run_dir "$out_arg" "$quick" websocket "$stamp")"
[[ ! -e "$out/summary.md" ]] || spindle_die "$out already holds a run; pick another --out"
work="$(mktemp -d -t spindle-ws-bench.XXXXXX)"
server_pids=()
cleanup() {
  local p
  for p in "${server_pids[@]}"; do spindle_stop_pid "$p" "$STOP_TIMEOUT"; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "interrupted; partial run in $out" >&2; exit 130' INT
trap 'echo "terminated; partial run in $out" >&2; exit 143' TERM

# the generator, compiled from this tree into the run's scratch directory
mkdir -p "$work/ws-load"
mapfile -t wsload_sources < <(find "$SPINDLE_ROOT/tools/ws-load/src/main/java" -name '*.java')
(( ${#wsload_sources[@]} > 0 )) || spindle_die "no sources under tools/ws-load/src/main/java"
"$JAVA_HOME/bin/javac" --release 25 -d "$work/ws-load" "${wsload_sources[@]}" || spindle_die "tools/ws-load did not compile"

pin() { if [[ -n "$1" ]]; then echo taskset -c "$1"; fi; }
read -r -a server_pin <<<"$(pin "$pin_server")"
read -r -a client_pin <<<"$(pin "$pin_client")"
wsload=("${client_pin[@]}" "$JAVA_HOME/bin/java" -XX:+UseParallelGC -Xms1g -Xmx1g -cp "$work/ws-load" dev.spindle.tools.wsload.WsLoad)

meta() { printf '%s\t%s\n' "$1" "${2//$'\n'/ }" >>"$out/meta.tsv"; }
spindle_meta_begin "$out/meta.tsv" "$command_line"
meta jvm_flags "${SPINDLE_JVM_FLAGS[*]} -Dspindle.maxConnections=$MAX_CONNECTIONS"
meta generator "${wsload[*]//$work/<scratch>}"
meta pin_server "${pin_server:-none}"
meta pin_client "${pin_client:-none}"
meta rounds "$rounds"
meta duration "$duration"
meta traffic_before "$TRAFFIC_BEFORE"
meta warmup "one run of $WARMUP_WINDOWS windows of ${WARMUP_WINDOW} s after ${TRAFFIC_BEFORE} s; steady: last 3 windows within 10 % of their median, not rising > 5 % window over window, <= $JIT_QUIET methods compiled in the last 5 s"
meta open_files "$(ulimit -n)"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
for s in "${scenarios[@]}"; do meta scenario "$s"; done

# Start every server; they stay up for the whole run, so the rounds interleave them.
declare -A pid_of=() port_of=()
started=()
for entry in "${plan[@]}"; do
  IFS='|' read -r name module fqcn props workers <<<"$entry"
  dir="$out/raw/$name"
  mkdir -p "$dir"
  cp="$(spindle_classpath "$module")"
  mkdir -p "$work/classes-$name"
  cp="$(spindle_snapshot_cp "$cp" "$work/classes-$name")"
  row_props=()
  read -r -a row_props <<<"$props"
  cmd=("${server_pin[@]}" "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "-Dspindle.maxConnections=$MAX_CONNECTIONS" "${row_props[@]}" -cp "$cp" "$fqcn" 0 "$workers")
  cmd_text="${cmd[*]//$work/<scratch>}"
  printf '%s\t%s\n' command "$cmd_text" module "$module" >"$dir/launch.tsv"
  "${cmd[@]}" >"$dir/server.out" 2>"$dir/server.err" </dev/null &
  pid=$!
  server_pids+=("$pid")
  if ! port="$(spindle_await_ready "$pid" "$dir/server.out" "$dir/server.err" "$READY_TIMEOUT" 2>"$dir/launch-error.txt")"; then
    printf '%s\t%s\n' started no >>"$dir/launch.tsv"
    echo "benchmark-websocket: $name did not start (see $dir/launch-error.txt)" >&2
    continue
  fi
  rm -f "$dir/launch-error.txt"
  printf '%s\t%s\n' started yes port "$port" pid "$pid" >>"$dir/launch.tsv"
  pid_of[$name]="$pid" port_of[$name]="$port"
  started+=("$name")
  echo "benchmark-websocket: $name pid $pid on 127.0.0.1:$port" >&2
done
(( ${#started[@]} > 0 )) || spindle_die "no server started"
printf '%s\n' "${started[@]}" >"$out/servers"

compiled() { "$JAVA_HOME/bin/jstat" -compiler "$1" 2>/dev/null | awk 'NR == 2 { print $1 }'; }

# One ws-load run: server $1, scenario line $2, $3 windows of $4 s, output $5 (a .json), the
# server's JIT sampled every 5 s beside it into $5's .jstat.txt; status 0 when it ran.
cell_failed=0
run_load() {
  local name="$1" scenario="$2" windows="$3" window="$4" json="$5" sname mode conns bytes inflight rc=0 before after jstat_pid
  IFS='|' read -r sname mode conns bytes inflight _ <<<"$scenario"
  (( quick )) && conns=$(( conns / 10 ))
  before="$(compiled "${pid_of[$name]}")"
  "$JAVA_HOME/bin/jstat" -compiler "${pid_of[$name]}" 5000 >"${json%.json}.jstat.txt" 2>&1 &
  jstat_pid=$!
  timeout -k 10 $(( windows * window + 240 )) "${wsload[@]}" "$mode" --port "${port_of[$name]}" --connections "$conns" \
    --size "$bytes" --inflight "$inflight" --warmup "$TRAFFIC_BEFORE" --duration "$window" --windows "$windows" \
    --pid "${pid_of[$name]}" --out "$json" 2>"${json%.json}.log" || rc=$?
  kill "$jstat_pid" 2>/dev/null || true
  wait "$jstat_pid" 2>/dev/null || true
  after="$(compiled "${pid_of[$name]}")"
  printf 'compiled_before\t%s\ncompiled_after\t%s\nstatus\t%s\n' "${before:-}" "${after:-}" "$rc" >"${json%.json}.jit.tsv"
  return "$rc"
}

for scenario in "${scenarios[@]}"; do
  sname="${scenario%%|*}"
  for name in "${started[@]}"; do
    dir="$out/raw/$name/$sname"
    mkdir -p "$dir"
    spindle_pid_alive "${pid_of[$name]}" || { echo "benchmark-websocket: $name is down; no warm-up of $sname" >&2; continue; }
    run_load "$name" "$scenario" "$WARMUP_WINDOWS" "$WARMUP_WINDOW" "$dir/warmup.json" || echo "benchmark-websocket: $name $sname warm-up: ws-load failed (see $dir/warmup.log)" >&2
    "$PY" "$LIB/ws_bench.py" steady "$dir" --jit-quiet "$JIT_QUIET" || true
    echo "benchmark-websocket: $name $sname warmed: $(cat "$dir/steady.txt" 2>/dev/null)" >&2
  done
done

for (( round = 1; round <= rounds; round++ )); do
  for scenario in "${scenarios[@]}"; do
    sname="${scenario%%|*}"
    # the servers' order rotates per round, so none is always measured first or last
    n=${#started[@]}
    for (( i = 0; i < n; i++ )); do
      name="${started[$(( (i + round - 1) % n ))]}"
      dir="$out/raw/$name/$sname"
      mkdir -p "$dir"
      if ! spindle_pid_alive "${pid_of[$name]}"; then
        echo "benchmark-websocket: $name is down; $sname round $round not run" >&2
        cell_failed=1
        continue
      fi
      run_load "$name" "$scenario" 1 "$duration" "$dir/round-$round.json" || { cell_failed=1; echo "benchmark-websocket: $name $sname round $round: ws-load failed (see $dir/round-$round.log)" >&2; }
      echo "benchmark-websocket: round $round $sname $name done" >&2
    done
  done
done

for name in "${started[@]}"; do
  dir="$out/raw/$name"
  if spindle_pid_alive "${pid_of[$name]}"; then
    spindle_stop_pid "${pid_of[$name]}" "$STOP_TIMEOUT"
    printf '%s\t%s\n' stop "SIGTERM at the end: $SPINDLE_STOPPED" >>"$dir/launch.tsv"
  else
    status=0
    wait "${pid_of[$name]}" 2>/dev/null || status=$?
    printf '%s\t%s\n' stop "had exited during the run (status $status)" >>"$dir/launch.tsv"
  fi
done
server_pids=()
meta finished "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
report_args=()
(( ! quick )) || report_args=(--fail-on-errors)
"$PY" "$LIB/ws_bench.py" report "$out" "${report_args[@]}" || rc=$?
SPINDLE_PYTHON="$PY" spindle_pack_raw "$out"
if (( rc != 0 || cell_failed )); then
  echo "benchmark-websocket: a cell failed; results in $out/summary.md" >&2
  exit 1
fi
echo "benchmark-websocket: results in $out/summary.md" >&2
