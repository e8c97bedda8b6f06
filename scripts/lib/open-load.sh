#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One open-model (constant-rate) GET load with Hyperfoil (tools/open-model), latency counted from when
# Hyperfoil started each request on its schedule, including any wait for a free connection:
#   scripts/lib/open-load.sh --url URL --rate REQ_PER_S --duration SECONDS [--connections N]
#                            [--warmup SECONDS] [--threads N] [--max-sessions N] [--timeout SECONDS] --out DIR
#   scripts/lib/open-load.sh --prepare    (only builds the tool: before a run whose load has no network)
# Writes into DIR: summary.tsv (header + one row), percentiles.tsv (percentile, latency_ms, count; HdrHistogram
# ticks up to the max at 100), benchmark.hf.yaml (the Hyperfoil benchmark that ran) and hyperfoil.log.
# Exit: 0 measured; 1 could not run; 2 bad arguments; 3 measured, but the generator fell behind its schedule
# (the tables are written and flag it: unsent, session_limit_exceeded), so the latency is understated.
# Builds tools/open-model (a standalone Maven project, not in the Spindle reactor) when missing or changed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
  sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

url="" rate="" duration="" out="" prepare=0
# 128 connections: at the rates used (up to a few 10k req/s, sub-ms to 100 ms latency) Little's law needs
# rate x latency connections busy at once; more than that keeps the generator from being the limit, as wrk2's
# and Hyperfoil's guides ask (a connection is never shared by two requests at a time: no pipelining).
connections=128 warmup=2 threads=2 max_sessions="" timeout=10
while (( $# > 0 )); do
  if [[ "$1" == --prepare ]]; then prepare=1; shift; continue; fi
  (( $# >= 2 )) || usage
  case "$1" in
    --url) url="$2" ;;
    --rate) rate="$2" ;;
    --duration) duration="$2" ;;
    --connections) connections="$2" ;;
    --warmup) warmup="$2" ;;
    --threads) threads="$2" ;;
    --max-sessions) max_sessions="$2" ;;
    --timeout) timeout="$2" ;;
    --out) out="$2" ;;
    *) echo "error: unknown option $1" >&2; usage ;;
  esac
  shift 2
done
tool="$SPINDLE_ROOT/tools/open-model"
cpfile="$tool/target/classpath.txt"
if [[ ! -f "$cpfile" || ! -d "$tool/target/classes" ||
      -n "$(find "$tool/pom.xml" "$tool/src" -newer "$cpfile" -print -quit)" ]]; then
  echo "building tools/open-model (Hyperfoil) ..." >&2
  _spindle_mvn_quiet -f "$tool/pom.xml" package dependency:build-classpath \
    -Dmdep.outputFile="$cpfile" -DincludeScope=runtime >&2 ||
    spindle_die "build of tools/open-model failed (rerun with SPINDLE_VERBOSE=1 for full Maven output)"
  touch "$cpfile"
fi
(( ! prepare )) || exit 0
[[ -n "$url" && -n "$rate" && -n "$duration" && -n "$out" ]] || usage
[[ "$url" =~ ^http://[^/]+(/.*)?$ ]] || spindle_die "--url must be http://host:port/path, got '$url'"
if ! [[ "$rate" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk "BEGIN{exit !($rate > 0)}"; then
  spindle_die "--rate must be a positive number, got '$rate'"
fi
for name in duration connections threads timeout; do
  [[ "${!name}" =~ ^[1-9][0-9]*$ ]] || spindle_die "--$name must be a positive integer, got '${!name}'"
done
[[ "$warmup" =~ ^[0-9]+$ ]] || spindle_die "--warmup must be a whole number of seconds, got '$warmup'"
# Sessions are Hyperfoil's preallocated request slots: a quarter second of the offered rate (at least 1000) can be
# queued behind a stalled server. Past that the generator starts requests late (session_limit_exceeded, exit 3).
# Each slot costs ~10 KB of heap preallocated: 2 s of 50k req/s (Hyperfoil's usual advice) left the 1 GB heap in
# back-to-back GC pauses of a second and more.
if [[ -z "$max_sessions" ]]; then
  max_sessions="$(awk "BEGIN{n = int($rate / 4 + 0.5); print (n < 1000 ? 1000 : n)}")"
fi
[[ "$max_sessions" =~ ^[1-9][0-9]*$ ]] || spindle_die "--max-sessions must be a positive integer, got '$max_sessions'"

spindle_find_jdk
cp="$tool/target/classes:$(tr -d '\r\n' <"$cpfile")"

mkdir -p "$out"
rm -f "$out/summary.tsv" "$out/percentiles.tsv"
rc=0
"$JAVA_HOME/bin/java" -Xms2g -Xmx2g --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -cp "$cp" dev.spindle.openmodel.OpenLoad --url "$url" --rate "$rate" --duration "$duration" --warmup "$warmup" \
  --connections "$connections" --threads "$threads" --max-sessions "$max_sessions" --timeout "$timeout" \
  --out "$out" >"$out/hyperfoil.log" 2>&1 || rc=$?
if (( rc != 0 && rc != 3 )) || [[ ! -s "$out/summary.tsv" ]]; then
  echo "error: the open-model load at $rate req/s on $url did not run (exit $rc); the end of $out/hyperfoil.log:" >&2
  tail -n 15 "$out/hyperfoil.log" >&2
  exit 1
fi
if (( rc == 3 )); then
  grep '^error:' "$out/hyperfoil.log" >&2 || true
fi
exit "$rc"
