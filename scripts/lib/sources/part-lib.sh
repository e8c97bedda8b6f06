# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by the source-reproduction parts (scripts/lib/sources/doc<NNN>-*.sh): starting a server
# (a Spindle class from a frozen classpath, or any command), stopping it, and running a load tool
# (wrk, ab) into raw/. Source it; do not run it.
# Callers run under `set -euo pipefail` and call part_init first.

# shellcheck source-path=SCRIPTDIR source=../common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
PART_LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"

PART_PID="" PART_PORT="" PART_CP_DIR=""
declare -A PART_CP=()        # module -> frozen classpath
declare -A PART_RUNNING=()   # pid -> label of every server started and not yet stopped

_part_cleanup() {
  local status=$? pid
  if (( status != 0 )) && [[ -n "${PART_OUT:-}" && ! -f "$PART_OUT/section.md" ]]; then
    printf '## %s\n\n**This part failed** (exit status %s); what it measured before the failure is in `raw/`, the error in the run'"'"'s log.\n' \
      "${PART_TITLE:-$(basename "$0" .sh)}" "$status" >"$PART_OUT/section.md"
  fi
  for pid in "${!PART_RUNNING[@]}"; do
    spindle_stop_pid "$pid"
  done
  PART_RUNNING=()
  [[ -z "$PART_CP_DIR" ]] || rm -rf "$PART_CP_DIR"
}

# part_init "$@" (the part's own arguments, OUT QUICK; anything else: its usage, exit status 2):
# the part's output directory (raw/ created), the JDK, the load tools, the
# JVM flags (SPINDLE_JVM_FLAGS), a file-descriptor limit for 1,000 connections, the cleanup trap.
part_init() {
  [[ $# == 2 && "$2" =~ ^[01]$ ]] || { echo "usage: $(basename "$0") <part_out_dir> <quick 0|1>" >&2; exit 2; }
  PART_OUT="$1" PART_QUICK="$2"
  mkdir -p "$PART_OUT/raw"
  PART_OUT="$(cd "$PART_OUT" && pwd -P)"
  spindle_ensure_packages apache2-utils wrk curl
  spindle_find_jdk
  spindle_java_opts
  ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  PART_CP_DIR="$(mktemp -d "${TMPDIR:-/tmp}/spindle-part-cp.XXXXXX")"
  : >"$PART_OUT/raw/commands.txt"
  trap _part_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# part_build CLASS...: builds the modules of these server classes now (not under a readiness
# timeout) and freezes their classpaths: this tree's classes copied, so another checkout's
# `mvn install` into ~/.m2 during the run cannot change what the servers load.
part_build() {
  local cls found module
  for cls in "$@"; do
    found="$(spindle_find_server "$cls")"
    module="${found%% *}"
    [[ -n "${PART_CP[$module]:-}" ]] && continue
    PART_CP[$module]="$(spindle_snapshot_cp "$(spindle_classpath "$module")" "$PART_CP_DIR/$module")"
  done
}

# part_build_rows ROW...: part_build for rows written "label|CLASS|...", the parts' server tables.
part_build_rows() {
  local row cls
  for row in "$@"; do
    IFS='|' read -r _ cls _ <<<"$row"
    part_build "$cls"
  done
}

# part_launch LABEL CLASS WORKERS [JVM arguments...]: starts the server on a free port of
# 127.0.0.1, its output in raw/LABEL.out and .err, and sets PART_PID without waiting for it.
# JVM flags: SPINDLE_JVM_FLAGS, or PART_JVM_FLAGS when set.
part_launch() {
  local label="$1" cls="$2" workers="$3" found module fqcn
  shift 3
  found="$(spindle_find_server "$cls")"
  module="${found%% *}" fqcn="${found#* }"
  part_build "$cls"
  local flags=("${SPINDLE_JVM_FLAGS[@]}")
  [[ -z "${PART_JVM_FLAGS:-}" ]] || read -r -a flags <<<"$PART_JVM_FLAGS"
  local cmd=("$JAVA_HOME/bin/java" "${flags[@]}" "$@" -cp "${PART_CP[$module]}" "$fqcn" 0 ${workers:+"$workers"})
  echo "server $label: java ${flags[*]} $* $fqcn 0 $workers" >>"$PART_OUT/raw/commands.txt"
  "${cmd[@]}" >"$PART_OUT/raw/$label.out" 2>"$PART_OUT/raw/$label.err" &
  PART_PID=$!
  PART_RUNNING[$PART_PID]="$label"
}

# part_run LABEL COMMAND...: starts any server command in the background (a framework's launcher,
# scripts/run-server.sh), its output in raw/LABEL.out and .err; sets PART_PID without waiting.
part_run() {
  local label="$1"
  shift
  "$@" >"$PART_OUT/raw/$label.out" 2>"$PART_OUT/raw/$label.err" &
  PART_PID=$!
  PART_RUNNING[$PART_PID]="$label"
}

# part_await LABEL PID: waits until the server launched as LABEL is ready; sets PART_PORT.
# Fails (status 1, its output on stderr) when it exits first or is not ready within 120 s (a
# Spring Boot start with a pre-touched heap takes a while on 2 cores).
part_await() {
  PART_PORT="$(spindle_await_ready "$2" "$PART_OUT/raw/$1.out" "$PART_OUT/raw/$1.err" 120)"
}

# part_start LABEL CLASS WORKERS [JVM arguments...]: part_launch, then part_await.
part_start() {
  part_launch "$@"
  part_await "$1" "$PART_PID"
}

# part_stop [PID]: stops a server this part started (default: the last one, PART_PID).
part_stop() {
  local pid="${1:-$PART_PID}"
  [[ -n "$pid" && -n "${PART_RUNNING[$pid]:-}" ]] || return 0
  spindle_stop_pid "$pid"
  unset "PART_RUNNING[$pid]"
}

# part_stop_all: stops every server this part started and has not stopped yet.
part_stop_all() {
  local pid
  for pid in "${!PART_RUNNING[@]}"; do
    part_stop "$pid"
  done
}

# part_expect URL BODY [curl args...]: the route answers 200 with exactly BODY (a wrong build,
# e.g. a core without the route, shows here and not as a wall of non-2xx answers).
part_expect() {
  local url="$1" want="$2" got
  shift 2
  got="$(curl -sS --max-time 10 -w ' %{http_code}' "$@" "$url" 2>&1)" || true
  [[ "$got" == "$want 200" ]] || {
    echo "error: $url answered '$got', expected '$want' with 200" >&2
    return 1
  }
}

# part_log COMMAND...: records the load command in raw/commands.txt (the port as PORT) and runs it.
part_log() {
  local line="$*"
  line="${line//127.0.0.1:$PART_PORT/127.0.0.1:PORT}"
  echo "${line//$SPINDLE_ROOT\//}" >>"$PART_OUT/raw/commands.txt"
  "$@"
}

# wrk output -> "req_per_s<TAB>avg_latency_ms<TAB>requests<TAB>non2xx<TAB>socket_errors" on stdout.
part_wrk_fields() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000
      return v + 0 }
    /^ +Latency/ && !lat { lat = ms($2) }
    / requests in / { req = $1 }
    /^Requests\/sec:/ { rps = $2 }
    /Non-2xx or 3xx responses:/ { bad = $5 }
    /Socket errors:/ { gsub(/,/, ""); err = $4 + $6 + $8 + $10 }
    END { printf "%s\t%s\t%s\t%d\t%d\n", rps, lat, req, bad, err }' "$1"
}

# part_ab RUN "ab arguments without the URL" URL: one measured ab run, its output in raw/RUN.ab and
# a row appended to results.tsv. Returns ab's exit status (non-zero: it failed or timed out).
PART_AB_HEADER=$'run\tcommand\tseconds\tcomplete\tfailed\tnon2xx\treq_per_s\tp50_ms\tp100_ms\tdocument_bytes\ttransferred_bytes'
part_ab() {
  local run="$1" args="$2" url="$3" rc=0 file="$PART_OUT/raw/$1.ab"
  [[ -f "$PART_OUT/results.tsv" ]] || echo "$PART_AB_HEADER" >"$PART_OUT/results.tsv"
  # shellcheck disable=SC2086  # the arguments are words
  part_log ab $args "$url" >"$file" 2>&1 || rc=$?
  awk -v run="$run" -v cmd="ab $args $url" '
    /^Time taken for tests:/ { secs = $5 }
    /^Complete requests:/ { complete = $3 }
    /^Failed requests:/ { failed = $3 }
    /^Non-2xx responses:/ { non2xx = $3 }
    /^Requests per second:/ { rps = $4 }
    /^Document Length:/ { doc = $3 }
    /^Total transferred:/ { total = $3 }
    /^  50%/ { p50 = $2 }
    /^ 100%/ { p100 = $2 }
    END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", run, cmd, secs, complete, failed + 0, non2xx + 0, rps, p50, p100, doc, total }
  ' "$file" >>"$PART_OUT/results.tsv"
  if (( rc != 0 )); then
    echo "error: ab failed (exit $rc) in run $run; its output: $file" >&2
    tail -n 5 "$file" >&2
  else
    echo "[$run] $(awk -F'\t' 'END { printf "%s s, %s req/s, failed %s, non-2xx %s", $3, $7, $5, $6 }' "$PART_OUT/results.tsv")" >&2
  fi
  return "$rc"
}

# part_ab_warm RUN "ab arguments" URL: a warm-up ab run (class loading, JIT), output kept in
# raw/RUN.warmup.ab, never fatal.
part_ab_warm() {
  # shellcheck disable=SC2086
  ab $2 "$3" >"$PART_OUT/raw/$1.warmup.ab" 2>&1 || true
}

part_python() {
  /usr/bin/python3 "$PART_LIB/sources/sections.py" "$@"
}
