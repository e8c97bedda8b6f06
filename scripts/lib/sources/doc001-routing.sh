#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Part 001 of scripts/reproduce-sources.sh: the hand-rolled routing server's stress test
# (../shared/sources/001_f8fd638530d0b93b.txt), its pattern as it ran it: 100 warm-up requests,
# then steps of a growing number of requests per client thread (10, 20, ... 100), as many client
# threads as half the cores, a new connection for every request; a static route and a
# path-variable route; one thread, then a thread pool. Here: ab without -k (HTTP/1.0, one
# connection per request) at -c = cores/2 and -n = step x threads, GET /plaintext and
# GET /users/{id}, SingleThreadServer and ThreadPoolServer (and VirtualThreadServer and
# MultiLoopServer beside them). Then the document's four cells (one thread / a pool x static /
# path-variable route), and the other servers' two, measured: at the document's concurrency (8
# client threads: half of the 16 cores of its Core Ultra 7 155H), a warm-up of WARM s, then RUNS
# timed runs of SECS s each (ab -t), so every cell has a median and a min-max.
#
#   scripts/lib/sources/doc001-routing.sh <part_out_dir> <quick 0|1>
#
# Writes <part_out_dir>/section.md and raw/ (every ab output, server logs, results.tsv).
# Exit status: 0 measured; 1 a server did not start or ab failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=part-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/part-lib.sh"
PART_TITLE='001: "execute simple stress test on the single-thread while loop server": a hand-rolled routing server, one thread and then a thread pool'
part_init "$@"
out="$PART_OUT"

cores="$(nproc)"
threads=$(( cores / 2 > 0 ? cores / 2 : 1 ))
# The document's machine (Core Ultra 7 155H) has 16 cores: half of them is 8 client threads.
doc_threads=8
if (( PART_QUICK )); then
  servers=(SingleThreadServer ThreadPoolServer)
  steps=(10 20 30) timed_runs=3 timed_secs=1 timed_warm=1
else
  servers=(SingleThreadServer ThreadPoolServer VirtualThreadServer MultiLoopServer)
  steps=(10 20 30 40 50 60 70 80 90 100) timed_runs=3 timed_secs=10 timed_warm=5
fi
declare -A route_path=([static]=/plaintext [dynamic]=/users/42)

part_build "${servers[@]}"
tsv="$out/raw/results.tsv"
printf 'server\troute\tkind\tper_thread\tconcurrency\trun\trequests\tseconds\treq_per_s\tmean_ms\tfailed\tnon2xx\n' >"$tsv"

# ab_run SERVER ROUTE KIND PER_THREAD CONCURRENCY RUN AB_ARGS...: one ab run into raw/, a line of
# results.tsv (requests: ab's "Complete requests").
ab_run() {
  local server="$1" route="$2" kind="$3" k="$4" c="$5" run="$6" file rc=0
  shift 6
  file="$out/raw/$server/$route-$kind-c$c-${run}.ab"
  part_log ab -s 30 "$@" -c "$c" "http://127.0.0.1:$PART_PORT${route_path[$route]}" >"$file" 2>&1 || rc=$?
  local fields
  fields="$(awk '/^Complete requests:/ {n=$3} /^Time taken for tests:/ {s=$5} /^Requests per second:/ {r=$4}
    /^Time per request:.*\(mean\)$/ {m=$4} /^Failed requests:/ {f=$3} /^Non-2xx responses:/ {x=$3}
    END {printf "%s\t%s\t%s\t%s\t%d\t%d", n, s, r, m, f, x}' "$file")"
  if (( rc != 0 )) || [[ "$fields" == $'\t'* ]]; then
    echo "error: ab against $server $route failed (exit $rc): $file" >&2
    cat "$file" >&2
    return 1
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$route" "$kind" "$k" "$c" "$run" "$fields" >>"$tsv"
}

for server in "${servers[@]}"; do
  mkdir -p "$out/raw/$server"
  echo "[001] $server" >&2
  part_start "$server" "$server" "" || exit 1
  part_expect "http://127.0.0.1:$PART_PORT/plaintext" "Hello, World!" || exit 1
  part_expect "http://127.0.0.1:$PART_PORT/users/42" '{"id":"42"}' || exit 1
  # "send 100 pre-request to warm up"
  part_log ab -n 100 -c "$threads" "http://127.0.0.1:$PART_PORT/plaintext" >"$out/raw/$server/warmup.ab" 2>&1 || true
  for route in static dynamic; do
    for k in "${steps[@]}"; do
      ab_run "$server" "$route" step "$k" "$threads" "n$(( k * threads ))" -n $(( k * threads )) || exit 1
    done
  done
  # Timed: at the document's concurrency, a warm-up, then timed_runs runs of timed_secs each. ab -t
  # stops at the time limit (the -n after it only lifts -t's default cap of 50,000 requests); -r
  # counts a failed receive as a failed request instead of ending the run.
  for route in static dynamic; do
    part_log ab -r -t "$timed_warm" -n 10000000 -c "$doc_threads" "http://127.0.0.1:$PART_PORT${route_path[$route]}" \
      >"$out/raw/$server/$route-warmup-c$doc_threads.ab" 2>&1 || true
    for (( run = 1; run <= timed_runs; run++ )); do
      ab_run "$server" "$route" timed "" "$doc_threads" "run$run" -r -t "$timed_secs" -n 10000000 || exit 1
    done
  done
  part_stop
done

{
  echo "cores	$cores"
  echo "threads	$threads"
  echo "doc_threads	$doc_threads"
  echo "quick	$PART_QUICK"
  echo "timed_runs	$timed_runs"
  echo "timed_secs	$timed_secs"
  echo "timed_warm	$timed_warm"
  echo "servers	${servers[*]}"
  echo "ab	$(ab -V 2>&1 | head -n 1)"
} >"$out/raw/meta.tsv"
part_python doc001 "$out"
