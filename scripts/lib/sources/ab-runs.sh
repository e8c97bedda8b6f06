# shellcheck shell=bash
# What the source parts that run `ab` share (doc000-webflux.sh, doc003-spring-virtual-threads.sh).
# Source it after ../common.sh; the caller sets OUT (its part directory, with raw/) and runs
# under `set -euo pipefail`. Every server it starts is stopped by PID on exit.

AB_RUNS_PIDS=()
ab_runs_cleanup() {
  local pid
  for pid in "${AB_RUNS_PIDS[@]}"; do
    spindle_stop_pid "$pid"
  done
  AB_RUNS_PIDS=()
}
trap ab_runs_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts a server in the background and waits for its ready line:
#   ab_runs_start LABEL command...   (stdout/stderr to raw/LABEL.out/.err)
# Sets STARTED_PID and STARTED_PORT; returns 1 (with the server's output on stderr) if it does not start.
ab_runs_start() {
  local label="$1"
  shift
  "$@" >"$OUT/raw/$label.out" 2>"$OUT/raw/$label.err" &
  STARTED_PID=$!
  AB_RUNS_PIDS+=("$STARTED_PID")
  STARTED_PORT="$(spindle_await_ready "$STARTED_PID" "$OUT/raw/$label.out" "$OUT/raw/$label.err" 120)" || return 1
}

# Stops the server started last with ab_runs_start.
ab_runs_stop() {
  spindle_stop_pid "$1"
  local kept=() pid
  for pid in "${AB_RUNS_PIDS[@]}"; do
    [[ "$pid" == "$1" ]] || kept+=("$pid")
  done
  AB_RUNS_PIDS=("${kept[@]}")
}

# One measured ab run, its output in raw/RUN.ab and a row appended to results.tsv:
#   ab_runs_measure RUN "ab arguments without the URL" URL
# Returns ab's exit status (non-zero: it failed or timed out; the output says which).
AB_RUNS_HEADER=$'run\tcommand\tseconds\tcomplete\tfailed\tnon2xx\treq_per_s\tp50_ms\tp100_ms\tdocument_bytes\ttransferred_bytes'
ab_runs_measure() {
  local run="$1" args="$2" url="$3" rc=0 file="$OUT/raw/$1.ab"
  [[ -f "$OUT/results.tsv" ]] || echo "$AB_RUNS_HEADER" >"$OUT/results.tsv"
  # shellcheck disable=SC2086  # the arguments are words
  ab $args "$url" >"$file" 2>&1 || rc=$?
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
  ' "$file" >>"$OUT/results.tsv"
  if (( rc != 0 )); then
    echo "error: ab failed (exit $rc) in run $run; its output: $file" >&2
    tail -n 5 "$file" >&2
  else
    echo "[$run] $(awk -F'\t' 'END { printf "%s s, %s req/s, failed %s, non-2xx %s", $3, $7, $5, $6 }' "$OUT/results.tsv")" >&2
  fi
  return "$rc"
}

# A warm-up ab run (class loading, JIT), output kept in raw/RUN.warmup.ab, never fatal.
ab_runs_warm() {
  # shellcheck disable=SC2086
  ab $2 "$3" >"$OUT/raw/$1.warmup.ab" 2>&1 || true
}
