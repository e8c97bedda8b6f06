#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Spindle servers behind real load balancers: N instances of a server, each in a network namespace
# of its own (a stand-in for a host), nginx and HAProxy in another, the load generator in a client
# namespace, all joined by a bridge; measured direct, behind each balancer with one instance, and
# behind each balancer with N instances; then one of two instances stopped under load behind each
# balancer, without and with a drain delay.
#
#   scripts/cluster.sh [--servers A,B] [--instances N] [--duration S] [--connections C]
#                      [--drain-delay MS] [--quick] [--no-conformance] [--no-stop] [output_dir]
#
#   --servers A,B     default VirtualThreadServer,MultiLoopServer,IoUringServer (Spindle's servers: the
#                     Netty reference, NettyServer, runs when named)
#   --instances N     instances behind the balancers in the N-instance rows; default 2
#   --duration S      seconds of wrk per measurement, after a 2 s warm-up; default 5
#   --connections C   wrk's connections (client to balancer, or to the one instance); default 64
#   --drain-delay MS  the drain delay of the stop rows that have one (-Dspindle.drainDelayMs); default 2000
#   --quick           smoke run: MultiLoopServer, 2 instances, 2 s, no conformance, stop rows behind
#                     HAProxy only (CI)
#   --no-conformance  skip the conformance check through each balancer
#   --no-stop         skip the stop rows
#   output_dir        default results/cluster/<UTC timestamp>/ (--quick: a temp directory)
#
# Topology (addresses exist only inside the namespaces; the host's network is untouched):
#
#   [client 10.214.0.2] --+
#                         +-- bridge (namespace "sw") --+-- [lb 10.214.0.3: nginx :80/:8081/:84, HAProxy :81/:8082/:83]
#   [app1 10.214.0.11] ---+                             +-- [app2 10.214.0.12] ... [appN]
#
# nginx (one worker) and HAProxy (one thread) keep their upstream connections alive (nginx
# `keepalive`, HAProxy `http-reuse always`); :80 and :81 balance over every instance round-robin,
# :8081 and :8082 send everything to app1, :84 and :83 balance over app1 and app2 for the stop
# rows. Their idle timeouts on upstream connections (nginx keepalive_timeout 50s, HAProxy timeout
# http-keep-alive 50s) are below the servers' (Spindle's default 60 s), so a balancer never sends
# on a connection the server is closing: the rule a deployment must keep.
#
# Per server and topology: wrk in the client namespace, the CPU time (utime+stime) of every
# instance and of the balancer over the measurement, and the TCP connections the instances
# accepted (PassiveOpens of their namespaces): requests per upstream connection shows the reuse.
# Then, unless --no-conformance, the shared conformance cases through each balancer
# (scripts/conformance-check.sh from the client namespace): what the balancer changes in
# Spindle's answers.
#
# Then, unless --no-stop, the stop rows (Spindle's servers only: the Netty reference has no
# readiness route and no drain delay): two fresh instances behind a fresh balancer, wrk through it
# on GET /plaintext for 2 s + the drain delay + 4 s (the same window for both rows), app2 SIGTERMed
# 2 s in; failed = wrk's socket errors (connect, read, write, timeout) + non-2xx answers: what the
# clients saw of the stop. Once with no drain delay (the listener closes at SIGTERM) and once with
# --drain-delay (readiness down at SIGTERM, serving on for the delay, then the drain). HAProxy
# (:83) health-checks the instances, `option httpchk GET /health/ready`, `inter 500ms fall 1 rise 2`,
# with its default retries (3, on the same server: no `option redispatch`); nginx (:84) has only
# its passive checks (max_fails 1, and proxy_next_upstream's default: a request that could not be
# sent, or failed before any answer, is tried on the next instance).
#
# Writes measurements.tsv (a stop row's topology is stop-<balancer>-<delay>ms; its last columns are
# the drain delay, the failed requests and the seconds from SIGTERM to exit), summary.md,
# environment.md (versions, the topology) and the balancers' configs (nginx.conf, haproxy.cfg),
# with raw/ (wrk output, server and balancer logs, HAProxy's stats after each stop row). Needs root
# (network namespaces). Everything started is stopped by PID and the namespaces are deleted at exit
# and on Ctrl-C. Exit status: 0 all measured; 1 something failed to start or answer; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/netns.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/netns.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

usage() {
  echo "usage: $(basename "$0") [--servers A,B] [--instances N] [--duration S] [--connections C] [--drain-delay MS] [--quick] [--no-conformance] [--no-stop] [output_dir]" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }

command_line="scripts/cluster.sh $*"
servers="VirtualThreadServer,MultiLoopServer,IoUringServer"
instances=2 duration=5 connections=64 quick=0 conformance=1 stop=1 drain_delay=2000 out=""
while (( $# > 0 )); do
  case "$1" in
    -h | --help) help ;;
    --servers) need_value "$@"; servers="$2"; shift ;;
    --instances) need_value "$@"; instances="$2"; shift ;;
    --duration) need_value "$@"; duration="$2"; shift ;;
    --connections) need_value "$@"; connections="$2"; shift ;;
    --quick) quick=1 ;;
    --no-conformance) conformance=0 ;;
    --no-stop) stop=0 ;;
    --drain-delay) need_value "$@"; drain_delay="$2"; shift ;;
    -*) echo "error: unknown option $1" >&2; usage ;;
    *) [[ -z "$out" ]] || usage; out="$1" ;;
  esac
  shift
done
if (( quick )); then
  [[ "$servers" == *,* ]] && servers="MultiLoopServer"
  duration=2 conformance=0
fi
[[ "$instances" =~ ^[1-9]$ ]] || { echo "error: --instances must be 1 to 9" >&2; usage; }
[[ "$duration" =~ ^[1-9][0-9]*$ ]] || { echo "error: --duration must be whole seconds" >&2; usage; }
[[ "$connections" =~ ^[1-9][0-9]*$ ]] || { echo "error: --connections must be a positive number" >&2; usage; }
[[ "$drain_delay" =~ ^[1-9][0-9]*$ ]] || { echo "error: --drain-delay must be a positive number of milliseconds" >&2; usage; }
stop_balancers_run=(haproxy nginx)
(( quick )) && stop_balancers_run=(haproxy)
IFS=, read -r -a server_names <<<"$servers"
(( EUID == 0 )) || spindle_die "network namespaces need root (CAP_NET_ADMIN)"

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
out="$(spindle_run_dir "$out" "$quick" cluster "$stamp")"

spindle_ensure_packages wrk curl iproute2
spindle_ensure_daemon_packages nginx-light haproxy
spindle_find_jdk
spindle_java_opts
spindle_python
CLK_TCK="$(getconf CLK_TCK)"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

NET=10.214.0 CLIENT_ADDR=10.214.0.2 LB_ADDR=10.214.0.3 APP_PORT=8080
tag="cl$$"   # in namespace and link names; the PID lets a later run sweep what a killed one left
ns_sw="spindle-cl-sw-$$" ns_cli="spindle-cl-cli-$$" ns_lb="spindle-cl-lb-$$"
ns_app=() app_addr=()
# the stop rows stop one of two instances: namespaces for two even with --instances 1
hosts=$instances
(( stop && hosts < 2 )) && hosts=2
for (( i = 1; i <= hosts; i++ )); do
  ns_app+=("spindle-cl-app$i-$$")
  app_addr+=("$NET.$(( 10 + i ))")
done
app_pids=() lb_pids=() made_ns=() child_pid=""

cleanup() {
  [[ -z "$child_pid" ]] || kill -TERM "$child_pid" 2>/dev/null || true
  stop_balancers
  stop_apps
  local ns
  for ns in "${made_ns[@]}"; do
    ip netns del "$ns" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

spindle_netns_sweep   # what a SIGKILLed run left

# One host: a namespace with loopback up and a veth whose other end is on the bridge.
add_host() {   # namespace address index
  local ns="$1" addr="$2" host_end="${tag}h$3" bridge_end="${tag}b$3"
  ip netns add "$ns"
  made_ns+=("$ns")
  ip -n "$ns" link set lo up
  ip link add "$host_end" type veth peer name "$bridge_end"
  ip link set "$host_end" netns "$ns"
  ip link set "$bridge_end" netns "$ns_sw"
  ip -n "$ns_sw" link set "$bridge_end" master br0 up
  ip -n "$ns" addr add "$addr/24" dev "$host_end"
  ip -n "$ns" link set "$host_end" up
  # the kernel defaults of a new namespace are small for 1,000s of connections
  ip netns exec "$ns" sysctl -q -w net.core.somaxconn=4096 net.ipv4.tcp_tw_reuse=1 net.ipv4.ip_local_port_range="10000 60999"
}

ip netns add "$ns_sw" 2>/dev/null || spindle_die "cannot create a network namespace (needs root or CAP_NET_ADMIN)"
made_ns+=("$ns_sw")
ip -n "$ns_sw" link add br0 type bridge
ip -n "$ns_sw" link set br0 up
add_host "$ns_cli" "$CLIENT_ADDR" 0
add_host "$ns_lb" "$LB_ADDR" 1
for (( i = 0; i < hosts; i++ )); do
  add_host "${ns_app[$i]}" "${app_addr[$i]}" $(( i + 2 ))
done

cpu_ticks() {   # utime+stime of a process, in clock ticks
  local stat f
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || { echo 0; return 0; }
  read -r -a f <<<"${stat##*) }"
  echo $(( f[11] + f[12] ))
}
sum_ticks() { local t=0 p; for p in "$@"; do t=$(( t + $(cpu_ticks "$p") )); done; echo "$t"; }
passive_opens() {   # TCP connections accepted in the app namespaces (Tcp PassiveOpens of /proc/net/snmp)
  local n=0 ns v
  for ns in "${ns_app[@]:0:$instances}"; do
    v="$(ip netns exec "$ns" awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "PassiveOpens") c = i; h = 1; next } print $c; exit }' /proc/net/snmp)"
    n=$(( n + v ))
  done
  echo "$n"
}
established() {   # TCP connections open to the instances' port now
  local n=0 ns
  for ns in "${ns_app[@]:0:$instances}"; do
    n=$(( n + $(ip netns exec "$ns" ss -Htn state established "( sport = :$APP_PORT )" | wc -l) ))
  done
  echo "$n"
}

start_apps() {   # server-name count [log-name-suffix [java-option ...]]
  local name="$1" count="$2" suffix="${3:-}" found module fqcn cp i pid port log
  shift 2
  (( $# == 0 )) || shift
  found="$(spindle_find_server "$name")"
  module="${found%% *}" fqcn="${found#* }"
  cp="$(spindle_classpath "$module")"
  app_pids=()
  for (( i = 0; i < count; i++ )); do
    log="$out/raw/$name$suffix-app$(( i + 1 ))"
    ip netns exec "${ns_app[$i]}" "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "$@" -Dspindle.host="${app_addr[$i]}" \
      -cp "$cp" "$fqcn" "$APP_PORT" 2 >"$log.out" 2>"$log.err" &
    pid=$!
    app_pids+=("$pid")
    port="$(spindle_await_ready "$pid" "$log.out" "$log.err" 60)" || return 1
    [[ "$port" == "$APP_PORT" ]] || { echo "error: $name bound port $port, not $APP_PORT" >&2; return 1; }
  done
}

stop_apps() {
  local pid
  for pid in "${app_pids[@]}"; do
    spindle_stop_pid "$pid" 10
  done
  app_pids=()
}

write_configs() {   # count
  local count="$1" i all="" one
  for (( i = 0; i < count; i++ )); do
    all+="    server ${app_addr[$i]}:$APP_PORT;"$'\n'
  done
  one="    server ${app_addr[0]}:$APP_PORT;"
  local checked="" checked_server=""
  if (( stop )); then
    # the stop rows' pair, with nginx's passive checks spelled out (their defaults)
    checked="  upstream checked {
    server ${app_addr[0]}:$APP_PORT max_fails=1 fail_timeout=10s;
    server ${app_addr[1]}:$APP_PORT max_fails=1 fail_timeout=10s;
    keepalive 256;
    keepalive_timeout 50s;
    keepalive_requests 1000000;
  }"
    checked_server="  server {
    listen $LB_ADDR:84 backlog=4096;
    location / {
      proxy_pass http://checked;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_set_header Host \$host;
    }
  }"
  fi
  mkdir -p "$out/nginx/tmp"
  cat >"$out/nginx.conf" <<EOF
# nginx in front of Spindle: upstream keep-alive (HTTP/1.1, no Connection header forwarded)
user root;
worker_processes 1;
daemon off;
pid $out/nginx/nginx.pid;
error_log $out/raw/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $out/nginx/tmp/body;
  proxy_temp_path $out/nginx/tmp/proxy;
  fastcgi_temp_path $out/nginx/tmp/fastcgi;
  uwsgi_temp_path $out/nginx/tmp/uwsgi;
  scgi_temp_path $out/nginx/tmp/scgi;
  upstream all_instances {
$all    keepalive 256;
    keepalive_timeout 50s;
    keepalive_requests 1000000;
  }
  upstream app1 {
$one
    keepalive 256;
    keepalive_timeout 50s;
    keepalive_requests 1000000;
  }
$checked
  server {
    listen $LB_ADDR:80 backlog=4096;
    location / {
      proxy_pass http://all_instances;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
    }
  }
  server {
    listen $LB_ADDR:8081 backlog=4096;
    location / {
      proxy_pass http://app1;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
    }
  }
$checked_server
}
EOF
  {
    cat <<EOF
# HAProxy in front of Spindle: keep-alive on both sides, idle upstream connections shared
global
  maxconn 8000
  nbthread 1
defaults
  mode http
  option http-keep-alive
  http-reuse always
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 50s
frontend all_instances
  bind $LB_ADDR:81
  default_backend all_instances
frontend app1
  bind $LB_ADDR:8082
  default_backend app1
backend all_instances
  balance roundrobin
EOF
    for (( i = 0; i < count; i++ )); do
      echo "  server app$(( i + 1 )) ${app_addr[$i]}:$APP_PORT"
    done
    echo "backend app1"
    echo "  server app1 ${app_addr[0]}:$APP_PORT"
    if (( stop )); then
      cat <<EOF
# the stop rows: two instances checked on their readiness route; one failed check takes an
# instance out (fall 1), two good ones put it back; retries are HAProxy's default (3, same server)
frontend checked
  bind $LB_ADDR:83
  default_backend checked
backend checked
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  default-server inter 500ms fall 1 rise 2
  server app1 ${app_addr[0]}:$APP_PORT check
  server app2 ${app_addr[1]}:$APP_PORT check
listen stats
  bind $LB_ADDR:8404
  stats enable
  stats uri /stats
EOF
    fi
  } >"$out/haproxy.cfg"
}

nginx_pid="" haproxy_pid=""
start_balancers() {
  ip netns exec "$ns_lb" nginx -p "$out/nginx" -c "$out/nginx.conf" -e "$out/raw/nginx-error.log" \
    >"$out/raw/nginx.out" 2>&1 &
  nginx_pid=$!
  ip netns exec "$ns_lb" haproxy -db -f "$out/haproxy.cfg" >"$out/raw/haproxy.out" 2>&1 &
  haproxy_pid=$!
  lb_pids=("$nginx_pid" "$haproxy_pid")
  local port i
  for port in 80 8081 81 8082; do
    for (( i = 0; i < 50; i++ )); do
      ip netns exec "$ns_cli" curl -sf -o /dev/null --max-time 2 "http://$LB_ADDR:$port/health" && break
      sleep 0.2
    done
    (( i < 50 )) || { echo "error: no balancer answers on $LB_ADDR:$port; see $out/raw/nginx.out, haproxy.out" >&2; return 1; }
  done
}

stop_balancers() {
  local pid
  for pid in "${lb_pids[@]}"; do
    spindle_stop_pid "$pid" 10
  done
  lb_pids=()
}

# nginx's CPU is its master's and its worker's; the worker is a child of the master.
balancer_pids() {   # nginx|haproxy
  if [[ "$1" == nginx ]]; then
    echo "$nginx_pid" $(pgrep -P "$nginx_pid" || true)
  else
    echo "$haproxy_pid"
  fi
}

echo -e "server\ttopology\tinstances\tbalancer\treq_s\tp99_ms\tsocket_errors\tnon2xx\trequests\tserver_cpu_s\tbalancer_cpu_s\tupstream_connections\tupstream_open\tdrain_delay_ms\tfailed\tstop_s" \
  >"$out/measurements.tsv"
failures=0

measure() {   # server topology instances balancer url
  local name="$1" topo="$2" n="$3" lb="$4" url="$5" raw="$out/raw/$1-$2.txt"
  local pids=("${app_pids[@]:0:$n}") lbp=() app0 lb0 opens0 parsed
  [[ "$lb" == - ]] || read -r -a lbp <<<"$(balancer_pids "$lb")"
  ip netns exec "$ns_cli" wrk -t1 -c"$connections" -d2s "$url" >/dev/null 2>&1 || true
  app0="$(sum_ticks "${pids[@]}")" lb0="$(sum_ticks "${lbp[@]}")" opens0="$(passive_opens)"
  ip netns exec "$ns_cli" wrk -t1 -c"$connections" -d"${duration}s" --latency "$url" >"$raw" 2>&1 &
  child_pid=$!
  wait "$child_pid" || true
  child_pid=""
  local app_ticks=$(( $(sum_ticks "${pids[@]}") - app0 )) lb_ticks=$(( $(sum_ticks "${lbp[@]}") - lb0 ))
  local opens=$(( $(passive_opens) - opens0 )) open_now
  open_now="$(established)"   # the balancer's pool (wrk's own connections are gone with it)
  if ! parsed="$("$SPINDLE_PYTHON" "$SCRIPTS/lib/bench.py" parse "$raw" 2>/dev/null)"; then
    echo "FAILED $name $topo: unparsable wrk output (raw/$(basename "$raw"))" >&2
    failures=$(( failures + 1 ))
    return 0
  fi
  local rps avg p99 errs non2xx reqs
  IFS=$'\t' read -r rps avg p99 errs non2xx reqs <<<"$parsed"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t-\t-\n' "$name" "$topo" "$n" "$lb" "${rps//,/}" "$p99" "$errs" "$non2xx" "$reqs" \
    "$(awk -v t="$app_ticks" -v h="$CLK_TCK" 'BEGIN { printf "%.2f", t / h }')" \
    "$(awk -v t="$lb_ticks" -v h="$CLK_TCK" 'BEGIN { printf "%.2f", t / h }')" "$opens" "$open_now" >>"$out/measurements.tsv"
  printf '  %-22s %-12s %10s req/s  p99 %8s ms  errors %s  non-2xx %s  connections to the instances: %s opened, %s open after\n' \
    "$name" "$topo" "$rps" "$p99" "$errs" "$non2xx" "$opens" "$open_now" >&2
}

conformance_through() {   # server balancer port
  local name="$1" lb="$2" port="$3" rc=0
  mkdir -p "$out/conformance"
  ip netns exec "$ns_cli" "$SCRIPTS/conformance-check.sh" "$LB_ADDR:$port" "$out/conformance/$name-$lb.tsv" \
    >"$out/raw/$name-$lb-conformance.txt" 2>&1 || rc=$?
  echo "  conformance through $lb: $(tail -n 1 "$out/raw/$name-$lb-conformance.txt") (exit $rc)" >&2
}

# HAProxy's view of the checked instances: "app1 UP app2 UP " when both are in rotation.
checked_state() {
  ip netns exec "$ns_cli" curl -sf --max-time 2 "http://$LB_ADDR:8404/stats;csv" 2>/dev/null |
    awk -F, '$1 == "checked" && $2 ~ /^app/ { printf "%s %s ", $2, $18 }' || true
}

# wrk's window in a stop row: 2 s before the SIGTERM, the drain delay, and 4 s for the drain, the
# exit and after; the same for both rows of a balancer, so their counts compare.
stop_seconds=$(( 2 + (drain_delay + 999) / 1000 + 4 ))

stop_row() {   # server balancer delay_ms
  local name="$1" lb="$2" delay="$3" topo="stop-$2-$3ms" url raw parsed t0 t1 i state="" nginx_lines=0
  raw="$out/raw/$name-$topo.txt"
  [[ -f "$out/raw/nginx-error.log" ]] && nginx_lines="$(wc -l <"$out/raw/nginx-error.log")"
  if ! start_apps "$name" 2 "-$topo" -Dspindle.drainDelayMs="$delay"; then
    echo "FAILED $name $topo: an instance did not start" >&2
    failures=$(( failures + 1 ))
    stop_apps
    return 0
  fi
  if ! start_balancers; then
    failures=$(( failures + 1 ))
    stop_balancers
    stop_apps
    return 0
  fi
  if [[ "$lb" == haproxy ]]; then
    url="http://$LB_ADDR:83/plaintext"
    for (( i = 0; i < 100; i++ )); do
      state="$(checked_state)"
      [[ "$state" == "app1 UP app2 UP " ]] && break
      sleep 0.1
    done
    if (( i == 100 )); then
      echo "FAILED $name $topo: HAProxy did not put both instances in rotation within 10 s (${state:-no stats})" >&2
      failures=$(( failures + 1 ))
      stop_balancers
      stop_apps
      return 0
    fi
  else
    url="http://$LB_ADDR:84/plaintext"
  fi
  ip netns exec "$ns_cli" wrk -t1 -c"$connections" -d"${stop_seconds}s" --timeout 5s --latency "$url" >"$raw" 2>&1 &
  child_pid=$!
  sleep 2
  t0="$(date +%s.%N)"
  spindle_stop_pid "${app_pids[1]}" 30
  t1="$(date +%s.%N)"
  echo "app2 $SPINDLE_STOPPED" >"$out/raw/$name-$topo-stop.txt"
  wait "$child_pid" || true
  child_pid=""
  if [[ "$lb" == haproxy ]]; then
    ip netns exec "$ns_cli" curl -sf --max-time 2 "http://$LB_ADDR:8404/stats;csv" >"$out/raw/$name-$topo-haproxy-stats.csv" 2>/dev/null || true
  fi
  stop_balancers
  stop_apps
  # what nginx logged during this row (.txt: the run's *.log files are not committed)
  if [[ "$lb" == nginx && -f "$out/raw/nginx-error.log" ]]; then
    tail -n +"$(( nginx_lines + 1 ))" "$out/raw/nginx-error.log" >"$out/raw/$name-$topo-nginx-errors.txt"
  fi
  if ! parsed="$("$SPINDLE_PYTHON" "$SCRIPTS/lib/bench.py" parse "$raw" 2>/dev/null)"; then
    echo "FAILED $name $topo: unparsable wrk output (raw/$(basename "$raw"))" >&2
    failures=$(( failures + 1 ))
    return 0
  fi
  local rps avg p99 errs non2xx reqs stop_s
  IFS=$'\t' read -r rps avg p99 errs non2xx reqs <<<"$parsed"
  stop_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t%s\t%s\t%s\n' "$name" "$topo" 2 "$lb" "${rps//,/}" "$p99" "$errs" "$non2xx" \
    "$reqs" "$delay" $(( errs + non2xx )) "$stop_s" >>"$out/measurements.tsv"
  printf '  %-22s %-20s %9s requests  failed %s (socket errors %s, non-2xx %s)  SIGTERM to exit %s s\n' \
    "$name" "$topo" "$reqs" $(( errs + non2xx )) "$errs" "$non2xx" "$stop_s" >&2
  if awk -v s="$stop_s" -v w="$stop_seconds" 'BEGIN { exit !(s + 2 > w) }'; then
    echo "  note: app2 took ${stop_s}s to exit: wrk's ${stop_seconds}s window ended before 2 s after it" >&2
  fi
}

(( conformance )) && "$SCRIPTS/conformance-check.sh" --prepare >/dev/null
write_configs "$instances"
start_time="$(date -u '+%Y-%m-%d %H:%M:%S')" start_load="$(cut -d ' ' -f 1-3 /proc/loadavg)"
for name in "${server_names[@]}"; do
  echo "$name: $instances instance(s) ..." >&2
  if ! start_apps "$name" "$instances"; then
    echo "FAILED $name: an instance did not start" >&2
    failures=$(( failures + 1 ))
    stop_apps
    continue
  fi
  if ! start_balancers; then
    failures=$(( failures + 1 ))
    stop_balancers
    stop_apps
    continue
  fi
  measure "$name" direct 1 - "http://${app_addr[0]}:$APP_PORT/plaintext"
  measure "$name" nginx-1 1 nginx "http://$LB_ADDR:8081/plaintext"
  measure "$name" haproxy-1 1 haproxy "http://$LB_ADDR:8082/plaintext"
  measure "$name" "nginx-$instances" "$instances" nginx "http://$LB_ADDR:80/plaintext"
  measure "$name" "haproxy-$instances" "$instances" haproxy "http://$LB_ADDR:81/plaintext"
  if (( conformance )); then
    conformance_through "$name" nginx 80
    conformance_through "$name" haproxy 81
  fi
  stop_balancers
  stop_apps
  if (( stop )); then
    found="$(spindle_find_server "$name")"
    if [[ "${found%% *}" == launchers ]]; then
      for lb in "${stop_balancers_run[@]}"; do
        for delay in 0 "$drain_delay"; do
          stop_row "$name" "$lb" "$delay"
        done
      done
    else
      echo "  $name: no stop rows (not a Spindle launcher: no readiness route, no drain delay)" >&2
    fi
  fi
done

{
  echo "# Environment of cluster run $stamp"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| started (UTC) | $start_time |"
  echo "| command | \`$command_line\` |"
  echo "| commit | \`$(spindle_git_desc)\` |"
  echo "| CPU | $(lscpu | sed -n 's/^Model name: *//p' | head -n 1); $(nproc) CPU(s), shared by every namespace (no pinning) |"
  echo "| load average (1, 5, 15 min) | $start_load at the start, $(cut -d ' ' -f 1-3 /proc/loadavg) at the end |"
  echo "| kernel | $(uname -sr) |"
  echo "| JDK | $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1) |"
  echo "| JVM flags | \`${SPINDLE_JVM_FLAGS[*]}\` |"
  echo "| nginx | $(nginx -v 2>&1 | sed 's/^nginx version: //') (package $(dpkg-query -W -f '${Package} ${Version}' nginx-light 2>/dev/null)), one worker: [nginx.conf](nginx.conf) |"
  echo "| HAProxy | $(haproxy -v 2>&1 | head -n 1), one thread: [haproxy.cfg](haproxy.cfg) |"
  echo "| wrk | \`wrk -t1 -c$connections -d${duration}s --latency <url>\` after a 2 s warm-up, in the client namespace |"
  echo "| instances | $instances, each \`<server> $APP_PORT 2\` (2 workers) in its own namespace |"
  if (( stop )); then
    echo "| stop rows | 2 fresh instances (\`-Dspindle.drainDelayMs\` 0 and $drain_delay) behind a fresh balancer ($(IFS=,; echo "${stop_balancers_run[*]}")); \`wrk -t1 -c$connections -d${stop_seconds}s --timeout 5s --latency\` on /plaintext, app2 SIGTERMed 2 s in; HAProxy :83 \`option httpchk GET /health/ready\`, \`inter 500ms fall 1 rise 2\`; nginx :84 passive (max_fails 1, proxy_next_upstream error timeout) |"
  fi
} >"$out/environment.md"
"$SPINDLE_PYTHON" "$SCRIPTS/lib/cluster_report.py" "$out" >"$out/summary.md"
spindle_pack_raw "$out"
echo "cluster run: $out/summary.md" >&2
(( failures == 0 )) || exit 1
