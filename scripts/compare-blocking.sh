#!/usr/bin/env bash
# The experiments of the documents Spindle grew from, reproduced with ab as they ran them, with the
# published figures beside ours:
#   1. Spring Boot MVC on Tomcat with a 10-thread pool (server.tomcat.threads.max=10) against the
#      same app on virtual threads (spring.threads.virtual.enabled=true), each request waiting on a
#      remote service for 2 s: ab -n 60 -c 20 (run as published, not scaled). Spindle's
#      ThreadPoolServer with 10 threads and VirtualThreadServer run beside them.
#   2. Spring WebFlux at 1,000 concurrent clients, each request waiting 1 s: the wait offloaded to an
#      @Async-style pool (core 100, max 200, queue 1,000), to Schedulers.boundedElastic(), or a
#      non-blocking Mono.delay; ab -n 60000 -c 1000 as published, SCALED here to a 100 ms wait and
#      6,000 requests (both / 10) so a run takes about a minute; req/s are compared through the
#      requests in flight (req/s x wait, Little's law), which the scaling keeps. Spindle's
#      ThreadPoolServer (100 threads, 1,000-deep queue), VirtualThreadServer and MultiLoopServer's
#      asynchronous /delay run beside them.
#
#   scripts/compare-blocking.sh [--quick] [--rows A,B] [output_dir]
#
# output_dir defaults to results/seed/<UTC timestamp>/ (--quick: /tmp/spindle-seed-quick-<stamp>/);
# it gets summary.md (the table with the published figures and why ours differ), environment.md
# and raw/ (every ab output and server log). --quick shrinks both experiments to seconds (a smoke
# run); --rows runs only the named rows (labels as in the table).
# Exit status: 0 done; 1 a server failed to build or start, or ab failed; 2 bad arguments.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"

usage() {
  echo "usage: $(basename "$0") [--quick] [--rows A,B] [output_dir]" >&2
  exit 2
}
cmdline="$*"
quick=0 out="" only=""
while (( $# > 0 )); do
  case "$1" in
    --quick) quick=1 ;;
    --rows) [[ $# -ge 2 && -n "$2" ]] || usage; only=",$2,"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) [[ -z "$out" ]] || usage; out="$1" ;;
  esac
  shift
done

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
if (( quick )); then
  out="${out:-/tmp/spindle-seed-quick-$stamp}"
  e1_ms=200 e1_n=20 e1_c=10 e2_ms=50 e2_n=1000 e2_c=200
else
  out="${out:-$SPINDLE_ROOT/results/seed/$stamp}"
  e1_ms=2000 e1_n=60 e1_c=20 e2_ms=100 e2_n=6000 e2_c=1000
fi
mkdir -p "$out/raw"

spindle_ensure_packages apache2-utils
spindle_find_jdk
spindle_java_opts
# ab opens one socket per concurrent client, the servers one each, plus the downstream's
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# One row: "label|class|extra JVM properties|workers|experiment|route|what it is"
ROWS=(
  "SpringMvc-pool10|SpringMvcServer|-Dserver.tomcat.threads.max=10||1|/remote-blocking/$e1_ms|Tomcat, 10 platform threads; RestClient call"
  "SpringMvc-virtual|SpringMvcServer|-Dspring.threads.virtual.enabled=true||1|/remote-blocking/$e1_ms|Tomcat, a virtual thread per request; RestClient call"
  "ThreadPoolServer-10|ThreadPoolServer||10|1|/remote-blocking/$e1_ms|Spindle, 10 platform threads; HttpClient.send"
  "VirtualThreadServer|VirtualThreadServer|||1|/remote-blocking/$e1_ms|Spindle, a virtual thread per connection; HttpClient.send"
  "SpringWebFlux-asyncpool|SpringWebFluxServer|-Dspindle.webflux.offload=async-pool||2|/blocking/$e2_ms|WebFlux, the wait on an @Async-style pool (core 100, max 200, queue 1,000)"
  "SpringWebFlux-boundedElastic|SpringWebFluxServer|-Dspindle.webflux.offload=bounded-elastic||2|/blocking/$e2_ms|WebFlux, the wait on Schedulers.boundedElastic()"
  "SpringWebFlux-mono|SpringWebFluxServer|||2|/delay/$e2_ms|WebFlux, Mono.delay (no thread waits)"
  "ThreadPoolServer-100|ThreadPoolServer|-Dspindle.queueCapacity=1000|100|2|/blocking/$e2_ms|Spindle, 100 platform threads, 1,000-deep queue"
  "VirtualThreadServer-e2|VirtualThreadServer|||2|/blocking/$e2_ms|Spindle, a virtual thread per connection"
  "MultiLoopServer|MultiLoopServer|||2|/delay/$e2_ms|Spindle, asynchronous handler on a timer (no thread waits)"
)
if [[ -n "$only" ]]; then
  chosen=()
  for row in "${ROWS[@]}"; do
    [[ "$only" != *",${row%%|*},"* ]] || chosen+=("$row")
  done
  (( ${#chosen[@]} > 0 )) || { echo "error: no row named in --rows ${only//,/ }" >&2; usage; }
  ROWS=("${chosen[@]}")
fi

server_pid="" downstream_pid=""
cleanup() {
  [[ -z "$server_pid" ]] || spindle_stop_pid "$server_pid"
  [[ -z "$downstream_pid" ]] || spindle_stop_pid "$downstream_pid"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Build every module in the foreground first, so no readiness timeout covers a Maven build.
for row in "${ROWS[@]}"; do
  IFS='|' read -r _ cls _ <<<"$row"
  found="$(spindle_find_server "$cls")"
  spindle_classpath "${found%% *}" >/dev/null
done

# Starts a server in the background: start LABEL CLASS "PROPS" WORKERS; sets pid_started, port_started.
start() {
  local label="$1" cls="$2" props="$3" w="$4"
  local log="$out/raw/$label"
  SPINDLE_JAVA_PROPS="$props" "$SCRIPTS/run-server.sh" "$cls" 0 ${w:+"$w"} >"$log.out" 2>"$log.err" &
  pid_started=$!
  port_started="$(spindle_await_ready "$pid_started" "$log.out" "$log.err" 90)" || exit 1
}

echo "downstream: MultiLoopServer (its /delay/{ms} is the remote service)" >&2
start downstream MultiLoopServer "" ""
downstream_pid="$pid_started" downstream_port="$port_started"
ab -q -n 2000 -c 50 "http://127.0.0.1:$downstream_port/delay/1" >/dev/null 2>&1 || true
# ab's own time for a single wave of experiment 1 (as many requests as clients, on the downstream's
# timer route, no thread limit anywhere): what ab adds beyond the waits, measured, not assumed
ab -q -s 120 -n "$e1_c" -c "$e1_c" "http://127.0.0.1:$downstream_port/delay/$e1_ms" >"$out/raw/ab-one-wave.ab" 2>&1 ||
  spindle_die "ab against the downstream failed; its output: $out/raw/ab-one-wave.ab"
one_wave="$(awk '/^Time taken for tests:/ {print $5}' "$out/raw/ab-one-wave.ab")"
echo "ab alone, one wave of $e1_c requests waiting $e1_ms ms each: $one_wave s" >&2

printf 'row\tclass\tprops\tworkers\texperiment\troute\tconcurrency\trequests\tseconds\treq_per_s\tfailed\tnon2xx\n' >"$out/results.tsv"
for row in "${ROWS[@]}"; do
  IFS='|' read -r label cls props w exp route what <<<"$row"
  if [[ "$exp" == 1 ]]; then n="$e1_n" c="$e1_c" warm="/remote-blocking/1"; else n="$e2_n" c="$e2_c" warm="${route%/*}/1"; fi
  start "$label" "$cls" "$props -Dspindle.remote=http://127.0.0.1:$downstream_port" "$w"
  server_pid="$pid_started"
  echo "[$label] $what: ab -n $n -c $c $route" >&2
  # a warm-up at the same concurrency, 1 ms waits: class loading, JIT and the client's connections
  ab -q -s 60 -n "$(( c * 4 ))" -c "$c" "http://127.0.0.1:$port_started$warm" >"$out/raw/$label.warmup.ab" 2>&1 || true
  rc=0
  ab -q -s 120 -n "$n" -c "$c" "http://127.0.0.1:$port_started$route" >"$out/raw/$label.ab" 2>&1 || rc=$?
  spindle_stop_pid "$server_pid"
  server_pid=""
  secs="$(awk '/^Time taken for tests:/ {print $5}' "$out/raw/$label.ab")"
  rps="$(awk '/^Requests per second:/ {print $4}' "$out/raw/$label.ab")"
  if (( rc != 0 )) || [[ -z "$secs" ]]; then
    echo "error: ab against $label failed (exit $rc); its output: $out/raw/$label.ab" >&2
    cat "$out/raw/$label.ab" >&2
    exit 1
  fi
  failed="$(awk '/^Failed requests:/ {print $3}' "$out/raw/$label.ab")"
  non2xx="$(awk '/^Non-2xx responses:/ {print $3}' "$out/raw/$label.ab")"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$cls" "$props" "${w:-default}" "$exp" "$route" \
    "$c" "$n" "$secs" "$rps" "${failed:-0}" "${non2xx:-0}" >>"$out/results.tsv"
  echo "[$label] ${secs} s, ${rps} req/s, failed ${failed:-0}, non-2xx ${non2xx:-0}" >&2
done

# Environment beside the figures.
{
  echo "# Environment of seed reproduction $stamp"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`scripts/compare-blocking.sh $cmdline\` |"
  echo "| commit | \`$(git -C "$SPINDLE_ROOT" rev-parse HEAD)\`$(git -C "$SPINDLE_ROOT" diff --quiet HEAD -- . ':!results' || echo ', with uncommitted changes') |"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1); $(nproc) CPU(s) |"
  echo "| kernel | $(uname -sr) |"
  echo "| JDK | $("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1) |"
  echo "| JVM flags (every server) | \`${SPINDLE_JVM_FLAGS[*]}\` |"
  echo "| ab | $(ab -V | head -n 1) |"
  echo "| downstream | MultiLoopServer on 127.0.0.1:$downstream_port, same JVM flags, same machine |"
} >"$out/environment.md"

python3 - "$out" "$quick" "$e1_ms" "$e2_ms" "$one_wave" <<'PY' >"$out/summary.md"
import csv, os, sys
out, quick, e1_ms, e2_ms = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
# what ab itself adds to a run beyond the waits, from one wave of experiment 1 on a timer route
ab_overhead = max(0.0, float(sys.argv[5]) - e1_ms / 1000)
rows = list(csv.DictReader(open(f"{out}/results.tsv"), delimiter="\t"))
published = {"SpringWebFlux-asyncpool": 99.77, "SpringWebFlux-boundedElastic": 117.80, "SpringWebFlux-mono": 9109.52}
bound_threads = {"SpringMvc-pool10": 10, "ThreadPoolServer-10": 10, "SpringWebFlux-asyncpool": 100,
                 "ThreadPoolServer-100": 100}
print("# The seed documents' experiments, reproduced\n")
if quick:
    print("**Smoke run (--quick): waits, requests and clients shrunk to seconds; not comparable to the published figures.**\n")
print("Each row: a fresh JVM, a warm-up at the same concurrency, then one `ab` run (HTTP/1.0, a new "
      "connection per request, as the documents ran it). Machine, JDK and commit: [environment.md](environment.md); "
      "raw `ab` output: [raw/](raw/).\n")
for exp, title, ms in ((1, "Tomcat's 10-thread pool against virtual threads, a remote call per request", e1_ms),
                       (2, "WebFlux offloads against a non-blocking wait at 1,000 clients", e2_ms)):
    sel = [r for r in rows if r["experiment"] == str(exp)]
    if not sel:
        continue
    c, n = int(sel[0]["concurrency"]), int(sel[0]["requests"])
    print(f"## {exp}. {title}\n")
    print(f"`ab -n {n} -c {c}`, each request waiting {ms} ms. In flight = req/s × wait (Little's law): how many "
          f"requests the server really had waiting at once; the ceiling is min(clients, threads).\n")
    if exp == 2:
        print("| row | route | req/s | in flight | ceiling | published req/s (1 s wait, -n 60000) | published in flight | failed | non-2xx |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print("| row | route | seconds | req/s | in flight | ceiling | expected seconds | failed | non-2xx |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in sel:
        rps = float(r["req_per_s"])
        inflight = rps * ms / 1000
        label = r["row"]
        ceiling = min(c, bound_threads.get(label, c))
        if label == "SpringWebFlux-boundedElastic":
            ceiling_s = f"{min(c, 10 * os.cpu_count())} (10 × {os.cpu_count()} CPUs)"
        else:
            ceiling_s = str(ceiling)
        if exp == 2:
            pub = published.get(label)
            pub_s = f"{pub:,.2f}" if pub else "—"
            pub_in = f"{pub * 1.0:,.1f}" if pub else "—"
            print(f"| {label} | `{r['route']}` | {rps:,.1f} | {inflight:,.1f} | {ceiling_s} | {pub_s} | {pub_in} | {r['failed']} | {r['non2xx']} |")
        else:
            expected = -(-n // ceiling) * ms / 1000 + ab_overhead
            print(f"| {label} | `{r['route']}` | {float(r['seconds']):.2f} | {rps:,.2f} | {inflight:,.1f} | {ceiling} | {expected:.1f} | {r['failed']} | {r['non2xx']} |")
    print()
by_label = {r["row"]: r for r in rows}


def measured(label, key):
    r = by_label.get(label)
    return float(r[key]) if r else None


def fmt_measured(labels, key, unit, fmt, scale=1.0):
    got = [(label, measured(label, key) * scale) for label in labels if label in by_label]
    return ", ".join(f"{label} {fmt.format(v)}{unit}" for label, v in got) if got else "not run"


cpus = os.cpu_count()
print("## Why our figures differ from the published ones\n")
e1 = [r for r in rows if r["experiment"] == "1"]
if e1:
    c1, n1 = int(e1[0]["concurrency"]), int(e1[0]["requests"])
    pool_s = -(-n1 // min(c1, 10)) * e1_ms / 1000
    virt_s = -(-n1 // c1) * e1_ms / 1000
    print(f"- **Experiment 1** (a {e1_ms} ms wait, `-n {n1} -c {c1}`): the documents give no figure for it, only "
          f"the claim that virtual threads finish sooner. The arithmetic decides it: 10 threads serve {n1} calls in "
          f"⌈{n1}/10⌉ × {e1_ms / 1000:g} s = {pool_s:g} s, {c1} clients on virtual threads in ⌈{n1}/{c1}⌉ × "
          f"{e1_ms / 1000:g} s = {virt_s:g} s, whatever the framework, plus what `ab` itself adds: one wave of "
          f"{c1} requests on the downstream's timer route, with no thread limit anywhere, took `ab` "
          f"{e1_ms / 1000 + ab_overhead:.2f} s, not {e1_ms / 1000:g} s (the 'expected seconds' column adds those "
          f"{ab_overhead:.2f} s). Measured: "
          + fmt_measured(["SpringMvc-pool10", "ThreadPoolServer-10", "SpringMvc-virtual", "VirtualThreadServer"],
                         "seconds", " s", "{:.2f}") + ".")
e2 = [r for r in rows if r["experiment"] == "2"]
if e2:
    c2 = int(e2[0]["concurrency"])
    print(f"- **Experiment 2, the @Async pool (99.77 req/s published):** a `ThreadPoolExecutor` with core 100, "
          "max 200 and a 1,000-deep queue grows past its core size only when the queue is full, and 1,000 clients "
          "never fill it (100 run, at most 900 wait), so it serves with 100 threads: 100 in flight, 100 req/s at "
          f"1 s, the published figure. In flight here ({e2_ms} ms wait, req/s × wait): "
          + fmt_measured(["SpringWebFlux-asyncpool", "ThreadPoolServer-100"], "req_per_s", "",
                         "{:.0f}", e2_ms / 1000) + ".")
    print(f"- **Experiment 2, boundedElastic (117.80 req/s published):** Reactor caps `boundedElastic()` at ten "
          f"threads per CPU, so its ceiling is 10 × the machine's CPUs: about 118 in flight says the published "
          f"machine had 12 CPUs; this one has {cpus}, a ceiling of {10 * cpus} in flight. In flight here: "
          + fmt_measured(["SpringWebFlux-boundedElastic"], "req_per_s", "", "{:.0f}", e2_ms / 1000) + ".")
    print("- **Experiment 2, the non-blocking Mono (9,109.52 req/s published):** 1,000 clients each waiting 1 s "
          "can complete at most 1,000 requests a second, so 9,109 req/s means the published responses did not wait "
          "the second (a `Mono` built but not subscribed to the delay, or errors counted as answers: `ab` counts "
          "non-2xx responses as completed). Every request here waits its full delay; measured: "
          + fmt_measured(["SpringWebFlux-mono", "MultiLoopServer", "VirtualThreadServer-e2"], "req_per_s", "",
                         "{:,.0f} req/s") + f", against a ceiling of {c2 * 1000 // e2_ms:,} req/s "
          f"({c2:,} clients ÷ {e2_ms} ms).")
PY

echo >&2
cat "$out/summary.md"
echo >&2
echo "written: $out/summary.md" >&2
