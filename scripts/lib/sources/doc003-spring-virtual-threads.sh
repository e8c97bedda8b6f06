#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Source document 003 (../shared/sources/003_74564e6d61ac1344.txt): Spring Boot MVC on Tomcat with
# 10 request threads against virtual threads, each request calling a remote service (/blocking/2:
# "it should take approximately 2 seconds"; the document shows neither route's code); its three ab
# runs (-n 10 -c 10, -n 20 -c 10, -n 60 -c 20) as published, against the Spring
# MVC reference (server.tomcat.threads.max=10; then spring.threads.virtual.enabled=true too) and
# Spindle's ThreadPoolServer with 10 threads and VirtualThreadServer, all calling MultiLoopServer's
# /delay/2000 as the remote service. A part of scripts/reproduce-sources.sh:
#   doc003-spring-virtual-threads.sh <part_out_dir> <quick 0|1>
# Writes section.md, results.tsv and raw/. --quick: a 200 ms remote wait instead of 2 s.
# Exit status: 0 measured; 1 a server or ab failed (section.md says what was measured); 2 bad arguments.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source-path=SCRIPTDIR source=part-lib.sh
source "$HERE/part-lib.sh"
PART_TITLE='003: Spring Boot MVC on Tomcat, 10 threads against virtual threads'
part_init "$@"
OUT="$PART_OUT" quick="$PART_QUICK"
rm -f "$OUT/results.tsv"

if (( quick )); then wait_ms=200; else wait_ms=2000; fi
RUNS=("-n 10 -c 10" "-n 20 -c 10" "-n 60 -c 20")

for cls in SpringMvcServer ThreadPoolServer VirtualThreadServer MultiLoopServer; do
  found="$(spindle_find_server "$cls")"
  spindle_classpath "${found%% *}" >/dev/null
done

status=0
part_run downstream "$SPINDLE_ROOT/scripts/run-server.sh" MultiLoopServer 0
part_await downstream "$PART_PID" || status=1
downstream="http://127.0.0.1:${PART_PORT:-0}"
if (( ! status )); then
  ab -q -n 200 -c 20 "$downstream/delay/1" >/dev/null 2>&1 || true
  # what ab adds to one wave with no thread limit anywhere: the downstream's timer route itself
  part_ab downstream-one-wave "-s 120 -n 10 -c 10" "$downstream/delay/$wait_ms" || status=1
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
  part_run "$label" env SPINDLE_JAVA_PROPS="$props -Dspindle.remote=$downstream" \
    "$SPINDLE_ROOT/scripts/run-server.sh" "$cls" 0 ${workers:+"$workers"}
  if ! part_await "$label" "$PART_PID"; then
    status=1
    break
  fi
  pid="$PART_PID" url="http://127.0.0.1:$PART_PORT/remote-blocking/$wait_ms"
  echo "$label ($props) on $url" >&2
  # class loading, the JIT and the client pool's connections, on 1 ms calls
  part_ab_warm "$label" "-n 200 -c 20" "http://127.0.0.1:$PART_PORT/remote-blocking/1"
  for args in "${RUNS[@]}"; do
    run="$label ${args// /}"
    part_ab "${run// /_}" "$args" "$url" || { status=1; break; }
  done
  part_stop "$pid"
done
part_stop_all

/usr/bin/python3 "$HERE/doc003_section.py" "$OUT" "$quick" "$status" "$wait_ms" "${SPINDLE_JVM_FLAGS[*]}" >"$OUT/section.md"
exit "$status"
