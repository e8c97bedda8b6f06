#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part 004 of scripts/reproduce-sources.sh: the ranking of ten hand-rolled Java servers
# (../shared/sources/004_6a0fac2468eafd79.txt: wrk 12 threads, 1,000 connections, 6 s, POST,
# 16 workers on 4 CPUs, OpenJDK 22 with ZGC, 256 MB heap) scaled to this machine: workers = 4 x
# cores (the same oversubscription), wrk threads = 3 x cores (12 on 4 CPUs), 1,000 connections,
# 6 s, POST of a 72 B body to /ingest, ZGC with a 256 MB heap; every Spindle server class that
# maps to one of the ten, all started once and left running, each warmed up in 1 s windows until
# steady (capped), then 3 rounds interleaved, the median.
#
#   scripts/lib/sources/doc004-ranking.sh <part_out_dir> <quick 0|1>
#
# Writes <part_out_dir>/section.md and raw/ (warm-up curves, every wrk output, results.tsv).
# Exit status: 0 measured; 1 a server did not start or wrk failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=part-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/part-lib.sh"
PART_TITLE='004: "HTTP Server Benchmark Results": a ranking of ten hand-rolled Java HTTP servers'
part_init "$@"
out="$PART_OUT"

cores="$(nproc)"
workers=$(( 4 * cores )) wrk_threads=$(( 3 * cores )) connections=1000 body=72
# The document's JVM: "OpenJDK 22 with ZGC", "256MB heap per server"
export PART_JVM_FLAGS="${SPINDLE_JVM_OPTS:---enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:+UseZGC -Xms256m -Xmx256m}"
# One row: "label|class|JVM properties"
all_rows=(
  "IoUringServer|IoUringServer|"
  "MultiLoopServer|MultiLoopServer|"
  "BossWorkerServer|BossWorkerServer|"
  "ReusePortServer|ReusePortServer|"
  "MultiLoopServer-busypoll|MultiLoopServer|-Dspindle.busyPoll=true"
  "SingleLoopServer|SingleLoopServer|"
  "VirtualThreadServer|VirtualThreadServer|"
)
if (( PART_QUICK )); then
  rows=("${all_rows[0]}" "${all_rows[6]}")
  rounds=1 duration=2 warm_min=6 warm_cap=6
else
  rows=("${all_rows[@]}")
  rounds=3 duration=6 warm_min=6 warm_cap=20
fi
# percent: steady = the median of the last three warm-up windows within this of the median of the
# three before (the matrix's plateau rule: single 1 s windows swing 20-30% on 2 shared cores)
spread_limit=5

part_build_rows "${rows[@]}"
tsv="$out/raw/results.tsv"
printf 'server\tround\treq_per_s\tavg_latency_ms\trequests\tnon2xx\tsocket_errors\n' >"$tsv"
printf 'server\twarmup_s\tsteady\treason\n' >"$out/raw/starts.tsv"

wrk_post() {   # port seconds file
  local rc=0
  part_log wrk -t"$wrk_threads" -c"$connections" -d"$2s" --latency -s "$PART_LIB/bench-post.lua" \
    "http://127.0.0.1:$1/ingest" -- "$body" >"$3" 2>&1 || rc=$?
  (( rc == 0 )) && grep -q '^Requests/sec:' "$3"
}

# One start per server, all started at once and left running, so the rounds can interleave them
# without a restart (and a fresh warm-up) for every measurement; an idle server costs no CPU.
declare -A pid_of=() port_of=()
for row in "${rows[@]}"; do
  IFS='|' read -r label cls props <<<"$row"
  mkdir -p "$out/raw/$label"
  read -r -a jvm_props <<<"$props"
  part_launch "$label" "$cls" "$workers" "${jvm_props[@]}"
  pid_of[$label]="$PART_PID"
done
for row in "${rows[@]}"; do
  label="${row%%|*}"
  part_await "$label" "${pid_of[$label]}" || exit 1
  port_of[$label]="$PART_PORT"
  part_expect "http://127.0.0.1:$PART_PORT/ingest" true --data-binary 'an event' || exit 1
done

# Warm-up of each server, one after the other: 1 s windows of the measured load until they
# plateau (or the cap); the curve in raw/<server>/warmup.tsv, the outcome in starts.tsv.
for row in "${rows[@]}"; do
  label="${row%%|*}" PART_PORT="${port_of[$label]}"
  echo "[004] warm-up: $label" >&2
  curve="$out/raw/$label/warmup.tsv"
  printf 't_s\twindow_s\treq_per_s\n' >"$curve"
  w=0 steady=0 reason=""
  while (( w < warm_cap )); do
    w=$(( w + 1 ))
    wrk_post "$PART_PORT" 1 "$out/raw/$label/warmup-$w.wrk" || true
    printf '%s\t1\t%s\n' "$w" "$(part_wrk_fields "$out/raw/$label/warmup-$w.wrk" | cut -f 1)" >>"$curve"
    (( w >= warm_min )) || continue
    reason="$(tail -n 6 "$curve" | awk -v lim="$spread_limit" '
      function med3(x, y, z) { return x > y ? (y > z ? y : (x > z ? z : x)) : (x > z ? x : (y > z ? z : y)) }
      { v[NR] = $3 + 0 } END {
        before = med3(v[1], v[2], v[3]); last = med3(v[4], v[5], v[6])
        change = before > 0 ? 100 * (last - before) / before : 100
        ok = last > 0 && change <= lim && change >= -lim
        printf "%s median of the last 3 windows %+.1f%% from the 3 before", (ok ? "steady:" : "not steady:"), change }')"
    if [[ "$reason" == steady:* ]]; then steady=1; break; fi
  done
  (( steady )) || reason="cap of ${warm_cap} s reached: ${reason#not steady: }"
  reason="${reason#steady: }"
  printf '%s\t%s\t%s\t%s\n' "$label" "$w" "$steady" "$reason" >>"$out/raw/starts.tsv"
done

for (( round = 1; round <= rounds; round++ )); do
  for row in "${rows[@]}"; do
    label="${row%%|*}" PART_PORT="${port_of[$label]}"
    echo "[004] round $round: $label" >&2
    file="$out/raw/$label/round$round.wrk"
    wrk_post "$PART_PORT" "$duration" "$file" || { echo "error: wrk against $label failed: $file" >&2; cat "$file" >&2; exit 1; }
    printf '%s\t%s\t%s\n' "$label" "$round" "$(part_wrk_fields "$file")" >>"$tsv"
  done
done
for row in "${rows[@]}"; do
  part_stop "${pid_of[${row%%|*}]}"
done

{
  echo "quick	$PART_QUICK"
  echo "cores	$cores"
  echo "workers	$workers"
  echo "wrk_threads	$wrk_threads"
  echo "connections	$connections"
  echo "duration	$duration"
  echo "rounds	$rounds"
  echo "body	$body"
  echo "warm_cap	$warm_cap"
  echo "spread_limit	$spread_limit"
  echo "jvm_flags	$PART_JVM_FLAGS"
  echo "wrk	$(wrk -v 2>&1 | head -n 1)"
} >"$out/raw/meta.tsv"
part_python doc004 "$out"
