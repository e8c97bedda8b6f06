#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A zero-downtime restart on one host, measured: two processes of the same server share a port with
# SO_REUSEPORT (-Dspindle.reusePort=true); under load, a new process starts beside the old one, then
# the old one gets SIGTERM and drains. wrk counts what the clients lost.
#
#   scripts/restart-under-load.sh [--servers A,B] [--restarts N] [--duration S] [--connections C] [--quick] [output_dir]
#
#   --servers A,B    default VirtualThreadServer,MultiLoopServer,IoUringServer (Spindle's servers; the
#                    Netty reference, NettyServer, has no drain of its own and runs only when named)
#   --restarts N     restarts per server and tcp_migrate_req setting; default 10 (20 per server)
#   --duration S     seconds of load per restart; default 8 (the restart begins after 2 s)
#   --connections C  wrk's keep-alive connections; default 64
#   --quick          MultiLoopServer, 1 restart per setting, 4 s (CI)
#   output_dir       default results/restart/<UTC timestamp>/ (--quick: a temp directory)
#
# Each server is restarted N times in a row with each setting, in a network namespace of its own
# (loopback inside it) so that one setting can differ without touching the host: with the kernel
# default net.ipv4.tcp_migrate_req = 0, where connections still in the old process's accept queue
# when it closes its listening socket are reset, and with 1, where the kernel moves them to the new
# one. A restart's new process is the next restart's old one; each restart has its own wrk run.
# A rare loss (a connection caught between accept and drain) shows only over many restarts.
# Failed requests = wrk's socket errors (connect, read, write, timeout) + non-2xx responses, per
# restart and in total.
#
# Writes restarts.tsv (a row per restart), summary.md and raw/ (wrk output, every process's log).
# Needs root (the namespace). Exit status: 0 measured; 1 a server did not start or stop; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/netns.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/netns.sh"

usage() {
  echo "usage: $(basename "$0") [--servers A,B] [--restarts N] [--duration S] [--connections C] [--quick] [output_dir]" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }

command_line="scripts/restart-under-load.sh $*"
servers="VirtualThreadServer,MultiLoopServer,IoUringServer"
duration=8 connections=64 restarts=10 quick=0 out=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --servers) need_value "$@"; servers="$2"; shift ;;
    --restarts) need_value "$@"; restarts="$2"; shift ;;
    --duration) need_value "$@"; duration="$2"; shift ;;
    --connections) need_value "$@"; connections="$2"; shift ;;
    --quick) quick=1 ;;
    -*) echo "error: unknown option $1" >&2; usage ;;
    *) [[ -z "$out" ]] || usage; out="$1" ;;
  esac
  shift
done
if (( quick )); then
  [[ "$servers" == *,* ]] && servers="MultiLoopServer"
  duration=4 restarts=1
fi
[[ "$duration" =~ ^[1-9][0-9]*$ ]] && (( duration >= 4 )) || { echo "error: --duration must be 4 or more seconds" >&2; usage; }
[[ "$connections" =~ ^[1-9][0-9]*$ ]] || { echo "error: --connections must be a positive number" >&2; usage; }
[[ "$restarts" =~ ^[1-9][0-9]*$ ]] || { echo "error: --restarts must be a positive number" >&2; usage; }
IFS=, read -r -a server_names <<<"$servers"
(( EUID == 0 )) || spindle_die "a network namespace needs root (CAP_NET_ADMIN)"

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="$(spindle_run_dir "$out" "$quick" restart "$stamp")"

spindle_ensure_packages wrk iproute2
spindle_find_jdk
spindle_java_opts
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

ns="spindle-restart-$$" old_pid="" new_pid="" wrk_pid=""
cleanup() {
  [[ -z "$wrk_pid" ]] || kill -TERM "$wrk_pid" 2>/dev/null || true
  spindle_stop_pid "$old_pid" 5
  spindle_stop_pid "$new_pid" 5
  ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

spindle_netns_sweep   # what a SIGKILLed run left
ip netns add "$ns" 2>/dev/null || spindle_die "cannot create a network namespace (needs root or CAP_NET_ADMIN)"
ip -n "$ns" link set lo up
ip netns exec "$ns" sysctl -q -w net.core.somaxconn=4096 net.ipv4.tcp_tw_reuse=1

start() {   # name classpath fqcn port tag -> pid in started_pid, bound port in started_port
  local log="$out/raw/$1-$5"
  ip netns exec "$ns" "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" -Dspindle.reusePort=true -cp "$2" "$3" "$4" 2 \
    >"$log.out" 2>"$log.err" &
  started_pid=$!
  started_port="$(spindle_await_ready "$started_pid" "$log.out" "$log.err" 60)"
}

echo -e "server\ttcp_migrate_req\trestart\trequests\treq_s\tconnect_errors\tread_errors\twrite_errors\ttimeouts\tnon2xx\tfailed\tnew_ready_s\told_exit_s\told_stopped" \
  >"$out/restarts.tsv"
failures=0 total_restarts=0 total_requests=0 total_failed=0
for name in "${server_names[@]}"; do
  found="$(spindle_find_server "$name")"
  module="${found%% *}" fqcn="${found#* }"
  cp="$(spindle_classpath "$module")"
  for migrate in 0 1; do
    ip netns exec "$ns" sysctl -q -w net.ipv4.tcp_migrate_req="$migrate"
    tag="migrate$migrate"
    if ! start "$name" "$cp" "$fqcn" 0 "$tag-process0"; then
      echo "FAILED $name: the first process did not start" >&2
      failures=$(( failures + 1 ))
      continue
    fi
    old_pid="$started_pid" port="$started_port"
    done_restarts=0 setting_requests=0 setting_failed=0
    for (( i = 1; i <= restarts; i++ )); do
      raw="$out/raw/$name-$tag-restart$i-wrk.txt"
      ip netns exec "$ns" wrk -t1 -c"$connections" -d"${duration}s" --timeout 5s "http://127.0.0.1:$port/plaintext" >"$raw" 2>&1 &
      wrk_pid=$!
      sleep 2
      t0="$(date +%s.%N)"
      if ! start "$name" "$cp" "$fqcn" "$port" "$tag-process$i"; then
        echo "FAILED $name: process $i did not start on port $port beside process $(( i - 1 ))" >&2
        failures=$(( failures + 1 ))
        spindle_stop_pid "$started_pid" 5
        wait "$wrk_pid" || true
        wrk_pid=""
        break
      fi
      new_pid="$started_pid"
      t1="$(date +%s.%N)"
      spindle_stop_pid "$old_pid" 15
      old_pid=""
      old_stopped="$SPINDLE_STOPPED"
      t2="$(date +%s.%N)"
      wait "$wrk_pid" || true
      wrk_pid=""
      # the new process serves on, and is the next restart's old one
      old_pid="$new_pid" new_pid=""
      read -r c r w t < <(sed -n 's/.*Socket errors: connect \([0-9]*\), read \([0-9]*\), write \([0-9]*\), timeout \([0-9]*\).*/\1 \2 \3 \4/p' "$raw"; echo "0 0 0 0")
      non2xx="$(sed -n 's/.*Non-2xx or 3xx responses: \([0-9]*\).*/\1/p' "$raw")"
      requests="$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$raw")"
      rps="$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$raw")"
      failed=$(( c + r + w + t + ${non2xx:-0} ))
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$migrate" "$i" "${requests:-0}" "${rps:-0}" "$c" "$r" "$w" "$t" \
        "${non2xx:-0}" "$failed" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
        "$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", b - a }')" "$old_stopped" >>"$out/restarts.tsv"
      printf '  %-22s tcp_migrate_req=%s  restart %2d/%d  %8s requests  failed %s (connect %s, read %s, write %s, timeout %s, non-2xx %s)\n' \
        "$name" "$migrate" "$i" "$restarts" "${requests:-0}" "$failed" "$c" "$r" "$w" "$t" "${non2xx:-0}" >&2
      done_restarts=$(( done_restarts + 1 ))
      setting_requests=$(( setting_requests + ${requests:-0} )) setting_failed=$(( setting_failed + failed ))
    done
    spindle_stop_pid "$old_pid" 15
    old_pid=""
    printf '  %-22s tcp_migrate_req=%s  %d restarts  %9s requests  failed %s in total\n' \
      "$name" "$migrate" "$done_restarts" "$setting_requests" "$setting_failed" >&2
    total_restarts=$(( total_restarts + done_restarts ))
    total_requests=$(( total_requests + setting_requests )) total_failed=$(( total_failed + setting_failed ))
  done
done
echo "restarts: $total_restarts, requests: $total_requests, failed: $total_failed in total" >&2

{
  echo "# Restart under load: run $stamp"
  echo
  echo "Two processes of one server share a port with SO_REUSEPORT (\`-Dspindle.reusePort=true\`). Under"
  echo "\`wrk -t1 -c$connections -d${duration}s\` on GET /plaintext, a new process starts on the old one's port"
  echo "2 s in; once it is ready the old one gets SIGTERM and drains (stops accepting, answers what is in"
  echo "flight and what had connected, closes its connections). $restarts restarts in a row per server and"
  echo "\`net.ipv4.tcp_migrate_req\` setting, each restart's new process the next one's old, a wrk run each."
  echo "Failed = wrk's socket errors + non-2xx. Everything ran in one network namespace over its loopback,"
  echo "so \`net.ipv4.tcp_migrate_req\` could be set for it alone."
  echo
  echo "**$total_failed failed requests in $total_restarts restarts** ($total_requests requests)."
  echo
  echo "| server | tcp_migrate_req | restarts | requests | failed | restarts with a failure | most in one restart |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 { k = $1 "\t" $2; if (!(k in n)) order[++keys] = k; n[k]++; req[k] += $4; f[k] += $11; if ($11 > 0) bad[k]++; if ($11 > most[k]) most[k] = $11 }
    END { for (i = 1; i <= keys; i++) { k = order[i]; split(k, p, "\t"); printf "| %s | %s | %d | %d | **%d** | %d | %d |\n", p[1], p[2], n[k], req[k], f[k], bad[k], most[k] } }' \
    "$out/restarts.tsv"
  echo
  echo "Each restart:"
  echo
  echo "| server | tcp_migrate_req | restart | requests | failed | connect | read | write | timeout | non-2xx | new process ready (s) | old process drained (s) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$out/restarts.tsv" | while IFS=$'\t' read -r s m i req rps c r w t n f ready drained stopped; do
    echo "| $s | $m | $i | $req | **$f** | $c | $r | $w | $t | $n | $ready | $drained |"
  done
  echo
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) CPUs, $(uname -sr); JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1);"
  echo "JVM flags: \`${SPINDLE_JVM_FLAGS[*]}\`; commit \`$(spindle_git_desc)\`; command: \`$command_line\`."
} >"$out/summary.md"
spindle_pack_raw "$out"
echo "restart run: $out/summary.md" >&2
(( failures == 0 )) || exit 1
