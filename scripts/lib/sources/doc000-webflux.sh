#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Source document 000 (../shared/sources/000_7c82c9e5fa24be44.txt): Spring WebFlux on Reactor Netty
# with an io_uring event-loop group, three `ab -c 1000` benchmarks: a 1 s sleep on an @Async pool
# (/stress-benchmark-01), a 1 s sleep on Schedulers.boundedElastic() (/stress-benchmark-02), and
# Mono.fromCallable(() -> new Date().toString()) on boundedElastic() with no sleep
# (/stress-benchmark-03). The reference runs them as the document writes them (profile source-000
# of references/spring-webflux, the document's JVM flags but a 1 GB heap); Spindle's ThreadPoolServer
# (sized like the @Async pool), VirtualThreadServer and MultiLoopServer run the nearest contract
# routes beside it. A part of scripts/reproduce-sources.sh:
#   doc000-webflux.sh <part_out_dir> <quick 0|1>
# Writes section.md, results.tsv and raw/ (every ab output, server logs, the JVM's final flags).
# Exit status: 0 measured; 1 a server or ab failed (section.md says what was measured); 2 bad arguments.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source-path=SCRIPTDIR source=part-lib.sh
source "$HERE/part-lib.sh"
PART_TITLE='000: Spring WebFlux on Reactor Netty with an io_uring event-loop group'
part_init "$@"
OUT="$PART_OUT" quick="$PART_QUICK"
rm -f "$OUT/results.tsv"

# the document sets 65535 for client and server; the hard limit here may be lower, and 1,000 clients need ~2,000
ulimit -n 65535 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# The document's server JVM flags, with a 1 GB heap instead of -Xms8G -Xmx8G (see HEAP_NOTE), plus the two
# access flags every Spindle run gives Netty and FFM on Java 25.
DOC_FLAGS=(-XX:+UseZGC -Xms1G -Xmx1G -XX:MaxGCPauseMillis=200 -XX:+UseStringDeduplication -XX:+OptimizeStringConcat
  -XX:+UseCompressedOops -XX:+AlwaysPreTouch -XX:+UseNUMA -XX:+DisableExplicitGC
  --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
"$JAVA_HOME/bin/java" "${DOC_FLAGS[@]}" -XX:+PrintFlagsFinal -version 2>&1 |
  grep -E ' (UseZGC|MaxHeapSize|MaxGCPauseMillis|UseStringDeduplication|OptimizeStringConcat|UseCompressedOops|AlwaysPreTouch|UseNUMA|DisableExplicitGC) ' \
  >"$OUT/raw/jvm-flags-final.txt" || true

if (( quick )); then
  sleep_n=100 sleep_c=100 elastic_n=100 virtual_n=100 fast_n=2000 fast_c=100 warm_n=500
else
  sleep_n=3000 sleep_c=1000 elastic_n=1500 virtual_n=10000 fast_n=60000 fast_c=1000 warm_n=5000
fi
sleep_ab="-s 120 -n $sleep_n -c $sleep_c"

# Build first, in the foreground, so no readiness timeout covers a Maven build.
webflux_cp="$(spindle_classpath references/spring-webflux)"
# the io_uring native jar, which the module's build copies beside its classes (off its runtime class path)
iouring_jar="$(compgen -G "$SPINDLE_ROOT/references/spring-webflux/target/io_uring/netty-transport-native-io_uring-*-linux-x86_64.jar" |
  head -n 1 || true)"
[[ -n "$iouring_jar" ]] || spindle_die "no netty-transport-native-io_uring linux-x86_64 jar in references/spring-webflux/target/io_uring"
spindle_classpath launchers >/dev/null

status=0
spring() {
  part_run SpringWebFlux "$JAVA_HOME/bin/java" "${DOC_FLAGS[@]}" -Dspring.profiles.active=source-000 \
    -cp "$webflux_cp:$iouring_jar" dev.spindle.references.webflux.SpringWebFluxServer 0
  part_await SpringWebFlux "$PART_PID" || return 1
  local pid="$PART_PID" url="http://127.0.0.1:$PART_PORT"
  echo "SpringWebFlux (profile source-000, 48 io_uring event loops) on $url" >&2
  part_ab webflux-01 "$sleep_ab" "$url/stress-benchmark-01" || return 1
  part_ab webflux-02 "-s 120 -n $elastic_n -c $sleep_c" "$url/stress-benchmark-02" || return 1
  part_ab_warm webflux-03 "-n $warm_n -c 100" "$url/stress-benchmark-03"
  part_ab webflux-03 "-n $fast_n -c $fast_c -s 60" "$url/stress-benchmark-03" || return 1
  part_ab_warm webflux-plaintext "-n $warm_n -c 100" "$url/plaintext"
  part_ab webflux-plaintext "-n $fast_n -c $fast_c -s 60" "$url/plaintext" || return 1
  # evidence of what served: Reactor Netty names its io_uring event loops spindle-webflux-io_uring-*
  "$JAVA_HOME/bin/jcmd" "$pid" Thread.print >"$OUT/raw/webflux-threads.txt" 2>&1 || true
  part_stop "$pid"
}
spindle_server() {   # LABEL CLASS WORKERS PROPS then "run|ab args|route" triples
  local label="$1" cls="$2" workers="$3" props="$4" spec run args route
  shift 4
  part_run "$label" env SPINDLE_JVM_OPTS="${DOC_FLAGS[*]}" SPINDLE_JAVA_PROPS="$props" \
    "$SPINDLE_ROOT/scripts/run-server.sh" "$cls" 0 ${workers:+"$workers"}
  part_await "$label" "$PART_PID" || return 1
  local pid="$PART_PID" url="http://127.0.0.1:$PART_PORT"
  echo "$label on $url" >&2
  for spec in "$@"; do
    IFS='|' read -r run args route <<<"$spec"
    [[ "$route" != /plaintext ]] || part_ab_warm "$run" "-n $warm_n -c 100" "$url$route"
    part_ab "$run" "$args" "$url$route" || return 1
  done
  part_stop "$pid"
}

spring || status=1
(( status )) || spindle_server ThreadPoolServer ThreadPoolServer 100 -Dspindle.queueCapacity=1000 \
  "threadpool-blocking|$sleep_ab|/blocking/1000" "threadpool-plaintext|-n $fast_n -c $fast_c -s 60|/plaintext" || status=1
(( status )) || spindle_server VirtualThreadServer VirtualThreadServer "" "" \
  "virtual-blocking|-s 120 -n $virtual_n -c $sleep_c|/blocking/1000" || status=1
(( status )) || spindle_server MultiLoopServer MultiLoopServer "" "" \
  "multiloop-plaintext|-n $fast_n -c $fast_c -s 60|/plaintext" || status=1
part_stop_all

/usr/bin/python3 "$HERE/doc000_section.py" "$OUT" "$quick" "$status" "$(nproc)" "${DOC_FLAGS[*]}" >"$OUT/section.md"
exit "$status"
