#!/usr/bin/env bash
# Source document 003 (../shared/sources/003_74564e6d61ac1344.txt): Spring Boot MVC on Tomcat with
# 10 request threads against virtual threads, each request calling a remote service that waits
# 2 s; its three ab runs (-n 10 -c 10, -n 20 -c 10, -n 60 -c 20) as published, against the Spring
# MVC reference (server.tomcat.threads.max=10; then spring.threads.virtual.enabled=true too) and
# Spindle's ThreadPoolServer with 10 threads and VirtualThreadServer, all calling MultiLoopServer's
# /delay/2000 as the remote service. A part of scripts/reproduce-sources.sh:
#   doc003-spring-virtual-threads.sh <part_out_dir> <quick 0|1>
# Writes section.md, results.tsv and raw/. --quick: a 200 ms remote wait instead of 2 s.
# Exit status: 0 measured; 1 a server or ab failed (section.md says what was measured); 2 bad arguments.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=../common.sh
source "$HERE/../common.sh"
(( $# == 2 )) && [[ "$2" == [01] ]] || { echo "usage: $(basename "$0") <part_out_dir> <quick 0|1>" >&2; exit 2; }
OUT="$1" quick="$2"
mkdir -p "$OUT/raw"
rm -f "$OUT/results.tsv"
# shellcheck source=ab-runs.sh
source "$HERE/ab-runs.sh"

spindle_ensure_packages apache2-utils
spindle_find_jdk
spindle_java_opts
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if (( quick )); then wait_ms=200; else wait_ms=2000; fi
RUNS=("-n 10 -c 10" "-n 20 -c 10" "-n 60 -c 20")

for cls in SpringMvcServer ThreadPoolServer VirtualThreadServer MultiLoopServer; do
  found="$(spindle_find_server "$cls")"
  spindle_classpath "${found%% *}" >/dev/null
done

status=0
ab_runs_start downstream "$SPINDLE_ROOT/scripts/run-server.sh" MultiLoopServer 0 || status=1
downstream="http://127.0.0.1:${STARTED_PORT:-0}"
if (( ! status )); then
  ab -q -n 200 -c 20 "$downstream/delay/1" >/dev/null 2>&1 || true
  # what ab adds to one wave with no thread limit anywhere: the downstream's timer route itself
  ab_runs_measure downstream-one-wave "-s 120 -n 10 -c 10" "$downstream/delay/$wait_ms" || status=1
fi

# label|class|workers|JVM properties
SERVERS=(
  "SpringMvc-threads10|SpringMvcServer||-Dserver.tomcat.threads.max=10"
  "SpringMvc-virtual|SpringMvcServer||-Dserver.tomcat.threads.max=10 -Dspring.threads.virtual.enabled=true"
  "ThreadPoolServer-10|ThreadPoolServer|10|"
  "VirtualThreadServer|VirtualThreadServer||"
)
for spec in "${SERVERS[@]}"; do
  (( ! status )) || break
  IFS='|' read -r label cls workers props <<<"$spec"
  if ! ab_runs_start "$label" env SPINDLE_JAVA_PROPS="$props -Dspindle.remote=$downstream" \
    "$SPINDLE_ROOT/scripts/run-server.sh" "$cls" 0 ${workers:+"$workers"}; then
    status=1
    break
  fi
  pid="$STARTED_PID" url="http://127.0.0.1:$STARTED_PORT/remote-blocking/$wait_ms"
  echo "$label ($props) on $url" >&2
  # class loading, the JIT and the client pool's connections, on 1 ms calls
  ab_runs_warm "$label" "-n 200 -c 20" "http://127.0.0.1:$STARTED_PORT/remote-blocking/1"
  for args in "${RUNS[@]}"; do
    run="$label ${args// /}"
    ab_runs_measure "${run// /_}" "$args" "$url" || { status=1; break; }
  done
  ab_runs_stop "$pid"
done
ab_runs_cleanup

/usr/bin/python3 "$HERE/doc003_section.py" "$OUT" "$quick" "$status" "$wait_ms" "${SPINDLE_JVM_FLAGS[*]}" >"$OUT/section.md"
exit "$status"
