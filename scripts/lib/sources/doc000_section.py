# SPDX-License-Identifier: Apache-2.0
"""section.md of doc000-webflux.sh: document 000's benchmarks, quoted, beside what the part measured.

Usage: doc000_section.py <part_out_dir> <quick 0|1> <status> <cpus> <jvm flags>
"""
import csv
import sys
from pathlib import Path

out, quick, status, cpus, flags = Path(sys.argv[1]), sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
SOURCE = "000_7c82c9e5fa24be44.txt"
rows = {}
if (out / "results.tsv").is_file():
    rows = {r["run"]: r for r in csv.DictReader(open(out / "results.tsv"), delimiter="\t")}

# run, benchmark, what runs, published req/s, published seconds, published median ms, ceiling here, ceiling there
RUNS = [
    ("webflux-01", "01", "WebFlux `/stress-benchmark-01`: 1 s sleep on the `@Async(\"taskExecutor\")` pool",
     "99.77", "601.381", "10003", "100", "100"),
    ("threadpool-blocking", "01", "Spindle ThreadPoolServer, 100 threads, 1,000-deep queue: `/blocking/1000`",
     "", "", "", "100", ""),
    ("webflux-02", "02", "WebFlux `/stress-benchmark-02`: 1 s sleep on `Schedulers.boundedElastic()`",
     "117.80", "509.341", "8003", f"{10 * cpus} = 10 × {cpus} CPUs", "120, \"120 in my machine\""),
    ("virtual-blocking", "01, 02", "Spindle VirtualThreadServer: `/blocking/1000`", "", "", "", "clients ÷ 1 s", ""),
    ("webflux-03", "03", "WebFlux `/stress-benchmark-03`: `new Date().toString()` on `boundedElastic()`, no sleep",
     "9109.52", "6.587", "103", "CPU", ""),
    ("webflux-plaintext", "03", "WebFlux `/plaintext` (the same server, no scheduler hop)", "", "", "", "CPU", ""),
    ("threadpool-plaintext", "03", "Spindle ThreadPoolServer, 100 threads: `/plaintext`", "", "", "", "CPU", ""),
    ("multiloop-plaintext", "03", "Spindle MultiLoopServer: `/plaintext`", "", "", "", "CPU", ""),
]


def cell(run, key, fmt=str):
    r = rows.get(run)
    if not r or not r.get(key):
        return "not run" if r is None else "—"
    try:
        return fmt(r[key])
    except ValueError:
        return r[key]


p = print
p("## 000: Spring WebFlux on Reactor Netty with an io_uring event-loop group\n")
if quick:
    p("**Smoke run (`--quick`): fewer requests and 100 clients; the figures check the mechanics only and are "
      "not comparable to the published ones.**\n")
if status:
    p("**This part failed before every run was measured; the rows marked \"not run\" were not reached "
      "(see `raw/`).**\n")
p(f"### What the document ran (`{SOURCE}`)\n")
p("One Spring WebFlux application on Reactor Netty, `new IOUringEventLoopGroup(48)` passed to "
  "`HttpServer.create().runOn(loopResources)`, three routes, each stressed with ApacheBench at 1,000 clients:\n")
p("- **Benchmark 01**: `ab -n 60000 -c 1000 http://localhost:8080/stress-benchmark-01`; the service method is "
  "`@Async(\"taskExecutor\")` and does `Thread.sleep(1000)` before "
  "`return CompletableFuture.completedFuture(new Date().toString());`; the pool is a `ThreadPoolTaskExecutor` with "
  "`setCorePoolSize(100)`, `setMaxPoolSize(200)`, `setQueueCapacity(1000)`. Published: "
  "`Requests per second:    99.77 [#/sec] (mean)`, `Time taken for tests:   601.381 seconds`, "
  "`Failed requests:        0`.")
p("- **Benchmark 02**: `ab -n 60000 -c 1000 http://localhost:8080/stress-benchmark-02`; "
  "`AsyncMonoService.getDateAsync().subscribeOn(Schedulers.boundedElastic())`, a `Mono.fromCallable` that does "
  "`Thread.sleep(1000)`; the scheduler: `size: 10 * Runtime.getRuntime().availableProcessors() // 120 in my machine`. "
  "Published: `Requests per second:    117.80 [#/sec] (mean)`, `Time taken for tests:   509.341 seconds`, "
  "`Failed requests:        0`.")
p("- **Benchmark 03**: `ab -n 60000 -c 1000 -s 60 http://localhost:8080/stress-benchmark-03`; "
  "`NoBlockService.getDateAsync().subscribeOn(Schedulers.boundedElastic());` where `getDateAsync()` returns "
  "the following, **no sleep at all**:\n")
p("  ```java")
p("      return Mono.fromCallable( () -> {")
p("          return new Date().toString();")
p("      });")
p("  ```\n")
p("  \"**It was necessary** add timeout of 60s on stress client `-s 60` otherwise ab was crashing timing out and did "
  "not complete.\" Published: `Requests per second:    9109.52 [#/sec] (mean)`, "
  "`Time taken for tests:   6.587 seconds`, `Failed requests:        0`, median 103 ms.")
p("- Server JVM, for all three: `-XX:+UseZGC -Xms8G -Xmx8G -XX:MaxGCPauseMillis=200 -XX:+UseStringDeduplication "
  "-XX:+OptimizeStringConcat -XX:+UseCompressedOops -XX:+AlwaysPreTouch -XX:+UseNUMA -XX:+DisableExplicitGC`; "
  "`ulimit -n 65535` on client and server. Each answer is `Document Length:        28 bytes`.")
p("- \"**Big Call out**: This is running all in one machine. Server and client(stress) should be in different "
  "machines due to cpu and memory contention.\"\n")

p("### What we ran\n")
p("The reference `references/spring-webflux` with the Spring profile `source-000` (`SourceDocument000`, "
  "`StressBenchmarkController`): the three routes, services and `taskExecutor` bean as the document writes them, "
  "and its Netty configuration: `SO_BACKLOG` 128, `TCP_FASTOPEN` 1024, the pooled allocator, `SO_KEEPALIVE`, "
  "`TCP_NODELAY`, 1 MB receive and send buffers through a `NettyServerCustomizer` (Spring Boot builds its embedded "
  "server itself and reads `NettyServerCustomizer` beans, not an `HttpServer` bean), and 48 io_uring event loops "
  "as the server's Reactor Netty loops (Boot runs its server on those whatever a customizer says; Reactor Netty "
  "builds them as Netty 4.2's io_uring group, the document's `IOUringEventLoopGroup` being Netty's older incubator "
  "class). The profile refuses to start without io_uring rather than measure another transport. One JVM serves all "
  "of the document's routes, run in the document's order.\n")
dump = out / "raw" / "webflux-threads.txt"
if dump.is_file():
    names = dump.read_text(errors="replace").splitlines()
    loops = sum(1 for line in names if line.startswith('"spindle-webflux-io_uring-'))
    other = sum(1 for line in names if line.startswith(('"spindle-webflux-epoll-', '"spindle-webflux-nio-')))
    p(f"The reference's thread dump after its runs (`raw/webflux-threads.txt`) lists {loops} io_uring event-loop "
      f"threads (`spindle-webflux-io_uring-*`) and {other} epoll or NIO ones.\n")
p(f"JVM flags of every server in this part: `{flags}`: the document's, but a 1 GB heap: pre-touching 8 GB "
  "(`-Xms8G -XX:+AlwaysPreTouch`) took over 40 s per JVM start on this machine. On this JDK "
  "(`raw/jvm-flags-final.txt`) `UseCompressedOops` is off under ZGC whatever the flag says, `UseNUMA` is off on a "
  "single NUMA node, and `MaxGCPauseMillis` is a goal ZGC does not use. The open-files limit is the document's "
  "65,535 where the machine allows it, else its hard limit.\n")
p("Commands, in the order they ran (`ab` against 127.0.0.1, a port per JVM: the WebFlux reference, "
  "ThreadPoolServer, VirtualThreadServer, MultiLoopServer):\n")
p("```")
for r in rows.values():
    p(r["command"])
p("```\n")
if not quick:
    p("- **Benchmark 03 as published**: `-n 60000 -c 1000 -s 60`, after a warm-up of 5,000 requests at 100 clients "
      "(kept in `raw/*.warmup.ab`; the document does not say whether it warmed up).")
    p("- **Benchmarks 01 and 02 scaled**: the same 1 s sleep and 1,000 clients, but 3,000 requests (01) and 1,500 "
      "(02) instead of 60,000: at about 100 req/s 60,000 requests take 10 minutes (the document's 601 s), at "
      f"{10 * cpus} req/s (boundedElastic's {10 * cpus} threads here) 50 minutes. The req/s stays comparable because "
      "in a closed loop where 1,000 clients share fewer threads that each hold a request for 1 s, the rate is "
      "threads ÷ 1 s whatever the number of requests (Little's law); the number only sets how long the run lasts, "
      "and the first and last second weigh 1/30 (01) and 1/75 (02) of the run instead of 1/600. `-s 120` raises "
      f"`ab`'s 30 s timeout: with {10 * cpus} threads a request waits 1,000 ÷ {10 * cpus} = {1000 // (10 * cpus)} s "
      "here; it changes nothing for a request answered sooner.")
p("- **Spindle on the nearest contract routes**: `/blocking/1000` (a 1 s `Thread.sleep` on a blocking route) on "
  "ThreadPoolServer with 100 threads and a 1,000-deep queue, sized like the `@Async` pool: at 1,000 clients that "
  "pool never grows past its 100 core threads, since a `ThreadPoolExecutor` adds threads only when its queue is "
  "full and 1,000 clients fill at most 100 threads and 900 queue slots; and on VirtualThreadServer (a virtual "
  "thread per connection). For benchmark 03, `/plaintext` (13 bytes) on MultiLoopServer, on "
  "ThreadPoolServer and on the WebFlux reference itself: the contract has no date route, and adding one would "
  "touch every server, reference and the conformance suite for a handler whose work (formatting a date, about a "
  "microsecond) is small beside what `ab` makes every request cost, a TCP connection opened and closed (HTTP/1.0, "
  "no keep-alive).\n")

p("### Published beside measured\n")
p("| bench. | server and route | published req/s | measured req/s | ceiling here (published machine) | "
  "failed | non-2xx | seconds (published) | median ms (published) |")
p("|---|---|---:|---:|---|---:|---:|---:|---:|")
for run, bench, what, pub, pub_s, pub_p50, ceil, ceil_pub in RUNS:
    rps = cell(run, "req_per_s", lambda v: f"{float(v):,.2f}")
    secs = cell(run, "seconds", lambda v: f"{float(v):,.2f}")
    p50 = cell(run, "p50_ms")
    pub_rps = f"{float(pub):,.2f}" if pub else ""
    ceiling = ceil + (f" ({ceil_pub})" if ceil_pub else "")
    p(f"| {bench} | {what} | {pub_rps} | {rps} | {ceiling} | {cell(run, 'failed')} | {cell(run, 'non2xx')} | "
      f"{secs}{f' ({pub_s})' if pub_s else ''} | {p50}{f' ({pub_p50})' if pub_p50 else ''} |")
p()
p("\"Ceiling\" is threads ÷ 1 s for the sleeping routes (no row can beat it however fast the machine); \"CPU\" where "
  "nothing but the machine's CPUs bounds the rate. Raw `ab` outputs: `raw/<run>.ab` (in `raw.tar.gz` when packed).\n")


def rps(run):
    r = rows.get(run)
    try:
        return float(r["req_per_s"]) if r else None
    except (KeyError, TypeError, ValueError):
        return None


b03, wf_plain = rps("webflux-03"), rps("webflux-plaintext")
plain = [(what, rps(run)) for run, what in (("webflux-plaintext", "WebFlux's own `/plaintext`"),
                                            ("threadpool-plaintext", "ThreadPoolServer's"),
                                            ("multiloop-plaintext", "MultiLoopServer's"))]
if b03 and all(v for _, v in plain):
    p(f"Benchmark 03's route and `/plaintext`, in this run and under the same `ab -n {rows['webflux-03']['complete']} "
      f"-c 1000 -s 60` (a new connection per request): WebFlux's `/stress-benchmark-03` {b03:,.2f} req/s; "
      + ", ".join(f"{what} {v:,.2f}" for what, v in plain)
      + f". On the same server, `/plaintext` answered {wf_plain / b03:.2f}× the rate of `/stress-benchmark-03` "
      "(whose answer is a date formatted on `boundedElastic()` rather than fixed text on the event loop).\n")
p("### What carries over between machines\n")
p(f"The sleeping benchmarks are set by thread counts, not by the machine: the `@Async` pool serves 100 requests a "
  f"second on any machine (99.77 published), while `boundedElastic()` has ten threads per CPU, 120 on the "
  f"document's machine (117.80 published) and {10 * cpus} on this one, so its published figure does not carry over "
  "but its fraction of the ceiling does. Benchmark 03 is bound by CPU, and here, as in the document, `ab` and the "
  "server share one machine (the document's own call-out: \"Server and client(stress) should be in different "
  f"machines\"), on {cpus} CPUs instead of its 12 (120 ÷ 10): its absolute req/s does not carry over, only the ratios "
  "between rows measured in the same run do.")
