#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile-memory run: every Spindle server under a small heap (-Xmx96m) receives oversized, slow,
# many medium bodies, a hundred refused uploads and connection churn, while a health prober checks
# that it still answers.
#
#   scripts/hostile-memory.sh [--quick] [--servers A,B] [--phases P,Q] [--out DIR]
#
#   --quick      VirtualThreadServer and MultiLoopServer with small counts (under 2 minutes); the
#                run goes to a temporary directory unless --out is given
#   --servers    rows of scripts/lib/bench-servers.sh (e.g. ThreadPoolServer, MultiLoopServer-busypoll)
#                or main classes; default: the nine Spindle servers (SingleThreadServer,
#                ThreadPerConnectionServer, ThreadPoolServer, VirtualThreadServer, SingleLoopServer,
#                MultiLoopServer, BossWorkerServer, ReusePortServer, IoUringServer)
#   --phases     a subset of oversized,slow,medium,churn,uploads,raised,multipart (default: all, in that order)
#   --out DIR    where the run goes (default results/hostile/<UTC timestamp>/)
#
# Each server is started three times, each time on 127.0.0.1 with a fixed 96 MiB heap (-Xms96m
# -Xmx96m on top of spindle_java_opts' flags) and its GC logged (-Xlog:gc):
#   default   the default limits (16 MiB bodies, 10 s header timeout), then one after the other:
#             oversized  4 POST /echo announcing 300 MB and 4 sending 300 MB chunked, at once,
#                        the bytes streamed until the server answers or closes
#             slow       200 connections sending a 64-byte body 4 bytes at a time, half inside the
#                        header timeout (expect 200), half beyond it (expect 408)
#             medium     64 clients POSTing 4-8 MB bodies in a loop for 30 s, the echo checked
#             churn      ab -n 20000 -c 1000 without keep-alive against /plaintext, 3 rounds
#   uploads   -Dspindle.maxBodySize=1048576 (1 MiB), then 100 POST /echo of 300 MB, 4 at a time,
#             Content-Length and chunked in turn (8 with --quick), each streamed until the server
#             answers or closes, then read to the close (phase "uploads"): each must read its 413
#             with no reset (ECONNRESET, EPIPE) before the status, which the server's lingering close
#             (it drops what still arrives until 500 ms of quiet) ensures; resets after the status
#             are counted and reported, not judged. The limit is lowered so that four chunked bodies
#             refused at it fit the buffered-body budget (a quarter of the heap, 23 MiB) together:
#             at 16 MiB two do not, and the one that does not fit is answered the budget's 503 (see
#             the oversized phase), not 413
#   raised    -Dspindle.maxBodySize=314572800 (300 MiB), then two concurrent 300 MB POSTs to
#             /echo (phase "raised"): a clear 413/503, or 200 with the whole echo
#   multipart the default limits, then two concurrent POST /multipart (one with --quick): a field and a
#             300 MB file as multipart/form-data, one with Content-Length and one chunked (phase
#             "multipart"); the route stores the file on disk and answers its size and SHA-256,
#             which must match the client's: the heap stays bounded while 300 MB go through it
# Throughout, a new connection asks GET /plaintext every 0.2 s. After the phases the server's CPU
# is sampled for 5 s (after 5 s of quiet), then it is stopped with SIGTERM.
# Every phase is bounded in count and time (each request has a deadline: 30-60 s, 20 s with --quick).
#
# A server passes when every hostile request got a status line (2xx with the whole echo, or
# 4xx/5xx; a close or reset after a 4xx/5xx status is fine, before one it is a failure), every
# refused upload (uploads) read a 413 with no reset before it, every multipart upload (multipart) got
# 200 with its file's size and SHA-256, every health probe was answered
# 200 within 1 s, its output holds no OutOfMemoryError, its CPU after the load is below 5 % of
# one core, and it stayed up. The rule is in scripts/lib/hostile_memory.py
# (VERDICT_RULE) and in every summary.md.
#
# Writes DIR/summary.md (the uploads phase's 413s, resets before and after the status and time to
# the status in a table of their own), summary.tsv (one row per server, launch and phase; the
# uploads_* columns filled on the uploads rows), meta.tsv, and
# raw/<server>/<launch>/: server.out, server.err, gc.log, health.tsv, client.json, ab-N.txt,
# launch.tsv. Rebuild the summary: /usr/bin/python3 scripts/lib/hostile_memory.py report DIR
#
# Exit status: 0 every server passed; 1 a server failed (or could not be built or started);
# 2 bad arguments.
#
# Env: SPINDLE_HOSTILE_HEAP (default 96m), SPINDLE_HOSTILE_UPLOAD_LIMIT (the uploads launch's
# spindle.maxBodySize, default 1048576; 16777216, the default limit, shows the budget's 503s),
# SPINDLE_HOSTILE_WORKERS (the workers argument of a row without its own, default 2;
# ThreadPoolServer's row gives 200, as in the matrix), SPINDLE_HOSTILE_NOTE (a sentence for summary.md), SPINDLE_JAVA_PROPS (extra -D properties),
# SPINDLE_JVM_OPTS (replaces spindle_java_opts' flags; the heap flags are set regardless).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"
LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/lib" && pwd -P)"

READY_TIMEOUT=60   # seconds to wait for "listening on"
STOP_TIMEOUT=15    # seconds between SIGTERM and SIGKILL
RAISED_LIMIT=314572800
UPLOAD_LIMIT="${SPINDLE_HOSTILE_UPLOAD_LIMIT:-1048576}"
ALL_SERVERS=(SingleThreadServer ThreadPerConnectionServer ThreadPoolServer VirtualThreadServer SingleLoopServer
  MultiLoopServer BossWorkerServer ReusePortServer IoUringServer)
QUICK_SERVERS=(VirtualThreadServer MultiLoopServer)
ALL_PHASES=(oversized slow medium churn uploads raised multipart)

usage() {
  echo "usage: $(basename "$0") [--quick] [--servers A,B] [--phases P,Q] [--out DIR]   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }

# --- arguments -----------------------------------------------------------------------------

command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"
quick=0 servers_arg="" phases_arg="" out_arg=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --quick) quick=1 ;;
    --servers) (( $# >= 2 )) || usage; servers_arg="$2"; shift ;;
    --phases) (( $# >= 2 )) || usage; phases_arg="$2"; shift ;;
    --out) (( $# >= 2 )) || usage; out_arg="$2"; shift ;;
    *) echo "error: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
if [[ -n "$servers_arg" ]]; then
  IFS=, read -r -a servers <<<"$servers_arg"
elif (( quick )); then
  servers=("${QUICK_SERVERS[@]}")
else
  servers=("${ALL_SERVERS[@]}")
fi
(( ${#servers[@]} > 0 )) || usage
phases=("${ALL_PHASES[@]}")
if [[ -n "$phases_arg" ]]; then
  IFS=, read -r -a phases <<<"$phases_arg"
  for p in "${phases[@]}"; do
    [[ " ${ALL_PHASES[*]} " == *" $p "* ]] || { echo "error: unknown phase '$p' (known: ${ALL_PHASES[*]})" >&2; usage; }
  done
fi
# The refused uploads, the raised-limit case and the multipart uploads are launches of their own
# (so each launch's peak heap is its own); the other phases share the default launch.
default_phases=() uploads=0 raised=0 multipart=0
for p in "${phases[@]}"; do
  case "$p" in
    uploads) uploads=1 ;;
    raised) raised=1 ;;
    multipart) multipart=1 ;;
    *) default_phases+=("$p") ;;
  esac
done
heap="${SPINDLE_HOSTILE_HEAP:-96m}"
[[ "$heap" =~ ^[1-9][0-9]*[mMgG]$ ]] || { echo "error: SPINDLE_HOSTILE_HEAP must look like 96m" >&2; usage; }
default_workers="${SPINDLE_HOSTILE_WORKERS:-2}"
[[ "$default_workers" =~ ^[1-9][0-9]*$ ]] || { echo "error: SPINDLE_HOSTILE_WORKERS must be a positive whole number" >&2; usage; }
[[ "$UPLOAD_LIMIT" =~ ^[1-9][0-9]*$ ]] || { echo "error: SPINDLE_HOSTILE_UPLOAD_LIMIT must be a positive whole number" >&2; usage; }

# Each server: "<name>|<fqcn>|<module>|<props>|<workers>", from its benchmark row or its class.
declare -a plan=()
for server in "${servers[@]}"; do
  row=""
  for r in "${SPINDLE_BENCH_SERVERS[@]}"; do
    [[ "${r%%|*}" == "$server" ]] && { row="$r"; break; }
  done
  class="$server" props="" workers="$default_workers"
  if [[ -n "$row" ]]; then
    IFS='|' read -r _ class props row_workers <<<"$row"
    [[ -z "${row_workers:-}" ]] || workers="$row_workers"
  fi
  found="$(spindle_find_server "$class")"   # exits 2 with the list of servers if unknown
  plan+=("$server|${found#* }|${found%% *}|$props|$workers")
done

# --- tools and output ----------------------------------------------------------------------

command -v ab >/dev/null 2>&1 || spindle_ensure_packages apache2-utils
spindle_ensure_packages python3
PY=/usr/bin/python3   # Debian's: the first python3 on PATH may be one that cannot see Debian's packages
spindle_find_jdk
spindle_java_opts
jvm_flags=()
for f in "${SPINDLE_JVM_FLAGS[@]}"; do
  [[ "$f" == -Xms* || "$f" == -Xmx* ]] || jvm_flags+=("$f")
done
jvm_flags+=("-Xms$heap" "-Xmx$heap")
read -r -a java_props <<<"${SPINDLE_JAVA_PROPS:-}"
# ab -c 1000 and the server's side of it
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="$(spindle_run_dir "$out_arg" "$quick" hostile "$stamp")"
[[ ! -e "$out/summary.md" ]] || spindle_die "$out already holds a run; pick another --out"
echo "hostile-memory: ${#plan[@]} server(s), phases ${phases[*]}$( (( quick )) && echo ' (quick)'); output $out" >&2

meta() { printf '%s\t%s\n' "$1" "${2//$'\n'/ }" >>"$out/meta.tsv"; }
# shellcheck disable=SC1091  # a system file, not ours
os="$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}" || echo "?")"
: >"$out/meta.tsv"
meta servers "$(IFS=,; echo "${servers[*]}")"
meta phases "$(IFS=,; echo "${phases[*]}")"
meta quick "$quick"
meta command "$command_line"
meta started "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta commit "$(spindle_git_desc)"
meta machine "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); $(nproc) CPU(s); $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
meta kernel "$(uname -srm)"
meta os "$os"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
meta jdk "$JAVA_HOME: $("$JAVA_HOME/bin/java" -version 2>&1 | grep -v '^Picked up' | head -n 2 | paste -sd ';' | sed 's/;/; /g')"
meta jvm_flags "${jvm_flags[*]} -Xlog:gc:file=<launch>/gc.log"
meta extra_props "${SPINDLE_JAVA_PROPS:-none}"
meta upload_limit "-Dspindle.maxBodySize=$UPLOAD_LIMIT for the uploads launch"
meta raised_limit "-Dspindle.maxBodySize=$RAISED_LIMIT for the raised launch"
meta ab "$(ab -V 2>&1 | head -n 1)"
meta python "$("$PY" --version 2>&1)"
[[ -z "${SPINDLE_HOSTILE_NOTE:-}" ]] || meta note "$SPINDLE_HOSTILE_NOTE"

# --- processes -----------------------------------------------------------------------------

server_pid="" client_pid="" snapshot=""
cleanup() {
  [[ -z "$client_pid" ]] || spindle_stop_pid "$client_pid" 10
  [[ -z "$server_pid" ]] || spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
  [[ -z "$snapshot" ]] || rm -rf "$snapshot"
}
trap cleanup EXIT
trap 'echo "interrupted; partial run in $out" >&2; exit 130' INT
trap 'echo "terminated; partial run in $out" >&2; exit 143' TERM

snapshot="$(mktemp -d -t spindle-hostile-classes.XXXXXX)"
declare -A module_cp=()

# One launch: start the server with extra properties, run the client phases, stop it.
# Args: name fqcn module props workers launch phases(comma-separated) [extra -D...]
run_launch() {
  local name="$1" fqcn="$2" module="$3" props="$4" workers="$5" launch="$6" launch_phases="$7"
  shift 7
  local dir="$out/raw/$name/$launch" port line
  mkdir -p "$dir"
  local row_props=()
  read -r -a row_props <<<"$props"
  local cmd=("$JAVA_HOME/bin/java" "${jvm_flags[@]}" "-Xlog:gc:file=$dir/gc.log" "${row_props[@]}" "${java_props[@]}" "$@"
    -cp "${module_cp[$module]}" "$fqcn" 0 "$workers")
  printf '%s\t%s\n' command "${cmd[*]//$snapshot/<classes>}" >"$dir/launch.tsv"
  printf '%s\t%s\n' workers "$workers" >>"$dir/launch.tsv"
  "${cmd[@]}" >"$dir/server.out" 2>"$dir/server.err" </dev/null &
  server_pid=$!
  if ! port="$(spindle_await_ready "$server_pid" "$dir/server.out" "$dir/server.err" "$READY_TIMEOUT" 2>>"$dir/launch-error.txt")"; then
    printf '%s\t%s\n' started no start_error "$(tail -n 2 "$dir/launch-error.txt" | tr '\n' ' ')" >>"$dir/launch.tsv"
    spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"; server_pid=""
    echo "hostile-memory: $name ($launch) did not start" >&2
    return 0
  fi
  printf '%s\t%s\n' started yes port "$port" >>"$dir/launch.tsv"
  echo "hostile-memory: $name ($launch) pid $server_pid on 127.0.0.1:$port" >&2
  local quick_flag=()
  (( quick )) && quick_flag=(--quick)
  "$PY" "$LIB/hostile_memory.py" run --port "$port" --pid "$server_pid" --out "$dir" --phases "$launch_phases" \
    "${quick_flag[@]}" &
  client_pid=$!
  local rc=0
  wait "$client_pid" || rc=$?
  client_pid=""
  (( rc == 0 )) || printf '%s\t%s\n' client_error "the client exited with status $rc" >>"$dir/launch.tsv"
  if spindle_pid_alive "$server_pid"; then
    spindle_stop_pid "$server_pid" "$STOP_TIMEOUT"
    printf '%s\t%s\n' stop "SIGTERM at the end: $SPINDLE_STOPPED" >>"$dir/launch.tsv"
  else
    local status=0
    wait "$server_pid" 2>/dev/null || status=$?
    printf '%s\t%s\n' stop "had exited during the run (status $status)" >>"$dir/launch.tsv"
  fi
  server_pid=""
  [[ -s "$dir/launch-error.txt" ]] || rm -f "$dir/launch-error.txt"
}

for entry in "${plan[@]}"; do
  IFS='|' read -r name fqcn module props workers <<<"$entry"
  if [[ -z "${module_cp[$module]:-}" ]]; then
    if ! cp="$(spindle_classpath "$module")"; then
      echo "hostile-memory: $module could not be built; $name fails" >&2
      continue
    fi
    # A private copy, so a build elsewhere during the run cannot change what the JVMs load.
    module_cp[$module]="$(spindle_snapshot_cp "$cp" "$snapshot/$module")"
  fi
  if (( ${#default_phases[@]} > 0 )); then
    run_launch "$name" "$fqcn" "$module" "$props" "$workers" default "$(IFS=,; echo "${default_phases[*]}")"
  fi
  if (( uploads )); then
    run_launch "$name" "$fqcn" "$module" "$props" "$workers" uploads uploads "-Dspindle.maxBodySize=$UPLOAD_LIMIT"
  fi
  if (( raised )); then
    run_launch "$name" "$fqcn" "$module" "$props" "$workers" raised raised "-Dspindle.maxBodySize=$RAISED_LIMIT"
  fi
  if (( multipart )); then
    run_launch "$name" "$fqcn" "$module" "$props" "$workers" multipart multipart
  fi
done

meta finished "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
"$PY" "$LIB/hostile_memory.py" report "$out" || rc=$?
SPINDLE_PYTHON="$PY" spindle_pack_raw "$out"
if (( rc != 0 )); then
  echo "hostile-memory: FAILED; results in $out/summary.md" >&2
  exit 1
fi
echo "hostile-memory: passed; results in $out/summary.md" >&2
