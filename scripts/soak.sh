#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Soak test: one server under mixed legitimate and hostile load for a while, its resources sampled.
#
#   scripts/soak.sh [minutes] [server]
#
#   minutes   length of the load phase (wrk's duration); default 10
#   server    a row of scripts/lib/bench-servers.sh (e.g. MultiLoopServer-busypoll) or a main class's simple
#             name (e.g. VirtualThreadServer); default MultiLoopServer
#
# Phases, all on 127.0.0.1, all bounded:
#   idle      the server started (fixed heap, flags of spindle_java_opts plus -XX:+AlwaysPreTouch),
#             its routes checked, then sampled alone for a baseline
#   load      for `minutes`, at once:
#             - wrk, 64 connections, rotating GET /plaintext, GET /json, POST /echo 512 B and 16 KiB,
#               every body checked (scripts/lib/soak-mix.lua), timeout 10 s
#             - the hostile clients (scripts/lib/soak_hostile.py): 300 slowloris connections, 1,000
#               idle keep-alive connections, 4 clients that never read their 8 MiB answer, resets
#               (SO_LINGER 0) mid-header, mid-body, mid-response, half-closed connections, and
#               batches of 50 connections sending garbage
#             - the legitimate checker (soak.py check): every 0.5 s a request, its answer verified
#               byte for byte, timeout 10 s
#   cooldown  every client gone; sampled for 75 s to see the server's fds come back to the idle
#             count (a warning when that takes more than 15 s: connections held until a timeout)
# Throughout, every 3 s: the server's RSS, open fds, sockets, threads, CPU and heap (samples.csv).
#
# Writes results/soak/<UTC timestamp>-<server>/: samples.csv, summary.md (environment, verdict,
# numbers), chart.svg (RSS, fds, threads over time), wrk.txt, check.json, hostile.json, preflight.txt,
# server.out, server.err, meta.tsv; a run under results/soak/ also rewrites results/soak/README.md
# (one line per run). Rebuild them: /usr/bin/python3 scripts/lib/soak.py report DIR / index results/soak
#
# Exit status: 0 PASS; 1 FAIL (a legitimate request failed, RSS/fds/threads grew, the server died,
# or it could not be built or started); 2 bad arguments. The verdict rule is in scripts/lib/soak.py
# (VERDICT_RULE) and in every summary.md.
#
# Env: SPINDLE_SOAK_WORKERS (server's workers argument, default 2), SPINDLE_SOAK_CONNECTIONS (wrk,
# default 64), SPINDLE_SOAK_INTERVAL (seconds between samples, default 3), SPINDLE_SOAK_IDLE (idle
# baseline seconds, default 15), SPINDLE_SOAK_COOLDOWN (seconds, default 75: longer than the
# servers' 60 s idle timeout), SPINDLE_SOAK_SCALE
# (multiplies the hostile populations, default 1), SPINDLE_SOAK_OUT (output directory),
# SPINDLE_SOAK_NOTE (a sentence for summary.md, e.g. that the machine was shared),
# SPINDLE_JAVA_PROPS (extra -D properties for the server), SPINDLE_JVM_OPTS (replaces the JVM flags,
# -XX:+AlwaysPreTouch included).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd -P)"

READY_TIMEOUT=60   # seconds to wait for "listening on"
STOP_TIMEOUT=15    # seconds between SIGTERM and SIGKILL for the server
CHECK_INTERVAL=0.5
REQUEST_TIMEOUT=10

usage() {
  echo "usage: $(basename "$0") [minutes] [server]   (default: 10 MultiLoopServer; --help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }

# --- arguments -----------------------------------------------------------------------------

command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"
case "${1:-}" in -h | --help) help ;; esac
(( $# <= 2 )) || usage
minutes="${1:-10}"
server="${2:-MultiLoopServer}"
if ! [[ "$minutes" =~ ^[1-9][0-9]*$ ]] || (( 10#$minutes > 24 * 60 )); then
  echo "error: minutes must be a whole number from 1 to 1440" >&2
  usage
fi
minutes=$(( 10#$minutes ))
workers="${SPINDLE_SOAK_WORKERS:-2}"
connections="${SPINDLE_SOAK_CONNECTIONS:-64}"
interval="${SPINDLE_SOAK_INTERVAL:-3}"
idle_s="${SPINDLE_SOAK_IDLE:-15}"
cooldown_s="${SPINDLE_SOAK_COOLDOWN:-75}"
scale="${SPINDLE_SOAK_SCALE:-1}"
for n in "$workers" "$connections" "$interval" "$idle_s" "$cooldown_s"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "error: SPINDLE_SOAK_* counts and seconds must be positive whole numbers" >&2; usage; }
done
[[ "$scale" =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "error: SPINDLE_SOAK_SCALE must be a positive number" >&2; usage; }
load_s=$(( minutes * 60 ))

# Server: a row of the benchmark list (display name), else a class name.
row=""
for r in "${SPINDLE_BENCH_SERVERS[@]}"; do
  [[ "${r%%|*}" == "$server" ]] && { row="$r"; break; }
done
if [[ -n "$row" ]]; then
  rest="${row#*|}"
  class="${rest%%|*}" row_props="${rest#*|}"
else
  class="$server" row_props=""
fi
found="$(spindle_find_server "$class")"   # exits 2 with the list of servers if unknown
module="${found%% *}" fqcn="${found#* }"

# --- tools ---------------------------------------------------------------------------------

command -v wrk >/dev/null 2>&1 || spindle_ensure_packages wrk
spindle_python
spindle_find_jdk
spindle_java_opts
# The heap is fixed (-Xms = -Xmx) and, here, touched at start, so RSS growth means native memory.
[[ -n "${SPINDLE_JVM_OPTS:-}" ]] || SPINDLE_JVM_FLAGS+=(-XX:+AlwaysPreTouch)
read -r -a java_props <<<"${SPINDLE_JAVA_PROPS:-}"
read -r -a row_props_a <<<"$row_props"
# 1,000+ hostile connections on the client side, as many on the server side.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# --- output directory ----------------------------------------------------------------------

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="${SPINDLE_SOAK_OUT:-$SPINDLE_ROOT/results/soak/$stamp-$server}"
[[ ! -e "$out/samples.csv" ]] || spindle_die "$out already holds a soak run; pick another SPINDLE_SOAK_OUT"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
echo "soak: $server for $minutes min; output $out" >&2

# --- processes -----------------------------------------------------------------------------

server_pid="" wrk_pid="" hostile_pid="" check_pid="" sampler_pid="" snapshot=""

cleanup() {
  local p
  for p in "$wrk_pid" "$hostile_pid" "$check_pid" "$sampler_pid"; do
    [[ -z "$p" ]] || spindle_stop_pid "$p" 10
  done
  [[ -z "$server_pid" ]] || spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
  [[ -z "$snapshot" ]] || rm -rf "$snapshot"
}
trap cleanup EXIT
trap 'echo "interrupted; partial run in $out" >&2; exit 130' INT
trap 'echo "terminated; partial run in $out" >&2; exit 143' TERM

meta() { printf '%s\t%s\n' "$1" "${2//$'\n'/ }" >>"$out/meta.tsv"; }

# --- build, then a private copy of Spindle's classes --------------------------------------

cp="$(spindle_classpath "$module")"
# Copied so a build or `mvn install` elsewhere during the soak cannot change what the JVM loads.
snapshot="$(mktemp -d -t spindle-soak-classes.XXXXXX)"
cp="$(spindle_snapshot_cp "$cp" "$snapshot")"

# --- environment ---------------------------------------------------------------------------

# shellcheck disable=SC1091  # a system file, not ours
os="$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}" || echo "?")"
: >"$out/meta.tsv"
meta server "$server"
meta main_class "$fqcn ($module)"
meta server_props "${row_props:+$row_props }${SPINDLE_JAVA_PROPS:-}"
meta workers "$workers"
meta command "$command_line"
meta started "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta commit "$(spindle_git_desc)"
meta machine "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); $(nproc) CPU(s); $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
meta kernel "$(uname -srm)"
meta os "$os"
meta shared "niceness $(nice) for every process of the soak (server, clients, sampler)${SPINDLE_SOAK_NOTE:+; $SPINDLE_SOAK_NOTE}"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
meta jdk "$JAVA_HOME: $("$JAVA_HOME/bin/java" -version 2>&1 | grep -v '^Picked up' | head -n 2 | paste -sd ';' | sed 's/;/; /g')"
meta jvm_flags "${SPINDLE_JVM_FLAGS[*]}"
meta server_config "ServerConfig defaults (header timeout 10 s, idle timeout 60 s, write timeout 30 s) unless set in the extra JVM arguments"
meta minutes "$minutes"
meta load_seconds "$load_s"
meta wrk_connections "$connections"
meta wrk_mix "GET /plaintext, GET /json, POST /echo 512 B, POST /echo 16 KiB in turn on each connection, every body checked (soak-mix.lua)"
meta check_interval "$CHECK_INTERVAL"
meta sample_interval "${interval} s"
meta durations "idle baseline ${idle_s} s, load ${load_s} s, cooldown ${cooldown_s} s"
meta hostile_doc "$("$SPINDLE_PYTHON" "$LIB/soak_hostile.py" --help | sed -n '/^  slowloris/,/^$/p' | sed 's/^  *//' | paste -sd ' ' | sed 's/  */ /g')"

# --- the server ----------------------------------------------------------------------------

"$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "${row_props_a[@]}" "${java_props[@]}" -cp "$cp" "$fqcn" 0 "$workers" \
  >"$out/server.out" 2>"$out/server.err" </dev/null &
server_pid=$!
line=""
for (( i = 0; i < READY_TIMEOUT * 10; i++ )); do
  line="$(grep -m 1 ' listening on ' "$out/server.out" 2>/dev/null || true)"
  [[ -n "$line" ]] && break
  spindle_pid_alive "$server_pid" || spindle_die "$server exited before its ready line: $(tail -n 3 "$out/server.err" | tr '\n' ' ')"
  sleep 0.1
done
[[ -n "$line" ]] || spindle_die "$server printed no 'listening on' line within ${READY_TIMEOUT}s"
port="$(grep -oE ':[0-9]+' <<<"$line" | tail -n 1 | tr -d ':')"
[[ -n "$port" ]] || spindle_die "no port in the ready line '$line'"
meta ready_line "$line"
echo "soak: $line (pid $server_pid)" >&2

"$SPINDLE_PYTHON" "$LIB/bench.py" check --port "$port" >"$out/preflight.txt" 2>&1 ||
  spindle_die "$server gives wrong answers before the soak: $(tail -n 1 "$out/preflight.txt")"

# --- idle baseline, load, cooldown ---------------------------------------------------------

t0="$(awk -v now="${EPOCHREALTIME}" -v idle="$idle_s" 'BEGIN { printf "%.3f", now + idle }')"
echo idle >"$out/phase"
"$SPINDLE_PYTHON" "$LIB/soak.py" sample --pid "$server_pid" --t0 "$t0" --out "$out/samples.csv" --phase-file "$out/phase" \
  --interval "$interval" --check-status "$out/check.json" --hostile-status "$out/hostile.json" --jstat "$JAVA_HOME/bin/jstat" \
  --max-seconds $(( idle_s + load_s + cooldown_s + 300 )) &
sampler_pid=$!
echo "soak: idle baseline ${idle_s}s ..." >&2
sleep "$idle_s"

echo load >"$out/phase"
echo "soak: load for ${minutes} min (wrk -c$connections, hostile clients, checker) ..." >&2
wrk_cmd=(wrk -t1 -c"$connections" -d"${load_s}s" --timeout "${REQUEST_TIMEOUT}s" --latency -s "$LIB/soak-mix.lua"
  "http://127.0.0.1:$port/")
meta wrk_command "${wrk_cmd[*]/#$LIB\//scripts/lib/}"
"${wrk_cmd[@]}" >"$out/wrk.txt" 2>&1 &
wrk_pid=$!
"$SPINDLE_PYTHON" "$LIB/soak_hostile.py" --port "$port" --duration "$load_s" --status "$out/hostile.json" --scale "$scale" \
  2>"$out/hostile.err" &
hostile_pid=$!
"$SPINDLE_PYTHON" "$LIB/soak.py" check --port "$port" --duration "$load_s" --status "$out/check.json" \
  --interval "$CHECK_INTERVAL" --timeout "$REQUEST_TIMEOUT" 2>"$out/check.err" &
check_pid=$!

server_died=""
started=$SECONDS next_progress=$(( SECONDS + 60 ))
while spindle_pid_alive "$wrk_pid"; do
  if ! spindle_pid_alive "$server_pid"; then
    rc=0; wait "$server_pid" 2>/dev/null || rc=$?
    server_pid=""
    server_died="status $rc after $(( SECONDS - started ))s of load"
    echo "soak: the server EXITED ($server_died); stopping the clients" >&2
    break
  fi
  if (( SECONDS >= next_progress )); then
    next_progress=$(( next_progress + 60 ))
    # The last sample, as a progress line.
    tail -n 1 "$out/samples.csv" | awk -F, '{ printf "soak: t=%ss RSS %s MiB, fds %s, threads %s, hostile conns %s, checks ok %s failed %s\n", $1, $4, $6, $8, $14, $15, $16 }' >&2
  fi
  sleep 1
done
spindle_stop_pid "$wrk_pid" 5; wrk_pid=""
spindle_stop_pid "$hostile_pid" 20; hostile_pid=""
spindle_stop_pid "$check_pid" 20; check_pid=""

echo cooldown >"$out/phase"
if [[ -z "$server_died" ]]; then
  echo "soak: load done; cooldown ${cooldown_s}s ..." >&2
  sleep "$cooldown_s"
  spindle_pid_alive "$server_pid" || server_died="exited during the cooldown"
fi
spindle_stop_pid "$sampler_pid" 10; sampler_pid=""
meta server_exit_during_run "$server_died"
if [[ -n "$server_pid" ]]; then
  spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
  meta stop "SIGTERM at the end: $SPINDLE_STOPPED"
  server_pid=""
fi
meta finished "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$out/phase"
# Empty side logs are noise in results/.
for f in hostile.err check.err; do
  [[ -s "$out/$f" ]] || rm -f "$out/$f"
done

rc=0
"$SPINDLE_PYTHON" "$LIB/soak.py" report "$out" || rc=$?
# A run under results/soak/ also gets its line in results/soak/README.md.
if [[ "$(dirname "$out")" == "$SPINDLE_ROOT/results/soak" ]]; then
  "$SPINDLE_PYTHON" "$LIB/soak.py" index "$SPINDLE_ROOT/results/soak" || echo "warning: results/soak/README.md not rewritten" >&2
fi
spindle_pack_raw "$out"
if (( rc != 0 )); then
  echo "soak: FAILED; results in $out/summary.md" >&2
  exit 1
fi
echo "soak: passed; results in $out/summary.md" >&2
