#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part 002 of scripts/reproduce-sources.sh: the event-system payload benchmark
# (../shared/sources/002_5c8d3c27af7b2099.txt) over HTTP: its payload sizes to the byte (one-way
# 72, 10,069, 100,071, 500,071 B; two-way 69, 10,066, 100,068, 500,068 B) and 6,000 B, the low
# end of its "most efficient" 6 to 10 KB, one-way = the payload
# in and a boolean back (POST /ingest, answering `true`), two-way = the payload echoed
# (POST /echo), many requests in flight (wrk, 64 connections, its body from bench-post.lua).
# Rows: MultiLoopServer, VirtualThreadServer and IoUringServer (the Netty reference serves the
# benchmark app's routes only, which have no /ingest).
#
#   scripts/lib/sources/doc002-payload.sh <part_out_dir> <quick 0|1>
#
# Writes <part_out_dir>/section.md and raw/ (every wrk output, server logs, results.tsv).
# Exit status: 0 measured; 1 a server did not start or wrk failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=part-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/part-lib.sh"
PART_TITLE='002: "Benchmark client": an event-system benchmark with payloads of 72 B to 500 KB, one-way and two-way'
part_init "$@"
out="$PART_OUT"

connections=64 wrk_threads=1
# One row: "label|class|JVM properties"
if (( PART_QUICK )); then
  rows=("MultiLoopServer|MultiLoopServer|" "VirtualThreadServer|VirtualThreadServer|")
  duration=1 warmup=1
else
  rows=("MultiLoopServer|MultiLoopServer|" "VirtualThreadServer|VirtualThreadServer|" "IoUringServer|IoUringServer|")
  duration=5 warmup=3
fi
# The document's payload sizes, in bytes (its one-way and two-way events differ by 3 bytes), plus
# 6,000 B, the low end of its "6 to 10 KB", which its table does not measure.
oneway_sizes=(72 6000 10069 100071 500071)
twoway_sizes=(69 6000 10066 100068 500068)
workers="$(nproc)"

part_build_rows "${rows[@]}"
tsv="$out/raw/results.tsv"
printf 'server\tdirection\tsize\treq_per_s\tavg_latency_ms\trequests\tnon2xx\tsocket_errors\n' >"$tsv"

run_wrk() {   # label direction route size seconds file
  local rc=0
  part_log wrk -t"$wrk_threads" -c"$connections" -d"$5s" --latency -s "$PART_LIB/bench-post.lua" \
    "http://127.0.0.1:$PART_PORT$3" -- "$4" >"$6" 2>&1 || rc=$?
  if (( rc != 0 )) || ! grep -q '^Requests/sec:' "$6"; then
    echo "error: wrk against $1 $3 ($4 B) failed (exit $rc): $6" >&2
    cat "$6" >&2
    return 1
  fi
}

for row in "${rows[@]}"; do
  IFS='|' read -r label cls props <<<"$row"
  mkdir -p "$out/raw/$label"
  echo "[002] $label" >&2
  read -r -a jvm_props <<<"$props"
  part_start "$label" "$cls" "$workers" "${jvm_props[@]}" || exit 1
  part_expect "http://127.0.0.1:$PART_PORT/ingest" true --data-binary 'an event' || exit 1
  part_expect "http://127.0.0.1:$PART_PORT/echo" 'an event' --data-binary 'an event' || exit 1
  # Warm-up, not measured: both routes at the middle size.
  run_wrk "$label" warmup /ingest 10069 "$warmup" "$out/raw/$label/warmup-ingest.wrk" || exit 1
  run_wrk "$label" warmup /echo 10066 "$warmup" "$out/raw/$label/warmup-echo.wrk" || exit 1
  for i in "${!oneway_sizes[@]}"; do
    for direction in one-way two-way; do
      if [[ "$direction" == one-way ]]; then size="${oneway_sizes[$i]}" route=/ingest; else size="${twoway_sizes[$i]}" route=/echo; fi
      file="$out/raw/$label/$direction-$size.wrk"
      run_wrk "$label" "$direction" "$route" "$size" "$duration" "$file" || exit 1
      printf '%s\t%s\t%s\t%s\n' "$label" "$direction" "$size" "$(part_wrk_fields "$file")" >>"$tsv"
    done
  done
  part_stop
done

{
  echo "quick	$PART_QUICK"
  echo "connections	$connections"
  echo "wrk_threads	$wrk_threads"
  echo "duration	$duration"
  echo "warmup	$warmup"
  echo "workers	$workers"
  echo "cores	$(nproc)"
  echo "wrk	$(wrk -v 2>&1 | head -n 1)"
} >"$out/raw/meta.tsv"
part_python doc002 "$out"
