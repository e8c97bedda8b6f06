#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark matrix: every server through the same wrk scenarios (h2load for the HTTP/2 ones), on 127.0.0.1.
#
#   scripts/benchmark-servers.sh [options] [workers] [duration] [output_dir]
#
#   workers      passed to every server (event loops, pool threads, ...); default 2
#   duration     per scenario, seconds ("10", "10s" or "1m"); default 4 (--full: 10, --quick: 2)
#   output_dir   default results/<UTC timestamp>/ (--quick: /tmp/spindle-bench-quick-<timestamp>/;
#                --baseline: results/ab/<timestamp>-vs-<rev>/)
#
#   (no mode)       the default run, within 20 minutes on 2 cores even if every warm-up reaches its
#                   cap: one row per Spindle I/O model and every reference row
#                   (SPINDLE_BENCH_DEFAULT_SERVERS), 6 scenarios (plaintext, pipelined, echo 10 KB,
#                   and the three waiting ones at 1,000 connections), 3 rounds of 2s, no pause, one
#                   start per row; it prints its plan and an estimate first, then an ETA per step.
#                   The trade for steady rows: JSON left out (--scenarios/--full run it), 2s cells
#                   instead of 4s, no pause between scenarios, one JVM per row for the whole run
#   --full          every row and every scenario (HTTPS, the echo sizes, the download, the multipart
#                   upload, the gzip-compressed JSON, HTTP/2), 3 rounds
#                   of 10s: hours on 2 cores, which its plan line says before it starts
#   --h2            the five HTTP/2 scenarios (see "HTTP/2 scenarios" below): plaintext-h2c,
#                   plaintext-h2c-16x64, json-h2c, delay100-h2c, plaintext-h2-tls; with
#                   --scenarios, added to those it names. Not in the
#                   default run (it would outgrow its 20 minutes); --full has them
#   --servers A,B   only these rows (display names from scripts/lib/bench-servers.sh, or a class
#                   name for all its rows, e.g. MultiLoopServer); a requested server whose class is
#                   not in the tree is a "not built" failure row
#   --rounds N      rounds, interleaved (all servers for round 1, then round 2, ...); default 3
#                   (--quick: 1); odd, so the median is a round's figure
#   --warmup SECONDS  a fixed warm-up (SECONDS windows of 1 s of every scenario) instead of the
#                   adaptive one; the last windows are still judged steady or not (also SPINDLE_BENCH_WARMUP)
#   --warmup-cap SECONDS  the adaptive warm-up's cap, in seconds per scenario of a start, pooled
#                   over the start (6 scenarios x 7 s = 42 s in the default run); default 7
#                   (--quick: 4; also SPINDLE_BENCH_WARMUP_CAP)
#   --start-per-round  a fresh JVM per row and round (the default of --full), instead of one start
#                   per row for the whole run (the default otherwise; --start-once forces it)
#   --open-model    latency at constant offered rates (Hyperfoil via scripts/lib/open-load.sh; latency
#                   counted from when each request was due): GET /delay/100 at 25/50/75% of each row's
#                   own closed-loop maximum, measured first in the same start, and at 3,000 req/s;
#                   GET /plaintext at 10,000 req/s; one row per I/O-model family and the Netty
#                   references (SPINDLE_BENCH_OPEN_SERVERS), 2 rounds of 8s; a percentile chart per rate
#   --quick         smoke run: 2s, 1 round, 8 scenarios (one over HTTPS), two servers unless
#                   --servers; also fails on socket errors or non-2xx responses in a non-blocking
#                   scenario (CI)
#   --scenarios A,B only these scenarios (names as in the tables, e.g. plaintext-c256,echo-500KB,
#                   plaintext-tls-c256, plaintext-h2c, multipart-10MB, json-gzip-c256)
#   --baseline REV  A/B against a commit: REV (anything git names) is exported to a private
#                   directory and built there (its own target/ dirs; ~/.m2 untouched), and every
#                   row gets a twin "<row>@<rev>" run from it right after it in each round, so
#                   both sides see the same machine state; the summary adds the ratios per scenario
#   --pin-server CPUS, --pin-client CPUS
#                   run the server JVMs / wrk under `taskset -c CPUS` (e.g. 1 and 0), so the
#                   server's figure is not a share of CPUs it fights the load generator for
#   --netns         the server (and the downstream) in one network namespace, wrk and the checks
#                   in another, joined by a veth pair: traffic crosses a link (MTU 1500, the
#                   neighbour and device layers) instead of loopback. The script creates both
#                   namespaces and removes them at exit (addresses 10.213.0.1/.2 exist only inside
#                   them); servers bind 10.213.0.1 (-Dspindle.host). Needs root (CAP_NET_ADMIN).
#                   Combines with the --pin-* options.
#   --no-conformance  skip the correctness column (see below)
#   --target HOST:PORT --name NAME
#                   measure a server that already runs elsewhere (another machine: the honest
#                   two-host setup): no server is built, started or stopped, one row NAME; the
#                   checks, the correctness column and the scenarios go to HOST:PORT. The server's
#                   CPU cannot be sampled (req/CPU-s is n/a), and the scenarios that need a
#                   downstream (/remote) or a TLS start are left out. environment.md records where
#                   the client and the target were. Combines with --pin-client and the modes.
#
# The correctness column: before round 1, each row is started once more, on its own, and the shared
# conformance cases are sent to it over the network from the clients' side
# (scripts/conformance-check.sh: conformance/<row>.tsv, its output in raw/<row>/conformance.txt);
# summary.md shows passed/total beside every row and lists the failures. A failing case does not
# stop the row from being measured. --no-conformance skips it.
# Per server start: a JVM (flags from spindle_java_opts, recorded in environment.md), its ready
# line awaited (60s), every route's answer checked (a wrong answer is a failure row and the server
# is not measured; POST /multipart also with the body of each selected multipart scenario, its
# answer's SHA-256 that of the body's file part; GET /users-list with Accept-Encoding: gzip answered
# Content-Encoding: gzip and inflating to the expected document, and without it the document as is).
# A route a row may lack (POST /multipart, GET /users-list: the Helidon, Vert.x and Spring references
# do not serve them) answered 404 is "absent" instead: that
# start's scenarios on it are n/a (a route-unavailable event; an error for a Spindle row, noted for
# a reference or a --baseline twin), never measured as 404s. Then the warm-up, every scenario of
# the start in turn and each judged on its own, with 1 s windows of its own load (wrk, or h2load for
# an HTTP/2 one): first SPINDLE_BENCH_WARMUP_MIN (4; --quick 3) windows whatever they show (no
# stopping on a lucky comparison), then more until steady: the least-squares slope of req/s over
# its last SPINDLE_BENCH_TREND_WINDOWS (K = 4; --quick 3) windows, times K, within
# SPINDLE_BENCH_STEADY_PCT (20) % of their mean, and jstat -compiler counting at most
# SPINDLE_BENCH_JIT_QUIET (10) methods compiled per window over them (the JIT never goes fully
# quiet: Netty and Spring compile a few methods a second forever); or until the start's cap (the
# --warmup-cap seconds per scenario, pooled: a cold first scenario may use what later ones leave,
# each later one keeping its minimum). Every window: raw/<row>/warmup-start<K>.tsv; the outcome:
# starts.tsv (steady 0 = a scenario not steady at the cap, every figure of that start "not
# steady"; its reason says how each scenario was judged). --target has no process to sample: rate
# only, said so.
# By default each row is started once for the whole run, every row's JVM alive at once on its own
# port (-Xms512m -Xmx512m each), the rounds interleaved across them, each row's round led by a
# SPINDLE_BENCH_REWARM (1) s re-warm of its first scenario (an idle JVM's pools shrink while the
# others run); with --start-per-round, a fresh start per row and round as before. Each scenario
# runs with wrk, sampling the server process's CPU time before and after: utime+stime in clock
# ticks (measurements.tsv cpu_ticks) and in nanoseconds (cpu_ns: the JVM's own cgroup, made per
# start when the machine allows it, else its threads' schedstat; see cpu_probe); at the
# end (or on any exit or interrupt) every JVM gets SIGTERM (SIGKILL after 10s) and its cgroup is removed.
# TLS scenarios (plaintext-tls-c256) run after the plain ones, in a second start of the server (its own K)
# with -Dspindle.tls.keystore/-Dspindle.tls.password (an EC P-256 key made once per run with
# keytool in a temp dir, removed at exit): every route checked over HTTPS, the protocol and
# cipher suite recorded (openssl s_client), a warm-up over HTTPS, then the scenarios with
# https:// URLs. A failure there fails the row's TLS scenarios only; a row that answers plain
# HTTP when started so has "no TLS" (an error for a Spindle row; noted, not an error, for the
# reference rows and --baseline twins, which may predate TLS).
# HTTP/2 scenarios (a 13th field in the table: streams per connection), driven by h2load (Debian
# nghttp2-client, installed when missing) instead of wrk, first-class rows of the same tables:
#   plaintext-h2c     GET /plaintext, h2c with prior knowledge, 64 connections x 32 streams
#   plaintext-h2c-16x64  the same on 16 connections x 64 streams
#   json-h2c          GET /json, likewise
#   delay100-h2c      GET /delay/100, 1,000 concurrent streams on 8 connections (125 each, within the
#                     128 a Spindle connection allows); its bound is 10,000 req/s, as delay100-c1000's
#   plaintext-h2-tls  GET /plaintext, h2 chosen by ALPN over TLS (h2load offers only h2), 64 x 32, in
#                     the TLS start like plaintext-tls-c256
# A cell is `h2load -D <duration> --warm-up-time 1s` (its connections open and its streams flow before
# the timed window); req/s is h2load's "finished in ..., N req/s" (the requests of the timed window over
# its length), the requests its "done", errors its "failed" (errored and timed-out streams included;
# the "socket errors" column), non-2xx its 3xx+4xx+5xx status codes; the server's CPU is sampled from
# the end of the warm-up time to h2load's exit, so CPU per request pairs with the requests counted;
# avg latency is h2load's mean "time for request", the percentiles come from its --log-file (the timed
# window's requests; the file, large, lives in the private temp directory and is deleted). Per start,
# before its warm-up, one request by h2load checks that the server speaks h2 (h2c on the plain start, h2
# by ALPN on the TLS start): a server that does not has its h2 cells n/a with h2load's words and, for a
# reference, the reason its pom gives (spindle.reference.h2) — never 0; an error for a Spindle row,
# noted for a reference or a --baseline twin. The steady-state warm-up applies to them too: a start
# whose scenarios use both generators has two steady phases, 1 s wrk windows of its first HTTP/1.1
# scenario and 1 s h2load windows of its first HTTP/2 one, each judged as below (steady = both).
# Remote scenarios (remote100-c1000, ...): before round 1 the script starts one downstream
# server, MultiLoopServer with the run's workers and JVM flags, on its own free port, for the
# whole run (one warm JVM serves every row alike; a start per round would give the first row of
# each round a cold downstream), warms it up, and starts every row with
# -Dspindle.remote=http://127.0.0.1:<its port>; it shares the machine's CPUs with the server under
# test and wrk, and is stopped at exit. Its logs: raw/downstream/. remote-tls100-c1000 (in --full and
# by --scenarios; not in the default run) calls GET /remote-tls/100, whose downstream is a second
# one, started likewise but with the run's TLS key store (raw/downstream-tls/): every row is started
# with -Dspindle.remoteTls=https://127.0.0.1:<its port> and a PKCS12 trust store of its certificate
# (-Dspindle.client.trustStore/-Dspindle.client.trustStorePassword for Spindle's client and the
# references', -Djavax.net.ssl.trustStore/-Password for the JDK's default trust), so the
# figure is remote100-c1000's with the client's TLS added. remote-h2-100-c1000 (likewise in --full
# and by --scenarios only) calls GET /remote-h2/100: the same TLS downstream, which offers h2 by
# ALPN, reached over HTTP/2, each connection multiplexing up to its 128 concurrent streams (Spindle's
# Client with http2(true); a -jdkclient row the JDK HttpClient with Version.HTTP_2; each reference
# its framework's HTTP/2 client). A row that does not serve a route (404 to the route check) has its
# scenario n/a.
# Writes raw/<server>/<scenario>-round<N>.txt, summary.csv, summary.md, charts/<scenario>.svg,
# environment.md; a run of every scenario under results/ (not results/ab/, no --baseline) also
# rewrites results/README.md to show it.
# Exit status: 0 all good; 1 a server failed to build, start, pass its checks or stay up
# (or, with --quick, had errors); 2 bad arguments.
#
# Env: SPINDLE_JVM_OPTS (replaces the JVM flags), SPINDLE_BENCH_WARMUP (a fixed warm-up, seconds),
# SPINDLE_BENCH_WARMUP_CAP, SPINDLE_BENCH_WARMUP_MIN, SPINDLE_BENCH_TREND_WINDOWS, SPINDLE_BENCH_STEADY_PCT,
# SPINDLE_BENCH_JIT_QUIET,
# SPINDLE_BENCH_REWARM (see above), SPINDLE_BENCH_PAUSE (seconds between scenarios; default 1, 0 in
# the default run),
# SPINDLE_BENCH_WRK_THREADS (default 1: on 2 cores wrk and the server share the machine).
# The report can be regenerated from a run directory: /usr/bin/python3 scripts/lib/bench.py report DIR
# (Debian's python3 with python3-matplotlib, which the script installs when missing, draws the charts)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=lib/bench-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/bench-servers.sh"
# shellcheck source-path=SCRIPTDIR source=lib/netns.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/netns.sh"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
LIB="$SCRIPTS/lib"
BENCH_PY="$LIB/bench.py"

READY_TIMEOUT=60   # seconds to wait for "listening on" (the build happens before, not in it)
STOP_TIMEOUT=10    # seconds between SIGTERM and SIGKILL
WRK_THREADS="${SPINDLE_BENCH_WRK_THREADS:-1}"
# h2load's --warm-up-time of a measured h2 cell: its connections open and its streams flow before the
# timed window (wrk has none; its connections open inside its window, one request each at a time)
H2_WARMUP=1
# Steady (judge_windows), judged per scenario of a start, with no optional stopping on a single
# comparison: every scenario gets WARMUP_MIN 1 s windows whatever they show, then it is steady once
# the least-squares trend of req/s over its last TREND_K windows, as a drift over those K windows
# (slope x K), is within +-STEADY_PCT % of their mean, and jstat counted at most JIT_QUIET methods
# compiled per window over them. K = 4 and X = 20: 1 s windows on 2 shared cores scatter by about
# 10% (sigma) one to the next, so the drift fitted over 4 of them has a standard error of ~1.8 sigma
# (sqrt(12K/(K^2-1)) sigma) ~ 18%: a tolerance under that would fail steady servers most of the time,
# one much over it would pass a server still gaining 5% a window. In the late windows of the 20 s
# fixed warm-ups of results/2026-11-26T17-08-13Z-warmup20, |drift| over 4 windows had a median of
# 8% (3 in 4 within 21%), and in each start's first windows a median of 108% (1 in 4 under 24%).
# A larger K would cost windows that the 20-minute default run does not have (6 scenarios a start).
STEADY_PCT="${SPINDLE_BENCH_STEADY_PCT:-20}"
JIT_QUIET="${SPINDLE_BENCH_JIT_QUIET:-10}"
WARMUP_MIN="${SPINDLE_BENCH_WARMUP_MIN:-}"      # windows every scenario gets first (default 4; --quick 3)
TREND_K="${SPINDLE_BENCH_TREND_WINDOWS:-}"       # windows the trend test spans (default 4; --quick 3)
REWARM="${SPINDLE_BENCH_REWARM:-1}"             # seconds of a start's first scenario before each round (one start per run)

# Scenarios: "name|method|path|connections|wrk script|script args|wrk timeout|blocking|tls|note|wait ms|open|h2 streams".
# Non-blocking scenarios keep wrk's default 2s timeout (explicit, so it is recorded); the
# blocking one needs room for 1000 connections queueing behind 100 ms sleeps. Echo uses 64
# connections: bodies up to 500 KB x 64 keep ~32 MB in flight, enough to load the server
# without measuring loopback buffer bloat. KB = 1024 bytes.
# tls 1: over HTTPS, measured in a second start of the server with the TLS properties, after
# the plain scenarios whatever its place in the list (the list's order is the tables' order).
# wait ms: how long each request waits on purpose; the report prints connections ÷ wait, the
# most req/s any server can reach, beside the figures; wrk runs it with bench-window.lua (its
# connections' first requests spread over one wait, the goodput counted in a fixed window of the
# run), h2load as it is. A scenario whose path starts with
# /remote makes the run start the downstream server (see start_downstream).
# h2 streams (field 13): an HTTP/2 scenario, driven by h2load instead of wrk, with that many
# concurrent streams per connection (h2load -m): h2c with prior knowledge on the plain start, h2
# chosen by ALPN (h2load --npn-list=h2) on the TLS start. Its bound counts streams, not connections.
SCENARIOS_FULL=(
  "plaintext-c256|GET|/plaintext|256|||2s|0|0|"
  "plaintext-c1000|GET|/plaintext|1000|||2s|0|0|"
  "plaintext-pipelined16|GET|/plaintext|256|bench-pipeline.lua|16 /plaintext|2s|0|0|16 requests pipelined per write (wrk Lua)"
  "json-c256|GET|/json|256|||2s|0|0|"
  "json-gzip-c256|GET|/users-list|256|bench-gzip.lua||2s|0|0|~2 KB of JSON (20 user records, the same bytes on every row) asked with Accept-Encoding: gzip (wrk Lua) and answered gzip-compressed by the server's own response compression (Spindle: the route's RouteOptions.compression, gzip; Netty: HttpContentCompressor); n/a on a row that does not serve GET /users-list"
  "users-c256|GET|/users/42|256|||2s|0|0|path variable"
  "echo-72B|POST|/echo|64|bench-post.lua|72|2s|0|0|72 B body (wrk Lua)"
  "echo-10KB|POST|/echo|64|bench-post.lua|10240|2s|0|0|10 KB body (wrk Lua)"
  "echo-100KB|POST|/echo|64|bench-post.lua|102400|2s|0|0|100 KB body (wrk Lua)"
  "echo-500KB|POST|/echo|64|bench-post.lua|512000|2s|0|0|500 KB body (wrk Lua)"
  "download-1MB|GET|/download|64|||2s|0|0|a 1 MiB file (Response.file; zero-copy where the strategy allows)"
  # 16 x 10 MiB in flight; 10s: one upload takes a connection ~0.5 s at 16 connections on one core
  "multipart-10MB|POST|/multipart|16|bench-multipart.lua|10485760|10s|0|0|a multipart/form-data upload of a small field and a 10 MiB file part (wrk Lua, the body made once): the server's multipart decoder stores the file on disk, reads it back for its SHA-256 and answers the size and digest (Spindle: Multipart.form() on a blocking handler; Netty: HttpPostRequestDecoder on a disk-backed DefaultHttpDataFactory, whose DiskFileUpload forces the file to disk on its last chunk); n/a on a row that does not serve POST /multipart"
  # the 1,000-connection scenarios come last: they leave an iterative server a backlog of queued connections
  "blocking100-c1000|GET|/blocking/100|1000|||10s|1|0|the route sleeps 100 ms (blocking handler)|100"
  "delay100-c1000|GET|/delay/100|1000|||10s|1|0|the route answers after 100 ms from a timer (asynchronous handler, no thread held)|100"
  "remote100-c1000|GET|/remote/100|1000|||10s|1|0|the route calls the downstream's /delay/100 with Spindle's Client (asynchronous handler, no thread held: on an event loop or ring through that loop's own keep-alive pool; a -jdkclient row uses the JDK HttpClient.sendAsync instead; a reference row, with its framework's asynchronous client)|100"
  "remote-blocking100-c1000|GET|/remote-blocking/100|1000|||10s|1|0|the route calls the downstream's /delay/100 with Spindle's Client.call (blocking handler, on its virtual thread; a -jdkclient row uses the JDK HttpClient.send; a reference row, with its framework's blocking client)|100"
  # wrk speaks plain HTTP to the row; the row speaks HTTPS to a second downstream (the run's key store)
  "remote-tls100-c1000|GET|/remote-tls/100|1000|||10s|1|0|as remote100-c1000, but the downstream (a second one) is called over HTTPS: the row's TLS client handshakes once per pooled connection and encrypts every call and answer (Spindle's Client trusting -Dspindle.client.trustStore; a -jdkclient row the JDK HttpClient with -Djavax.net.ssl.trustStore; the Netty reference its SslContextBuilder.forClient() with that store; Vert.x a second WebClient with setSsl and PfxOptions of it; Helidon SE a second WebClient whose Tls trusts it; the Spring ones a WebClient on Reactor Netty with an Http11SslContextSpec of it); n/a on a row that does not serve GET /remote-tls/{ms}|100"
  # the same TLS downstream over HTTP/2 (h2 by ALPN): few connections, up to 128 streams each
  "remote-h2-100-c1000|GET|/remote-h2/100|1000|||10s|1|0|as remote-tls100-c1000, but the row's client speaks HTTP/2 to the TLS downstream (h2 chosen by ALPN), each connection multiplexing up to the downstream's 128 concurrent streams (Spindle's Client with ClientConfig.http2(true), maxConnectionsPerDestination still bounding the connections; a -jdkclient row the JDK HttpClient with Version.HTTP_2, over 10 clients of at most 100 streams each, as one fails the calls past its connection's limit; Netty Http2FrameCodec and Http2MultiplexHandler, a stream channel per call on up to 16 connections per loop; Vert.x a WebClient with HTTP_2 and ALPN, up to 16 connections per verticle; Helidon SE its WebClient preferring h2; Spring WebFlux Reactor Netty's HttpProtocol.H2; Spring MVC a blocking RestClient on the JDK HttpClient's HTTP_2, lanes as the -jdkclient row's); n/a on a row that does not serve GET /remote-h2/{ms}|100"
  # HTTP/2 (h2load, field 13 = streams per connection): many streams on few connections
  "plaintext-h2c|GET|/plaintext|64|||2s|0|0|h2c with prior knowledge|||32"
  "plaintext-h2c-16x64|GET|/plaintext|16|||2s|0|0|h2c with prior knowledge, 16 connections x 64 streams|||64"
  "json-h2c|GET|/json|64|||2s|0|0|h2c with prior knowledge|||32"
  "delay100-h2c|GET|/delay/100|8|||10s|1|0|h2c with prior knowledge, 1,000 concurrent streams on few connections (125 each, within the 128 a connection may open), the route answering after 100 ms from a timer (asynchronous handler, no thread held)|100||125"
  # its own server start (with the key store): keep-alive connections, so one handshake each
  "plaintext-tls-c256|GET|/plaintext|256|||2s|0|1|over HTTPS (TLS; keep-alive, one handshake per connection)"
  "plaintext-h2-tls|GET|/plaintext|64|||2s|0|1|h2 over TLS chosen by ALPN (h2load offers only h2; keep-alive, one handshake per connection)|||32"
)
# --h2: the HTTP/2 scenarios (also in --full; never in the default run, which they would lengthen)
H2_SCENARIO_NAMES=plaintext-h2c,plaintext-h2c-16x64,json-h2c,delay100-h2c,plaintext-h2-tls
SCENARIOS_QUICK=(
  "plaintext-c256|GET|/plaintext|256|||2s|0|0|"
  "plaintext-pipelined16|GET|/plaintext|256|bench-pipeline.lua|16 /plaintext|2s|0|0|16 requests pipelined per write (wrk Lua)"
  "echo-10KB|POST|/echo|64|bench-post.lua|10240|2s|0|0|10 KB body (wrk Lua)"
  "blocking100-c50|GET|/blocking/100|50|||10s|1|0|the route sleeps 100 ms (blocking handler)|100"
  "delay100-c50|GET|/delay/100|50|||10s|1|0|the route answers after 100 ms from a timer (asynchronous handler)|100"
  "remote100-c50|GET|/remote/100|50|||10s|1|0|the route calls the downstream's /delay/100 with Spindle's Client (asynchronous handler; a -jdkclient row uses the JDK HttpClient.sendAsync; a reference row, with its framework's asynchronous client)|100"
  "download-1MB|GET|/download|16|||2s|0|0|a 1 MiB file (Response.file)"
  "plaintext-tls-c256|GET|/plaintext|256|||2s|0|1|over HTTPS (TLS; keep-alive, one handshake per connection)"
)

# --open-model: latency at a constant offered rate (Hyperfoil through scripts/lib/open-load.sh, latency
# counted from when each request was due), after the closed-loop scenario that gives each row's own
# maximum in the same server start. Field 12, the rate: "pct:P:SCENARIO" (P% of this row's req/s in
# SCENARIO, measured earlier in the same start) or "rate:N" (N req/s, the same for every row). The
# connections are Hyperfoil's pool: enough for rate x latency (7,500 req/s x 0.1 s = 750 in flight).
# /delay/100 keeps every rate within what the generator sustains on 2 cores (it saturates near 40k
# req/s beside a server), and is the work that waits that users choose an I/O model for.
SCENARIOS_OPEN=(
  "delay100-c1000|GET|/delay/100|1000|||10s|1|0|the route answers after 100 ms from a timer (asynchronous handler, no thread held)|100"
  "open-delay100-25pct|GET|/delay/100|1000|||10s|1|0|||pct:25:delay100-c1000"
  "open-delay100-50pct|GET|/delay/100|1000|||10s|1|0|||pct:50:delay100-c1000"
  "open-delay100-75pct|GET|/delay/100|1000|||10s|1|0|||pct:75:delay100-c1000"
  "open-delay100-3000rps|GET|/delay/100|1000|||10s|1|0|above the 2,000 req/s a 200-thread pool holding each connection can answer||rate:3000"
  "open-plaintext-10000rps|GET|/plaintext|128|||10s|0|0|CPU work at a rate every row sustains: the tail shows pauses (GC, JIT, scheduling)||rate:10000"
)

# The default run (no --quick, no --full): the scenarios that tell the I/O models apart, the waiting
# ones included, sized with the default rows and rounds to end within 20 minutes on 2 cores.
SCENARIOS_DEFAULT=()
for sc in "${SCENARIOS_FULL[@]}"; do
  case "${sc%%|*}" in
    plaintext-c256 | plaintext-pipelined16 | echo-10KB | blocking100-c1000 | delay100-c1000 | remote100-c1000)
      SCENARIOS_DEFAULT+=("$sc") ;;
  esac
done

usage() {
  echo "usage: $(basename "$0") [--quick | --full | --open-model] [--h2] [--servers A,B | --target HOST:PORT --name NAME] [--scenarios A,B] [--baseline REV] [--rounds N] [--warmup SECONDS | --warmup-cap SECONDS] [--start-per-round | --start-once] [--pin-server CPUS --pin-client CPUS] [--netns] [--no-conformance] [workers] [duration] [output_dir]   (--help for more)" >&2
  exit 2
}
help() { spindle_script_help "${BASH_SOURCE[0]}"; }


command_line="$(printf '%q ' "$0" "$@")"
command_line="${command_line% }"
quick=0 full=0 open_model=0 h2=0 servers_arg="" scenarios_arg="" baseline="" rounds="" pin_server="" pin_client="" netns=0 conformance=1
target="" target_name=""
warmup_arg="${SPINDLE_BENCH_WARMUP:-}" warmup_cap="${SPINDLE_BENCH_WARMUP_CAP:-}" starts_arg=""
positional=()
need_value() { [[ $# -ge 2 && -n "$2" && "$2" != --* ]] || { echo "error: $1 needs a value" >&2; usage; }; }
while (( $# > 0 )); do
  case "$1" in
    --quick) quick=1 ;;
    --full) full=1 ;;
    --open-model) open_model=1 ;;
    --h2) h2=1 ;;
    --servers) need_value "$@"; servers_arg="$2"; shift ;;
    --servers=*) servers_arg="${1#*=}" ;;
    --scenarios) need_value "$@"; scenarios_arg="$2"; shift ;;
    --scenarios=*) scenarios_arg="${1#*=}" ;;
    --baseline) need_value "$@"; baseline="$2"; shift ;;
    --baseline=*) baseline="${1#*=}" ;;
    --rounds) need_value "$@"; rounds="$2"; shift ;;
    --rounds=*) rounds="${1#*=}" ;;
    --pin-server) need_value "$@"; pin_server="$2"; shift ;;
    --pin-server=*) pin_server="${1#*=}" ;;
    --pin-client) need_value "$@"; pin_client="$2"; shift ;;
    --pin-client=*) pin_client="${1#*=}" ;;
    --netns) netns=1 ;;
    --target) need_value "$@"; target="$2"; shift ;;
    --target=*) target="${1#*=}" ;;
    --name) need_value "$@"; target_name="$2"; shift ;;
    --name=*) target_name="${1#*=}" ;;
    --no-conformance) conformance=0 ;;
    --warmup) need_value "$@"; warmup_arg="$2"; shift ;;
    --warmup=*) warmup_arg="${1#*=}" ;;
    --warmup-cap) need_value "$@"; warmup_cap="$2"; shift ;;
    --warmup-cap=*) warmup_cap="${1#*=}" ;;
    --start-per-round) starts_arg=per-round ;;
    --start-once) starts_arg=1 ;;
    -h | --help) help ;;
    --) shift; positional+=("$@"); break ;;
    -*) echo "error: unknown option $1" >&2; usage ;;
    *) positional+=("$1") ;;
  esac
  shift
done
(( ${#positional[@]} <= 3 )) || usage
workers="${positional[0]:-2}"
duration_arg="${positional[1]:-}"
out="${positional[2]:-}"

[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "error: workers must be a positive integer" >&2; usage; }
(( quick + full + open_model <= 1 )) || { echo "error: --quick, --full and --open-model exclude each other" >&2; usage; }
(( ! h2 || ! open_model )) || { echo "error: --h2 and --open-model exclude each other" >&2; usage; }
# --h2 selects the HTTP/2 scenarios, added to those --scenarios names (alone, only them)
(( ! h2 )) || scenarios_arg="${scenarios_arg:+$scenarios_arg,}$H2_SCENARIO_NAMES"
# Per mode: duration, rounds, the adaptive warm-up's cap, the pause between scenarios, and whether
# each row is started once for the whole run (1) or once per round (per-round).
if (( quick )); then
  mode=quick duration_arg="${duration_arg:-2}" rounds="${rounds:-1}" warmup_cap="${warmup_cap:-4}" pause_default=1 starts_default=1
  SCENARIOS=("${SCENARIOS_QUICK[@]}")
elif (( full )); then
  # every row and its TLS twin alive at once would be 40 JVMs: a start per round keeps one at a time
  mode=full duration_arg="${duration_arg:-10}" rounds="${rounds:-3}" warmup_cap="${warmup_cap:-7}" pause_default=1 starts_default=per-round
  SCENARIOS=("${SCENARIOS_FULL[@]}")
elif (( open_model )); then
  mode=open-model duration_arg="${duration_arg:-8}" rounds="${rounds:-3}" warmup_cap="${warmup_cap:-7}" pause_default=1 starts_default=1
  SCENARIOS=("${SCENARIOS_OPEN[@]}")
else
  mode=default duration_arg="${duration_arg:-2}" rounds="${rounds:-3}" warmup_cap="${warmup_cap:-7}" pause_default=0 starts_default=1
  SCENARIOS=("${SCENARIOS_DEFAULT[@]}")
fi
PAUSE="${SPINDLE_BENCH_PAUSE:-$pause_default}"
starts_per_server="${starts_arg:-$starts_default}"
# --warmup SECONDS (or SPINDLE_BENCH_WARMUP): a fixed warm-up of that many 1 s windows; else adaptive.
if [[ -n "$warmup_arg" ]]; then warmup_mode=fixed warmup="$warmup_arg"; else warmup_mode=adaptive warmup="$warmup_cap"; fi
if [[ -n "$scenarios_arg" ]]; then
  picked=()
  IFS=',' read -r -a wanted <<<"$scenarios_arg"
  for w in "${wanted[@]}"; do
    w="${w//[[:space:]]/}"
    [[ -n "$w" ]] || continue
    found=""
    for sc in "${SCENARIOS_FULL[@]}" "${SCENARIOS_QUICK[@]}" "${SCENARIOS_OPEN[@]}"; do
      [[ "${sc%%|*}" == "$w" ]] && { found="$sc"; break; }
    done
    if [[ -z "$found" ]]; then
      echo "error: unknown scenario '$w'. Known scenarios:" >&2
      for sc in "${SCENARIOS_FULL[@]}" "${SCENARIOS_QUICK[@]}" "${SCENARIOS_OPEN[@]}"; do echo "  ${sc%%|*}"; done | sort -u >&2
      exit 2
    fi
    [[ " ${picked[*]%%|*} " == *" $w "* ]] || picked+=("$found")   # named twice (or by --h2 too): once
  done
  (( ${#picked[@]} > 0 )) || { echo "error: --scenarios names no scenario" >&2; usage; }
  SCENARIOS=("${picked[@]}")
fi
# --target: a server that runs elsewhere, one row, none of the options that start or shape servers.
target_host_arg="" target_port=""
if [[ -n "$target$target_name" ]]; then
  [[ -n "$target" && -n "$target_name" ]] || { echo "error: --target and --name go together" >&2; usage; }
  [[ "$target" =~ ^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$ ]] && (( 10#${BASH_REMATCH[2]} >= 1 && 10#${BASH_REMATCH[2]} <= 65535 )) ||
    { echo "error: --target must be HOST:PORT, not '$target'" >&2; usage; }
  target_host_arg="${BASH_REMATCH[1]}" target_port="$(( 10#${BASH_REMATCH[2]} ))"
  [[ "$target_name" =~ ^[A-Za-z0-9][A-Za-z0-9._@-]*$ ]] || { echo "error: --name must be letters, digits and ._@- (a file name)" >&2; usage; }
  [[ -z "$servers_arg$baseline$pin_server" ]] && (( ! netns )) ||
    { echo "error: --target measures a running server: --servers, --baseline, --pin-server and --netns do not apply" >&2; usage; }
  kept=() dropped=()
  for sc in "${SCENARIOS[@]}"; do
    IFS='|' read -r -a f <<<"$sc"
    if [[ "${f[2]}" == /remote* || "${f[8]}" == 1 ]]; then dropped+=("${f[0]}"); else kept+=("$sc"); fi
  done
  (( ${#kept[@]} > 0 )) || { echo "error: every selected scenario needs a downstream or a TLS start, which --target cannot give" >&2; usage; }
  (( ${#dropped[@]} == 0 )) || echo "--target: left out ${dropped[*]} (they need a downstream or a TLS start of the server)" >&2
  SCENARIOS=("${kept[@]}")
fi
# Each server start runs one of these lists: the plain scenarios, then (a second start) the TLS ones.
PLAIN_SCENARIOS=() TLS_SCENARIOS=()
DOWNSTREAM_CLASS=MultiLoopServer
DOWNSTREAM_WARMUP=5   # seconds of /delay/1 before the first row; the rows' remote scenarios keep it warm
(( ! quick )) || DOWNSTREAM_WARMUP=1
need_downstream=0   # 1 when a selected scenario calls the downstream (its path starts with /remote)
need_tls_downstream=0   # 1 when one calls the downstream over HTTPS (/remote-tls, /remote-h2): a second downstream, with TLS
need_h2_route=0   # 1 when one calls it over HTTP/2 (/remote-h2): the start's route check asks for that route too
for sc in "${SCENARIOS[@]}"; do
  IFS='|' read -r -a f <<<"$sc"
  [[ "${f[2]}" != /remote* ]] || need_downstream=1
  [[ "${f[2]}" != /remote-tls/* && "${f[2]}" != /remote-h2/* ]] || need_tls_downstream=1
  [[ "${f[2]}" != /remote-h2/* ]] || need_h2_route=1
  if [[ "${f[8]}" == 1 ]]; then TLS_SCENARIOS+=("$sc"); else PLAIN_SCENARIOS+=("$sc"); fi
done
case "$duration_arg" in
  *[!0-9sm]* | "" | [sm]*) echo "error: duration must look like 10, 10s or 1m" >&2; usage ;;
  *m) duration=$(( 10#${duration_arg%m} * 60 )) ;;
  *s) duration=$(( 10#${duration_arg%s} )) ;;
  *) duration=$(( 10#$duration_arg )) ;;
esac
(( duration >= 1 )) || { echo "error: duration must be at least 1s" >&2; usage; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "error: --rounds must be a positive integer" >&2; usage; }
if (( quick )); then WARMUP_MIN="${WARMUP_MIN:-3}" TREND_K="${TREND_K:-3}"; else WARMUP_MIN="${WARMUP_MIN:-4}" TREND_K="${TREND_K:-4}"; fi
for n in "$warmup" "$warmup_cap" "$PAUSE" "$WRK_THREADS" "$STEADY_PCT" "$JIT_QUIET" "$WARMUP_MIN" "$TREND_K" "$REWARM"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "error: --warmup, --warmup-cap and SPINDLE_BENCH_* values must be whole numbers" >&2; usage; }
done
(( warmup_cap >= 1 )) || { echo "error: --warmup-cap must be at least 1 s" >&2; usage; }
(( TREND_K >= 2 && WARMUP_MIN >= 1 )) || { echo "error: SPINDLE_BENCH_TREND_WINDOWS must be >= 2 and SPINDLE_BENCH_WARMUP_MIN >= 1" >&2; usage; }
(( WRK_THREADS >= 1 )) || { echo "error: SPINDLE_BENCH_WRK_THREADS must be >= 1" >&2; usage; }

baseline_rev="" baseline_sha=""
if [[ -n "$baseline" ]]; then
  baseline_sha="$(git -C "$SPINDLE_ROOT" rev-parse --verify -q "$baseline^{commit}")" ||
    { echo "error: --baseline $baseline is not a commit of this repository" >&2; usage; }
  baseline_rev="$(git -C "$SPINDLE_ROOT" rev-parse --short "$baseline_sha")"
fi

pin_server_cmd=() pin_client_cmd=()
if [[ -n "$pin_server" ]]; then
  taskset -c "$pin_server" true 2>/dev/null || { echo "error: taskset -c $pin_server fails on this machine" >&2; usage; }
  pin_server_cmd=(taskset -c "$pin_server")
fi
if [[ -n "$pin_client" ]]; then
  taskset -c "$pin_client" true 2>/dev/null || { echo "error: taskset -c $pin_client fails on this machine" >&2; usage; }
  pin_client_cmd=(taskset -c "$pin_client")
fi
# What starts a server JVM, and what runs a client (wrk, the route checks, openssl): pinning, then
# (--netns) the namespace; taskset and `ip netns exec` both exec in place, so a server's PID is its
# JVM's. The downstream runs beside the server, in its namespace when there is one, unpinned.
server_cmd=("${pin_server_cmd[@]}") client_cmd=("${pin_client_cmd[@]}") downstream_cmd=()
target_host=127.0.0.1   # where clients reach a server

stamp="$(date -u +%Y-%m-%dT%H-%M-%SZ)"
if [[ -z "$out" ]]; then
  if (( quick )); then
    out="${TMPDIR:-/tmp}/spindle-bench-quick-$stamp"   # smoke runs never land in results/
  elif [[ -n "$baseline" ]]; then
    out="$SPINDLE_ROOT/results/ab/$stamp-vs-$baseline_rev"
  else
    out="$SPINDLE_ROOT/results/$stamp"
  fi
fi


command -v wrk >/dev/null 2>&1 || spindle_ensure_packages wrk
# h2load (Debian nghttp2-client) drives the HTTP/2 scenarios
h2_selected=0
for sc in "${SCENARIOS[@]}"; do [[ -z "$(cut -d'|' -f13 <<<"$sc")" ]] || h2_selected=1; done
(( ! h2_selected )) || command -v h2load >/dev/null 2>&1 || spindle_ensure_packages nghttp2-client
spindle_python
# openssl s_client records what a TLS scenario negotiates (wrk itself uses the same libssl).
(( ${#TLS_SCENARIOS[@]} == 0 )) || command -v openssl >/dev/null 2>&1 || spindle_ensure_packages openssl
spindle_find_jdk
spindle_java_opts
CLK_TCK="$(getconf CLK_TCK)"
# wrk at 1000 connections and the servers serving them need more than the usual 1024 fds.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
open_files="$(ulimit -n)"
[[ "$open_files" =~ ^[0-9]+$ ]] || open_files=65536
DOWNSTREAM_MAX_CONNECTIONS=$(( open_files > 2000 ? open_files - 1000 : 1000 ))


server_pid="" child_pid="" snapshot="" downstream_pid="" downstream_port="" jstat_pid=""
downstream_tls_pid="" downstream_tls_port=""
# The server JVMs alive now, by "<row>/<plain|tls>": with one start per run every row's stays up
# until the end, so cleanup stops each of them (by PID) on any exit.
declare -A live_pid=() live_port=() live_start=()

# Runs a command in the background and waits for it, so a signal to this script is handled
# at once (bash runs traps only between commands) and the trap can end the child by PID.
run_child() {
  "$@" &
  child_pid=$!
  local rc=0
  wait "$child_pid" || rc=$?
  child_pid=""
  return "$rc"
}

server_alive() { [[ -z "$target" ]] || return 0; spindle_pid_alive "$server_pid"; }

# utime+stime (fields 14 and 15) of a process, in clock ticks; all its threads included.
# Fields are counted after the last ')' since the command name may hold spaces.
cpu_ticks() {
  local stat f
  [[ -n "$1" ]] || { echo "-"; return 0; }   # no process of ours (--target)
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || { echo "-"; return 0; }
  read -r -a f <<<"${stat##*) }"
  echo $(( f[11] + f[12] ))
}

# The server JVM's CPU time in nanoseconds (measurements.tsv cpu_ns, beside cpu_ticks), by the best
# method this machine allows, probed once per run (cpu_probe; meta.tsv cpu_method, environment.md):
#   cgroup-v1  a cpuacct cgroup of its own per server start (spindle-bench-<script pid>-<JVM pid>), the
#              JVM moved into it right after launch (cgroup.procs: all its threads, and new ones inherit),
#              cpuacct.usage (ns) read around each cell; threads that exit stay counted
#   cgroup-v2  the same under the cgroup2 hierarchy (a child of this script's cgroup), cpu.stat
#              usage_usec x 1000 (µs resolution)
#   schedstat  the sum of field 1 (ns on CPU) of /proc/<pid>/task/*/schedstat: a cell's figure only when
#              no thread came or went during it (the task lists before and after compared), else "-"
#              (that cell falls back to its ticks)
#   ticks      none ("-"): cpu_ticks alone
# A start whose cgroup cannot be made or joined falls back to schedstat, silently (a clean CI machine
# may have no cgroup write access). The downstream is never in a server's cgroup.
cpu_method=ticks cg_root="" cg_file="" cg_mult=1
declare -A cg_of=()   # JVM pid -> its cgroup directory
cpu_probe() {
  cpu_method=ticks cg_root="" cg_file=""
  local probe mnt rel
  if [[ -r /sys/fs/cgroup/cpuacct/cpuacct.usage ]]; then
    probe="/sys/fs/cgroup/cpuacct/spindle-bench-$$-probe"
    if mkdir "$probe" 2>/dev/null; then
      if [[ -r "$probe/cpuacct.usage" && -w "$probe/cgroup.procs" ]]; then
        cpu_method=cgroup-v1 cg_root=/sys/fs/cgroup/cpuacct cg_file=cpuacct.usage cg_mult=1
      fi
      rmdir "$probe" 2>/dev/null || true
    fi
  fi
  if [[ "$cpu_method" == ticks ]]; then
    mnt="$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts 2>/dev/null || true)"
    rel="$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null | head -n 1)"
    if [[ -n "$mnt" && -r "$mnt${rel%/}/cpu.stat" ]]; then
      probe="$mnt${rel%/}/spindle-bench-$$-probe"
      if mkdir "$probe" 2>/dev/null; then
        if grep -q '^usage_usec ' "$probe/cpu.stat" 2>/dev/null && [[ -w "$probe/cgroup.procs" ]]; then
          cpu_method=cgroup-v2 cg_root="$mnt${rel%/}" cg_file=cpu.stat cg_mult=1000
        fi
        rmdir "$probe" 2>/dev/null || true
      fi
    fi
  fi
  if [[ "$cpu_method" == ticks ]] && read -r _ </proc/self/schedstat 2>/dev/null; then cpu_method=schedstat; fi
}
# Moves JVM $1 into a cgroup of its own (cgroup methods); on any failure it is left where it was and
# its cells use schedstat.
cpu_track() {
  [[ -n "$1" && -n "$cg_root" ]] || return 0
  local dir="$cg_root/spindle-bench-$$-$1"
  mkdir "$dir" 2>/dev/null || return 0
  if echo "$1" >"$dir/cgroup.procs" 2>/dev/null; then cg_of[$1]="$dir"; else rmdir "$dir" 2>/dev/null || true; fi
}
# Removes the cgroup of JVM $1 (after it exited; a moment's retry while the kernel lets go of its tasks).
cpu_untrack() {
  local dir="${cg_of[$1]:-}" i
  [[ -n "$dir" ]] || return 0
  unset "cg_of[$1]"
  for (( i = 0; i < 20; i++ )); do rmdir "$dir" 2>/dev/null && return 0; sleep 0.1; done
}
cpu_untrack_all() { local p; for p in "${!cg_of[@]}"; do cpu_untrack "$p"; done; }
# A CPU sample of JVM $1 in nanoseconds: "ns" (cgroup) or "ns tids" (schedstat: the tids joined by
# commas, compared by cpu_ns_delta), or "-" when there is none.
cpu_ns_sample() {
  local pid="$1" dir v f line sum=0 tids=""
  [[ -n "$pid" ]] || { echo "-"; return 0; }
  dir="${cg_of[$pid]:-}"
  if [[ -n "$dir" ]]; then
    if [[ "$cg_file" == cpu.stat ]]; then v="$(awk '$1 == "usage_usec" { print $2 }' "$dir/cpu.stat" 2>/dev/null)"
    else { read -r v <"$dir/$cg_file"; } 2>/dev/null || v=""; fi
    if [[ "$v" =~ ^[0-9]+$ ]]; then echo $(( v * cg_mult )); else echo "-"; fi
    return 0
  fi
  [[ "$cpu_method" != ticks ]] || { echo "-"; return 0; }
  for f in /proc/"$pid"/task/*/schedstat; do
    { read -r line <"$f"; } 2>/dev/null || continue
    sum=$(( sum + ${line%% *} ))
    f="${f%/schedstat}" tids+="${f##*/},"
  done
  [[ -n "$tids" ]] || { echo "-"; return 0; }
  echo "$sum $tids"
}
# The nanoseconds between samples $1 and $2, or "-" (no sample, or a schedstat sum whose threads changed).
cpu_ns_delta() {
  [[ "$1" != - && "$2" != - ]] || { echo "-"; return 0; }
  local a="${1%% *}" b="${2%% *}" ta="" tb=""
  [[ "$1" != *" "* ]] || ta="${1#* }"
  [[ "$2" != *" "* ]] || tb="${2#* }"
  [[ "$ta" == "$tb" ]] || { echo "-"; return 0; }
  (( b >= a )) || { echo "-"; return 0; }
  echo $(( b - a ))
}

stop_forced=0
# Stops the server we started, by its PID only: SIGTERM, then SIGKILL after STOP_TIMEOUT.
stop_server() {
  stop_forced=0
  [[ -n "$server_pid" ]] || return 0
  local pid="$server_pid"
  server_pid=""
  spindle_stop_pid "$pid" "$STOP_TIMEOUT"
  stop_forced="$SPINDLE_STOP_FORCED"
  cpu_untrack "$pid"
}

# Stops the downstream servers we started (plain and TLS), by their PIDs only, like stop_server.
stop_downstream() {
  local pid
  if [[ -n "$downstream_pid" ]]; then
    pid="$downstream_pid" downstream_pid=""
    spindle_stop_pid "$pid" "$STOP_TIMEOUT"
  fi
  if [[ -n "$downstream_tls_pid" ]]; then
    pid="$downstream_tls_pid" downstream_tls_pid=""
    spindle_stop_pid "$pid" "$STOP_TIMEOUT"
  fi
}

# Stops every server JVM still alive: SIGTERM to all first, so they wind down together.
stop_all_servers() {
  local key
  for key in "${!live_pid[@]}"; do kill -TERM "${live_pid[$key]}" 2>/dev/null || true; done
  for key in "${!live_pid[@]}"; do spindle_stop_pid "${live_pid[$key]}" "$STOP_TIMEOUT"; cpu_untrack "${live_pid[$key]}"; unset "live_pid[$key]"; done
}

stop_jstat() {
  [[ -n "$jstat_pid" ]] || return 0
  kill -TERM "$jstat_pid" 2>/dev/null || true
  wait "$jstat_pid" 2>/dev/null || true
  jstat_pid=""
}

cleanup() {
  [[ -z "$child_pid" ]] || kill -TERM "$child_pid" 2>/dev/null || true
  stop_jstat
  stop_server
  stop_all_servers
  stop_downstream
  cpu_untrack_all
  spindle_netns_remove
  [[ -z "$snapshot" ]] || rm -rf "$snapshot"
}
trap cleanup EXIT
interrupted() {
  if [[ -e "$out/measurements.tsv" ]]; then
    echo "interrupted; partial run in $out (report: $SPINDLE_PYTHON $BENCH_PY report $out)" >&2
  fi
  exit "$1"
}
trap 'interrupted 130' INT
trap 'interrupted 143' TERM

isolation="loopback: server and clients in the host's network namespace, over 127.0.0.1"
if (( netns )); then
  spindle_netns_pair bench
  server_cmd+=(ip netns exec "$SPINDLE_NETNS_SERVER")
  client_cmd+=(ip netns exec "$SPINDLE_NETNS_CLIENT")
  downstream_cmd=(ip netns exec "$SPINDLE_NETNS_SERVER")
  target_host="$SPINDLE_NETNS_SERVER_ADDR"
  isolation="netns: server in namespace $SPINDLE_NETNS_SERVER, clients in $SPINDLE_NETNS_CLIENT, over a veth pair"
fi
if [[ -n "$target" ]]; then
  target_host="$target_host_arg"
  isolation="remote target: $target, a server started elsewhere (not started, stopped or CPU-sampled here); client on host $(hostname)"
fi


# Parallel arrays, one entry per selected row.
row_names=() row_classes=() row_props=() row_workers=()
declare -A row_index=()
add_row() {   # "name|class|props[|workers]"
  local f=()
  IFS='|' read -r -a f <<<"$1"
  [[ -z "${row_index[${f[0]}]:-}" ]] || return 0   # listed twice: once is enough
  row_index[${f[0]}]="${#row_names[@]}"
  row_names+=("${f[0]}") row_classes+=("${f[1]}") row_props+=("${f[2]:-}") row_workers+=("${f[3]:-}")
}
# The workers a row's server is started with: its own count if the list gives one, else the run's.
workers_of() { local w="${row_workers[${row_index[$1]}]}"; echo "${w:-$workers}"; }

declare -A explicit=()   # rows asked for by name: a missing class is a failure, not a skip
row_for() {   # prints the list rows whose display name (or else class) is $1
  local row found=0
  for row in "${SPINDLE_BENCH_SERVERS[@]}"; do
    [[ "${row%%|*}" == "$1" ]] && { echo "$row"; return 0; }
  done
  for row in "${SPINDLE_BENCH_SERVERS[@]}"; do
    local rest="${row#*|}"
    [[ "${rest%%|*}" == "$1" ]] && { echo "$row"; found=1; }
  done
  (( found ))
}
# A subshell: spindle_find_server exits (status 2) when the class is missing.
class_exists() { (spindle_find_server "$1") >/dev/null 2>&1; }

if [[ -n "$target" ]]; then
  add_row "$target_name|-|"
elif [[ -n "$servers_arg" ]]; then
  IFS=',' read -r -a wanted <<<"$servers_arg"
  for w in "${wanted[@]}"; do
    w="${w//[[:space:]]/}"
    [[ -n "$w" ]] || continue
    if matched="$(row_for "$w")"; then
      while IFS= read -r row; do add_row "$row"; explicit["${row%%|*}"]=1; done <<<"$matched"
    elif [[ "$w" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && class_exists "$w"; then
      add_row "$w|$w|"; explicit[$w]=1   # a server class not in the list yet: plain row
    else
      echo "error: unknown server '$w'. Known rows:" >&2
      for row in "${SPINDLE_BENCH_SERVERS[@]}"; do echo "  ${row%%|*}" >&2; done
      exit 2
    fi
  done
  (( ${#row_names[@]} > 0 )) || { echo "error: --servers names no server" >&2; usage; }
elif (( quick )); then
  for group in "${SPINDLE_BENCH_QUICK_SERVERS[@]}"; do
    ok=1
    for name in $group; do
      row="$(row_for "$name" | head -n 1)"; rest="${row#*|}"
      class_exists "${rest%%|*}" || { ok=0; break; }
    done
    if (( ok )); then
      for name in $group; do add_row "$(row_for "$name" | head -n 1)"; done
      break
    fi
  done
  (( ${#row_names[@]} > 0 )) || spindle_die "none of the --quick server groups exists in the tree"
elif (( full )); then
  for row in "${SPINDLE_BENCH_SERVERS[@]}"; do add_row "$row"; done
elif (( open_model )); then
  for name in "${SPINDLE_BENCH_OPEN_SERVERS[@]}"; do add_row "$(row_for "$name" | head -n 1)"; done
else
  for name in "${SPINDLE_BENCH_DEFAULT_SERVERS[@]}"; do add_row "$(row_for "$name" | head -n 1)"; done
fi

# Class -> module, and one build per module, before any timing starts.
declare -A row_module=() row_fqcn=() module_cp=() row_failure=()
skipped=()
run_rows=()
for i in "${!row_names[@]}"; do
  name="${row_names[$i]}" class="${row_classes[$i]}"
  if [[ -n "$target" ]]; then
    run_rows+=("$name")
  elif found="$(spindle_find_server "$class" 2>/dev/null)"; then
    row_module[$name]="${found%% *}" row_fqcn[$name]="${found#* }"
    run_rows+=("$name")
  elif [[ -n "${explicit[$name]:-}" ]]; then
    row_failure[$name]="not-built|class $class is not in the tree"
    run_rows+=("$name")
  else
    skipped+=("$name (class $class not in the tree yet)")
  fi
done
if (( ${#skipped[@]} > 0 )); then
  echo "skipping ${#skipped[@]} server row(s) whose class does not exist:" >&2
  printf '  %s\n' "${skipped[@]}" >&2
fi

# Spindle's own classes and jars are copied once (spindle_snapshot_cp), per module.
snapshot="$(mktemp -d -t spindle-bench-classes.XXXXXX)"
for name in "${run_rows[@]}"; do
  [[ -z "${row_failure[$name]:-}" && -z "$target" ]] || continue
  module="${row_module[$name]}"
  if [[ -z "${module_cp[$module]+x}" ]]; then
    echo "resolving the classpath of $module (builds it if sources changed) ..." >&2
    # In a subshell spindle_die ends only the substitution: one broken module spoils its rows only.
    if cp="$(spindle_classpath "$module")"; then
      module_cp[$module]="$(spindle_snapshot_cp "$cp" "$snapshot/$module")"
    else
      module_cp[$module]=""
    fi
  fi
  [[ -n "${module_cp[$module]}" ]] || row_failure[$name]="build-failed|module $module did not build (see the Maven output above)"
done

# The downstream of the remote scenarios: its module's classes, resolved (and snapshot) like a row's.
downstream_fqcn="" downstream_cp=""
if (( need_downstream )); then
  found="$(spindle_find_server "$DOWNSTREAM_CLASS" 2>/dev/null)" ||
    spindle_die "the remote scenarios need $DOWNSTREAM_CLASS as their downstream, and it is not in the tree"
  module="${found%% *}" downstream_fqcn="${found#* }"
  if [[ -z "${module_cp[$module]+x}" ]]; then
    echo "resolving the classpath of $module for the downstream ..." >&2
    if cp="$(spindle_classpath "$module")"; then
      module_cp[$module]="$(spindle_snapshot_cp "$cp" "$snapshot/$module")"
    else
      module_cp[$module]=""
    fi
  fi
  downstream_cp="${module_cp[$module]}"
  [[ -n "$downstream_cp" ]] || spindle_die "module $module (the downstream $DOWNSTREAM_CLASS) did not build"
fi

# The open-model scenarios' generator (Hyperfoil, a Maven project of its own) is built now: a client in
# its own namespace has no network to download it from, and no build may run while servers are measured.
for sc in "${SCENARIOS[@]}"; do
  IFS='|' read -r -a f <<<"$sc"
  if [[ -n "${f[11]:-}" ]]; then
    "$LIB/open-load.sh" --prepare || spindle_die "the open-model load generator (tools/open-model) did not build"
    break
  fi
done

# The conformance check's classes (the conformance module), built now for the same reasons.
if (( conformance )); then
  "$SCRIPTS/conformance-check.sh" --prepare || spindle_die "the conformance check (the conformance module) did not build"
fi

# The baseline: its own export and build, so nothing it compiles or installs touches this tree or
# ~/.m2 (a reactor build resolves its modules to each other's target/ directories).
declare -A row_cp_key=() baseline_of=() row_checks=()
if [[ -n "$baseline" ]]; then
  base_dir="$snapshot/baseline-$baseline_rev"
  mkdir -p "$base_dir"
  git -C "$SPINDLE_ROOT" archive "$baseline_sha" | tar -x -C "$base_dir" ||
    spindle_die "could not export $baseline_rev"
  echo "building the baseline $baseline_rev (a private copy) ..." >&2
  if (cd "$base_dir" && SPINDLE_ROOT="$base_dir" _spindle_mvn_quiet -DskipTests package dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile=target/classpath.txt >&2); then
    base_built=1
  else
    base_built=0
    echo "the baseline $baseline_rev did not build; its rows fail" >&2
  fi
  with_twins=()
  for name in "${run_rows[@]}"; do
    with_twins+=("$name")
    [[ -z "${row_failure[$name]:-}" ]] || continue
    i="${row_index[$name]}" twin="$name@$baseline_rev"
    add_row "$twin|${row_classes[$i]}|${row_props[$i]}|${row_workers[$i]}"
    with_twins+=("$twin")
    baseline_of[$twin]="$name"
    module="${row_module[$name]}"
    if (( ! base_built )); then
      row_failure[$twin]="build-failed|the baseline $baseline_rev did not build"
    elif ! found="$(SPINDLE_ROOT="$base_dir" spindle_find_server "${row_classes[$i]}" 2>/dev/null)"; then
      row_failure[$twin]="not-built|class ${row_classes[$i]} is not in $baseline_rev"
    elif [[ ! -f "$base_dir/${found%% *}/target/classpath.txt" ]]; then
      row_failure[$twin]="build-failed|no classpath for ${found%% *} in $baseline_rev"
    else
      module="${found%% *}"
      row_module[$twin]="$module" row_fqcn[$twin]="${found#* }" row_cp_key[$twin]="$module@$baseline_rev"
      # The baseline is checked against the routes of its own time.
      [[ ! -f "$base_dir/scripts/lib/bench.py" ]] || row_checks[$twin]="$base_dir/scripts/lib/bench.py"
      module_cp[$module@$baseline_rev]="$base_dir/$module/target/classes:$(tr -d '\r\n' <"$base_dir/$module/target/classpath.txt")"
      # The twin must load the baseline's Spindle classes only, never this tree's or ~/.m2's.
      if tr ':' '\n' <<<"${module_cp[$module@$baseline_rev]}" | grep -q -e "^$SPINDLE_ROOT/" -e '/repository/dev/spindle/'; then
        row_failure[$twin]="build-failed|the baseline's classpath of $module names Spindle classes outside $base_dir"
      fi
    fi
  done
  run_rows=("${with_twins[@]}")
fi

# The TLS scenarios' key (and the TLS downstream's): made once per run, in the private directory
# removed at exit, so it is never in the output directory (which may be committed). The password is
# per run too. The remote-tls scenario's rows trust its certificate from a trust store made from it.
TLS_PROPS=() tls_key_desc="" KEY_PROPS=() TRUST_PROPS=()
if (( ${#TLS_SCENARIOS[@]} > 0 || need_tls_downstream )); then
  tls_dir="$snapshot/tls"
  mkdir -m 700 "$tls_dir"
  tls_password="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  tls_key_desc="$("$JAVA_HOME/bin/keytool" -genkeypair -alias spindle-bench -keyalg EC -groupname secp256r1 \
    -dname CN=localhost -ext SAN=ip:127.0.0.1,ip:$SPINDLE_NETNS_SERVER_ADDR -storetype PKCS12 -validity 2 \
    -keystore "$tls_dir/keystore.p12" -storepass "$tls_password" 2>&1)" ||
    spindle_die "keytool could not make the TLS scenarios' key store: $tls_key_desc"
  # "Generating 256-bit EC (secp256r1) key pair and self-signed certificate (SHA384withECDSA) ..."
  tls_key_desc="$(sed -n 's/^Generating //p' <<<"$tls_key_desc" | head -n 1)"
  KEY_PROPS=("-Dspindle.tls.keystore=$tls_dir/keystore.p12" "-Dspindle.tls.password=$tls_password")
  (( ${#TLS_SCENARIOS[@]} == 0 )) || TLS_PROPS=("${KEY_PROPS[@]}")
fi
if (( need_tls_downstream )); then
  trust_log="$("$JAVA_HOME/bin/keytool" -exportcert -rfc -alias spindle-bench -keystore "$tls_dir/keystore.p12" \
    -storepass "$tls_password" -file "$tls_dir/downstream.pem" 2>&1 &&
    "$JAVA_HOME/bin/keytool" -importcert -noprompt -alias spindle-downstream -file "$tls_dir/downstream.pem" \
      -storetype PKCS12 -keystore "$tls_dir/trust.p12" -storepass "$tls_password" 2>&1)" ||
    spindle_die "keytool could not make the TLS downstream's trust store: $trust_log"
  # Spindle's client reads the first pair; the JDK's default trust (HttpClient, and the references'
  # clients that take no store of their own) the second
  TRUST_PROPS=("-Dspindle.client.trustStore=$tls_dir/trust.p12" "-Dspindle.client.trustStorePassword=$tls_password"
    "-Djavax.net.ssl.trustStore=$tls_dir/trust.p12" "-Djavax.net.ssl.trustStorePassword=$tls_password")
fi

if [[ -e "$out/measurements.tsv" ]]; then
  spindle_die "$out already holds a run; pick another output_dir"
fi
mkdir -p "$out/raw"
out="$(cd "$out" && pwd -P)"
run_id="$(basename "$out")"

if [[ -n "$target" ]]; then cpu_method=none; else cpu_probe; fi
case "$cpu_method" in
  cgroup-v1) cpu_method_text="cgroup-v1: a cpuacct cgroup per server start ($cg_root/spindle-bench-<script pid>-<JVM pid>), the JVM moved into it right after launch, cpuacct.usage (ns) read before and after each cell; the cgroup removed when the server stops" ;;
  cgroup-v2) cpu_method_text="cgroup-v2: a cgroup per server start ($cg_root/spindle-bench-<script pid>-<JVM pid>), the JVM moved into it right after launch, cpu.stat usage_usec (µs) read before and after each cell; the cgroup removed when the server stops" ;;
  schedstat) cpu_method_text="schedstat: the sum of field 1 (ns on CPU) of /proc/<pid>/task/*/schedstat before and after each cell (no cgroup could be made here); a cell during which a thread came or went has no cpu_ns (its ticks stand)" ;;
  none) cpu_method_text="none: --target has no server process here" ;;
  *) cpu_method_text="ticks only: neither a cgroup nor /proc/<pid>/task/*/schedstat is available; cpu_ns is empty" ;;
esac

tsv() { local IFS=$'\t'; local -a clean=("${@//$'\t'/ }"); clean=("${clean[@]//$'\n'/ }"); echo "${clean[*]}"; }

{
  tsv run_id "$run_id"
  tsv started "$(date -u '+%Y-%m-%d %H:%M:%S')"
  tsv quick "$quick"
  tsv mode "$mode"
  tsv rounds "$rounds"
  tsv duration "$duration"
  tsv warmup "$warmup"
  tsv warmup_mode "$warmup_mode"
  tsv warmup_cap "$(if [[ "$warmup_mode" == fixed ]]; then echo "$warmup"; else echo "$warmup_cap"; fi)"
  tsv steady_pct "$STEADY_PCT"
  tsv jit_quiet "$JIT_QUIET"
  tsv warmup_pass 0
  tsv warmup_min "$WARMUP_MIN"
  tsv trend_windows "$TREND_K"
  tsv rewarm "$(if [[ "$starts_per_server" == 1 ]]; then echo "$REWARM"; else echo 0; fi)"
  tsv starts_per_server "$starts_per_server"
  tsv pause "$PAUSE"
  tsv workers "$workers"
  tsv wrk_threads "$WRK_THREADS"
  tsv clk_tck "$CLK_TCK"
  tsv cpu_method "$cpu_method"
  # what a server JVM's availableProcessors() reports (frameworks size pools by it)
  tsv isolation "$isolation"
  tsv pin_server "$pin_server"
  tsv pin_client "$pin_client"
  tsv server_cpus "$(if [[ -n "$pin_server" ]]; then taskset -c "$pin_server" nproc; else nproc; fi)"
  skipped_text="$(printf '%s; ' "${skipped[@]}")"
  tsv skipped "${skipped_text%; }"
  tsv command "$command_line"
  tsv tls_key "$tls_key_desc"
} >"$out/meta.tsv"

# A reference row: its class lives under references/ or is one of SPINDLE_BENCH_REFERENCE_CLASSES
# (a --baseline twin never is: it is measured against its own row).
is_reference() {
  local name="$1" i c
  i="${row_index[$name]}"
  [[ -z "${baseline_of[$name]:-}" ]] || return 1
  [[ "${row_module[$name]:-}" == references/* ]] && return 0
  for c in "${SPINDLE_BENCH_REFERENCE_CLASSES[@]}"; do
    [[ "${row_classes[$i]}" == "$c" ]] && return 0
  done
  return 1
}

# The framework and version a reference module declares in its pom (spindle.reference.framework,
# e.g. "Netty ${netty.version}"), its ${...} resolved from the module's, references/ and the root
# pom's properties; empty when it declares none.
reference_framework() {
  local module="$1" value prop resolved pom
  value="$(sed -n 's|.*<spindle.reference.framework>\(.*\)</spindle.reference.framework>.*|\1|p' \
    "$SPINDLE_ROOT/$module/pom.xml" 2>/dev/null | head -n 1)"
  while [[ "$value" =~ \$\{([A-Za-z0-9_.-]+)\} ]]; do
    prop="${BASH_REMATCH[1]}" resolved=""
    for pom in "$SPINDLE_ROOT/$module/pom.xml" "$SPINDLE_ROOT/references/pom.xml" "$SPINDLE_ROOT/pom.xml"; do
      resolved="$(sed -n "s|.*<$prop>\(.*\)</$prop>.*|\1|p" "$pom" 2>/dev/null | head -n 1)"
      [[ -n "$resolved" ]] && break
    done
    value="${value//"\${$prop}"/${resolved:-?}}"
  done
  echo "$value"
}

tsv name class module props reference baseline_of workers >"$out/servers.tsv"
for name in "${run_rows[@]}"; do
  i="${row_index[$name]}"
  ref=0; is_reference "$name" && ref=1
  tsv "$name" "${row_classes[$i]}" "${row_module[$name]:-}" "${row_props[$i]}" "$ref" "${baseline_of[$name]:-}" "$(workers_of "$name")" >>"$out/servers.tsv"
done

tsv name method path connections script script_args timeout blocking tls description wait_ms open streams >"$out/scenarios.tsv"
for sc in "${SCENARIOS[@]}"; do
  IFS='|' read -r -a f <<<"$sc"   # read drops a trailing empty field: pad to 13
  tsv "${f[0]}" "${f[1]}" "${f[2]}" "${f[3]}" "${f[4]:-}" "${f[5]:-}" "${f[6]}" "${f[7]}" "${f[8]}" "${f[9]:-}" "${f[10]:-}" "${f[11]:-}" "${f[12]:-}" >>"$out/scenarios.tsv"
done
tsv round server scenario raw cpu_ticks wrk_rc wall_s start cpu_ns >"$out/measurements.tsv"
# One line per server start: how its warm-up ended (its windows: raw/<row>/warmup-start<K>.tsv).
tsv server start mode warmup_s steady reason >"$out/starts.tsv"
# scope: empty = the whole row (every scenario); "tls" = its TLS scenarios only.
tsv round server kind message scope >"$out/events.tsv"
event() { tsv "$1" "$2" "$3" "$4" "${5:-}" >>"$out/events.tsv"; }   # round server kind message [scope]
# What each TLS start negotiated with openssl s_client (OpenSSL's defaults, like wrk's).
(( ${#TLS_SCENARIOS[@]} == 0 )) || tsv round server protocol cipher key_exchange signature >"$out/tls.tsv"

for name in "${run_rows[@]}"; do
  if [[ -n "${row_failure[$name]:-}" ]]; then
    event - "$name" "${row_failure[$name]%%|*}" "${row_failure[$name]#*|}"
    echo "FAILED $name: ${row_failure[$name]#*|}" >&2
  fi
done


write_environment() {
  local cpu cores os virt jdk downstream_where=""
  (( ! netns )) || downstream_where=" inside the server's namespace"
  local network_path="${SPINDLE_NETNS_LINK:-loopback (lo, 127.0.0.1) in the host namespace}"
  [[ -z "$target" ]] || network_path="whatever lies between this host and $target (see the client host's route above)"
  cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  cores="$(nproc) online CPU(s)"
  if command -v lscpu >/dev/null 2>&1; then
    cores+=" ($(lscpu | awk -F: '/^Socket\(s\)|^Core\(s\) per socket|^Thread\(s\) per core/ {gsub(/^[ \t]+/, "", $2); printf "%s%s %s", sep, $1, $2; sep=", "}'))"
  fi
  # shellcheck disable=SC1091  # a system file, not ours
  os="$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}" || echo "?")"
  virt="$(systemd-detect-virt 2>/dev/null || true)"
  jdk="$("$JAVA_HOME/bin/java" -version 2>&1 | grep -v '^Picked up' | paste -sd ';' | sed 's/;/; /g')"
  cat <<EOF
# Environment of run $run_id

| | |
|---|---|
| started (UTC) | $(date -u '+%Y-%m-%d %H:%M:%S') |
| command | \`$command_line\` |
| commit | $(spindle_git_desc) |${baseline:+
| baseline | \`$baseline_sha\` (\`--baseline $baseline\`): exported with git archive and built apart; rows named \`<row>@$baseline_rev\` run it, each right after its row in every round |}
| CPU | ${cpu:-unknown}; $cores |
| memory | $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) |
| kernel | $(uname -srm) |
| OS | $os${virt:+ (virtualization: $virt)} |
| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |
| JDK | $JAVA_HOME: $jdk |
| JVM flags (every server) | \`${SPINDLE_JVM_FLAGS[*]}\` |
| server command | $(if [[ -n "$target" ]]; then echo "none: the server already ran at $target (\`--target\`), started by someone else; its JVM, flags, CPU and machine are not known to this script"; else echo "\`${server_cmd[*]:+${server_cmd[*]} }java <JVM flags> <row's -D props> -cp <module classpath> <main class> 0 <workers>\`"; fi) |${target:+
| client host | $(hostname) ($(ip -o -4 addr show scope global 2>/dev/null | awk '{print $4}' | paste -sd ' ' -)); route to the target: $(ip route get "${target_host//[\[\]]/}" 2>/dev/null | head -n 1 | sed 's/ *$//') |}
| wrk | $(wrk -v 2>&1 | head -n 1 | sed 's/ Copyright.*//'): \`${client_cmd[*]:+${client_cmd[*]} }wrk -t$WRK_THREADS -c<connections> -d${duration}s --timeout <timeout> --latency [-s script] <url> [-- script arguments]\`; a waiting scenario without a script of its own runs \`-s bench-window.lua <url> -- <wait ms> <seconds> <connections> <threads>\` (first requests spread over one wait; req/s = the 2xx/3xx answers of a fixed window, two waits after the start to 100 ms before the end, ÷ its length) |
| CPU pinning | server: ${pin_server:-none}; wrk and the checks: ${pin_client:-none} |$( (( ! h2_selected )) || printf '\n| h2load (HTTP/2 scenarios) | %s: `%sh2load -t%s -c<connections> -m<streams per connection> -D%s --warm-up-time %ss [--npn-list=h2] --log-file <temporary file> <url>`, the server CPU sampled from the end of its warm-up time; an h2 window of the warm-up: `h2load -D<seconds> --warm-up-time 0`; h2 is checked per start first (`h2load -n 1 -c 1`): a row that does not speak it has those cells n/a |' "$(h2load --version 2>&1 | head -n 1)" "${client_cmd[*]:+${client_cmd[*]} }" "$WRK_THREADS" "$duration" "$H2_WARMUP")
| network path | $network_path |${downstream_port:+
| downstream (remote scenarios) | $downstream_fqcn, workers $workers, the same JVM flags; one JVM for the whole run on 127.0.0.1:$downstream_port$downstream_where, started before round 1 and warmed up (GET /delay/1, 64 connections, ${DOWNSTREAM_WARMUP}s), with \`-Dspindle.maxConnections=$DOWNSTREAM_MAX_CONNECTIONS\` (the open-files limit less 1,000: the JVM of every row and its pool of kept-alive connections live for the whole run, and must not exhaust the fixture); every row is started with \`-Dspindle.remote=http://127.0.0.1:$downstream_port\`. It runs on the same machine and shares its CPUs (not pinned) with the server under test and wrk, so its work counts against both. Logs: raw/downstream/ |}${downstream_tls_port:+
| TLS downstream (remote-tls, remote-h2) | a second JVM of $downstream_fqcn, as the downstream above, on https://127.0.0.1:$downstream_tls_port with the key store of the run (${tls_key_desc:-?}; \`-Dspindle.tls.keystore\`), warmed up over HTTPS likewise; every row is started with \`-Dspindle.remoteTls=https://127.0.0.1:$downstream_tls_port\` and a PKCS12 trust store of its certificate (made by keytool per run, deleted at the end) as \`-Dspindle.client.trustStore\` and \`-Djavax.net.ssl.trustStore\` (with their per-run passwords). Logs: raw/downstream-tls/ |}
| rounds | $rounds, interleaved (all servers for round 1, then round 2, ...); $(if [[ "$starts_per_server" == 1 ]]; then echo "one start per row for the whole run, every row's JVM alive at once on its own port, ${REWARM}s of the start's first scenario before each round"; else echo "a fresh start per row and round (\`--start-per-round\`)"; fi) |
| per scenario | ${duration}s, ${PAUSE}s pause between scenarios |
| warm-up | per server start, every scenario in turn, each judged on its own (its connections, script and generator${TLS_PROPS[*]:+; over HTTPS for the TLS start}): $(if [[ "$warmup_mode" == fixed ]]; then echo "${warmup} windows of 1 s each, the last $TREND_K judged"; else echo "$WARMUP_MIN windows of 1 s at least, then more until steady: the least-squares drift of req/s over its last $TREND_K windows (slope x $TREND_K) within ±${STEADY_PCT}% of their mean and at most $JIT_QUIET methods compiled per window over them (\`jstat -compiler\`); the start's warm-up capped at ${warmup_cap}s per scenario, pooled (a scenario may use what later ones do not need, less their $WARMUP_MIN windows each)"; fi); every window in raw/<row>/warmup-start<K>.tsv, the outcome per scenario in starts.tsv |${TLS_PROPS[*]:+
| TLS scenarios | a second server start per row and round, after the plain scenarios: the server command plus \`-Dspindle.tls.keystore=<PKCS12 file> -Dspindle.tls.password=<per-run>\`; every route checked over HTTPS first. Negotiated protocol and cipher suite per row: [TLS](#tls) below |}
| workers | $workers (a row's own count in the table below overrides it) |
| python | $("$SPINDLE_PYTHON" --version 2>&1), matplotlib $("$SPINDLE_PYTHON" -c 'import matplotlib; print(matplotlib.__version__)') |
| clock ticks | CLK_TCK $CLK_TCK (server CPU = utime+stime of /proc/<pid>/stat: measurements.tsv cpu_ticks) |
| server CPU in ns | measurements.tsv cpu_ns, by $cpu_method_text; the downstream is never counted |
| network | $(if (( netns )); then
  echo "server's namespace: $(spindle_netns_sysctls "$SPINDLE_NETNS_SERVER")client's: $(spindle_netns_sysctls "$SPINDLE_NETNS_CLIENT")"
else
  for k in net.core.somaxconn net.ipv4.tcp_tw_reuse net.ipv4.ip_local_port_range; do printf '%s = %s; ' "$k" "$(sysctl -n "$k" 2>/dev/null | tr '\t' ' ' || echo '?')"; done
fi)open files limit $(ulimit -n) |
| classes | Spindle's classes and jars copied to a private directory after the build, so builds during the run cannot change them |

## Servers

| row | main class | module | extra JVM arguments | workers |
|---|---|---|---|---|
EOF
  local name i
  for name in "${run_rows[@]}"; do
    i="${row_index[$name]}"
    echo "| $name | ${row_fqcn[$name]:-${row_classes[$i]} (not built)} | ${row_module[$name]:-} | ${row_props[$i]:+\`${row_props[$i]}\`} | $(workers_of "$name") |"
  done
  if (( ${#skipped[@]} > 0 )); then
    echo
    echo "Skipped (not in the tree): ${skipped[*]}"
  fi
  # The reference rows and the framework version each runs (same JVM flags as every row).
  local refs=() fw
  for name in "${run_rows[@]}"; do
    is_reference "$name" && refs+=("$name")
  done
  if (( ${#refs[@]} > 0 )); then
    printf '\n## Reference rows\n\n| row | module | framework |\n|---|---|---|\n'
    for name in "${refs[@]}"; do
      fw="$(reference_framework "${row_module[$name]:-}")"
      echo "| $name | ${row_module[$name]:-} | ${fw:-not declared} |"
    done
  fi
  cat <<'EOF'

## Scenarios

| scenario | request | connections | wrk script | timeout |
|---|---|---:|---|---|
EOF
  local sc f
  for sc in "${SCENARIOS[@]}"; do
    IFS='|' read -r -a f <<<"$sc"
    if [[ -n "${f[12]:-}" ]]; then
      echo "| ${f[0]} | ${f[1]} ${f[2]} over $( [[ "${f[8]}" == 1 ]] && echo 'h2 (TLS, ALPN)' || echo 'h2c') | ${f[3]} x ${f[12]} streams | h2load | - |"
      continue
    fi
    echo "| ${f[0]} | ${f[1]} ${f[2]}$( [[ "${f[8]}" == 1 ]] && echo ' over HTTPS') | ${f[3]} | ${f[4]:+\`${f[4]} ${f[5]}\`} | ${f[6]} |"
  done
}

# Appended at the end of the run: the key, the client's TLS library and what each row negotiated.
write_tls_environment() {
  local libssl
  libssl="$(ldd "$(command -v wrk)" 2>/dev/null | awk '/libssl/ {print $3; exit}')"
  cat <<EOF

## TLS

| | |
|---|---|
| server key | ${tls_key_desc:-?}; CN=localhost, SAN ip:127.0.0.1, PKCS12 made per run by \`keytool -genkeypair -keyalg EC -groupname secp256r1\` in a temporary directory (deleted at the end; never in this directory) |
| client | wrk over ${libssl:-libssl (not found by ldd)}; $(openssl version 2>/dev/null || echo 'openssl: not installed'); OpenSSL's default protocols and cipher suites, no certificate verification |
| negotiated | by \`openssl s_client -brief\` against each TLS start (same library and defaults as wrk): raw/<row>/tls-round<N>.txt |

| row | protocol | cipher suite | key exchange | server signature |
|---|---|---|---|---|
EOF
  # One line per row and distinct outcome (rounds normally agree).
  if [[ -f "$out/tls.tsv" ]]; then
    tail -n +2 "$out/tls.tsv" | cut -f 2- | awk -F '\t' '!seen[$0]++ { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
  fi
  local name missing=()
  for name in "${run_rows[@]}"; do
    [[ -f "$out/tls.tsv" ]] && awk -F '\t' -v n="$name" '$2 == n { f = 1 } END { exit !f }' "$out/tls.tsv" ||
      missing+=("$name")
  done
  if (( ${#missing[@]} > 0 )); then
    echo
    echo "No TLS start passed its HTTPS checks for: ${missing[*]} (see summary.md, Failures)."
  fi
}
# Starts a downstream (once per run, before any row): $1 "plain" for the remote scenarios, "tls" for
# remote-tls (a second JVM of the same class speaking HTTPS with the run's key store). Its ready line
# awaited, then a warm-up of /delay/1 so its JIT is done before the first row calls it. A failure
# ends the run.
start_downstream() {
  local kind="$1" dir="$out/raw/downstream" line="" i pid port scheme=http what="the downstream $DOWNSTREAM_CLASS"
  local -a props=()
  [[ "$kind" != tls ]] || dir="$out/raw/downstream-tls" scheme=https what="the TLS downstream $DOWNSTREAM_CLASS" props=("${KEY_PROPS[@]}")
  mkdir -p "$dir"
  # every row's JVM stays alive for the whole run, each with its own pool of kept-alive connections to
  # the downstream: the fixture takes as many as its open-files limit allows (less a margin), so no row's
  # calls are answered 503 because earlier rows hold connections
  "${downstream_cmd[@]}" "$JAVA_HOME/bin/java" "${SPINDLE_JVM_FLAGS[@]}" "-Dspindle.maxConnections=$DOWNSTREAM_MAX_CONNECTIONS" \
    "${props[@]}" -cp "$downstream_cp" "$downstream_fqcn" 0 "$workers" >"$dir/server.out" 2>"$dir/server.err" </dev/null &
  pid=$!
  # recorded at once, so an exit meanwhile stops it
  if [[ "$kind" == tls ]]; then downstream_tls_pid="$pid"; else downstream_pid="$pid"; fi
  for (( i = 0; i < READY_TIMEOUT * 10; i++ )); do
    line="$(grep -m 1 ' listening on ' "$dir/server.out" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    spindle_pid_alive "$pid" ||
      spindle_die "$what exited before its ready line: $(tail -n 3 "$dir/server.err" | tr '\n' ' ')"
    sleep 0.1
  done
  [[ -n "$line" ]] || spindle_die "$what printed no 'listening on' line within ${READY_TIMEOUT}s"
  port="$(grep -oE ':[0-9]+' <<<"$line" | tail -n 1 | tr -d ':')"
  [[ -n "$port" ]] || spindle_die "no port in the ready line '$line' of $what"
  if [[ "$kind" == tls ]]; then downstream_tls_port="$port"; else downstream_port="$port"; fi
  echo "${what#the }: $scheme://127.0.0.1:$port (pid $pid, workers $workers)" >&2
  run_child "${pin_client_cmd[@]}" "${downstream_cmd[@]}" wrk -t"$WRK_THREADS" -c64 -d"${DOWNSTREAM_WARMUP}s" "$scheme://127.0.0.1:$port/delay/1" \
      >"$dir/warmup.txt" 2>&1 || true
}
(( ! need_downstream )) || start_downstream plain
(( ! need_tls_downstream )) || start_downstream tls

write_environment >"$out/environment.md"

start_error="" port=""
# Starts row $1 for round $2 on a free port, with the TLS properties if $3 is "tls" (its logs:
# server-tls-round<N>.*); sets server_pid and port, or start_error and fails.
start_server() {
  local name="$1" r="$2" phase="$3" i line="" rc
  local dir="$out/raw/$name" props=() tag=""
  if [[ -n "$target" ]]; then
    server_pid="" port="$target_port"
    return 0
  fi
  read -r -a props <<<"${row_props[${row_index[$name]}]}"
  case "$phase" in
    tls) props+=("${TLS_PROPS[@]}") tag="tls-" ;;
    conformance) tag="conformance-" ;;
  esac
  [[ -z "$downstream_port" ]] || props+=("-Dspindle.remote=http://127.0.0.1:$downstream_port")
  [[ -z "$downstream_tls_port" ]] || props+=("-Dspindle.remoteTls=https://127.0.0.1:$downstream_tls_port" "${TRUST_PROPS[@]}")
  (( ! netns )) || props+=("-Dspindle.host=$target_host")
  local java="$JAVA_HOME/bin/java" module="${row_module[$name]}"
  "${server_cmd[@]}" "$java" "${SPINDLE_JVM_FLAGS[@]}" "${props[@]}" -cp "${module_cp[${row_cp_key[$name]:-$module}]}" \
    "${row_fqcn[$name]}" 0 "$(workers_of "$name")" >"$dir/server-${tag}round$r.out" 2>"$dir/server-${tag}round$r.err" </dev/null &
  server_pid=$!
  # into its own cgroup at once, so every thread it makes is counted (cpu_ns)
  [[ "$phase" == conformance ]] || cpu_track "$server_pid"
  for (( i = 0; i < READY_TIMEOUT * 10; i++ )); do
    line="$(grep -m 1 ' listening on ' "$dir/server-${tag}round$r.out" 2>/dev/null || true)"
    [[ -n "$line" ]] && break
    if ! server_alive; then
      rc=0; wait "$server_pid" 2>/dev/null || rc=$?
      cpu_untrack "$server_pid"
      server_pid=""
      start_error="exited with status $rc before its ready line: $(tail -n 3 "$dir/server-${tag}round$r.err" | tr '\n' ' ')"
      return 1
    fi
    sleep 0.1
  done
  if [[ -z "$line" ]]; then
    start_error="no 'listening on' line within ${READY_TIMEOUT}s"
    stop_server
    return 1
  fi
  # The port is the last ":<digits>" of the line ("X listening on 127.0.0.1:43125").
  port="$(grep -oE ':[0-9]+' <<<"$line" | tail -n 1 | tr -d ':')"
  if [[ -z "$port" ]]; then
    start_error="no port in its ready line '$line'"
    stop_server
    return 1
  fi
  # CPU is sampled from this PID, so it must be the JVM itself (taskset and java exec in place).
  if [[ "$(readlink -f "/proc/$server_pid/exe" 2>/dev/null)" != "$(readlink -f "$java")" ]]; then
    start_error="pid $server_pid is $(readlink -f "/proc/$server_pid/exe" 2>/dev/null || echo gone), not $java"
    stop_server
    return 1
  fi
}


total_steps=0 step=0 steps_timed=0 timed_seconds=0
for name in "${run_rows[@]}"; do
  [[ -n "${row_failure[$name]:-}" ]] || total_steps=$(( total_steps + rounds * ${#SCENARIOS[@]} ))
done

fmt_duration() {
  local s="$1"
  if (( s >= 3600 )); then printf '%dh%02dm' $(( s / 3600 )) $(( s % 3600 / 60 ))
  elif (( s >= 60 )); then printf '%dm%02ds' $(( s / 60 )) $(( s % 60 ))
  else printf '%ds' "$s"; fi
}
# The scenarios each round's re-warm runs (one start per run): the first of the list, and the first driven by
# the other load generator (HTTP/1.1 by wrk, HTTP/2 by h2load: other client, other code paths). Prints
# their indexes in the list.
warm_leaders() {
  local i first_h2="" first_h1=""
  for (( i = 1; i <= $#; i++ )); do
    if [[ -n "$(cut -d'|' -f13 <<<"${!i}")" ]]; then [[ -n "$first_h2" ]] || first_h2=$(( i - 1 ))
    else [[ -n "$first_h1" ]] || first_h1=$(( i - 1 )); fi
  done
  echo ${first_h1:-} ${first_h2:-}
}

# Planned seconds, in tenths, at most (every adaptive warm-up reaching its cap; a 1 s window costs
# about 1.1 s with wrk's start and stop, 1.2 planned): one server start (ready line and checks ~8 s,
# then its warm-up: every scenario's WARMUP_MIN windows, and more while the start's pool of
# warmup_cap seconds per scenario lasts, the last window overrunning it by up to 1.5 s), one
# measured cell, and the re-warm before each round of a start that lives the run.
start_tenths() {   # scenarios of the start...
  local warm n=$#
  if [[ "$warmup_mode" == fixed ]]; then warm=$(( n * warmup * 12 ))
  else
    warm=$(( n * warmup_cap * 10 + 15 ))
    (( warm >= n * WARMUP_MIN * 12 + 15 )) || warm=$(( n * WARMUP_MIN * 12 + 15 ))
  fi
  echo $(( 80 + warm ))
}
cell_tenths() {
  local t=$(( (duration + PAUSE) * 10 + 3 ))
  # an open-model cell also starts the generator's JVM and warms it up (2s); an h2 cell has h2load's warm-up time
  [[ -z "$(cut -d'|' -f12 <<<"$1")" ]] || t=$(( t + 50 ))
  [[ -z "$(cut -d'|' -f13 <<<"$1")" ]] || t=$(( t + H2_WARMUP * 10 ))
  echo "$t"
}
plain_start_tenths=0 tls_start_tenths=0 plain_cells_tenths=0 tls_cells_tenths=0
(( ${#PLAIN_SCENARIOS[@]} == 0 )) || plain_start_tenths="$(start_tenths "${PLAIN_SCENARIOS[@]}")"
(( ${#TLS_SCENARIOS[@]} == 0 )) || tls_start_tenths=$(( $(start_tenths "${TLS_SCENARIOS[@]}") + 5 ))
for sc in "${PLAIN_SCENARIOS[@]}"; do plain_cells_tenths=$(( plain_cells_tenths + $(cell_tenths "$sc") )); done
for sc in "${TLS_SCENARIOS[@]}"; do tls_cells_tenths=$(( tls_cells_tenths + $(cell_tenths "$sc") )); done
rewarm_tenths=0
if [[ "$starts_per_server" == 1 ]] && (( REWARM > 0 )); then rewarm_tenths=$(( REWARM * 10 + 4 )); fi
phases_per_row=0
(( ${#PLAIN_SCENARIOS[@]} == 0 )) || phases_per_row=$(( phases_per_row + 1 ))
(( ${#TLS_SCENARIOS[@]} == 0 )) || phases_per_row=$(( phases_per_row + 1 ))
starts_per_row=1
[[ "$starts_per_server" == 1 ]] || starts_per_row="$rounds"
live_rows=0
for name in "${run_rows[@]}"; do [[ -n "${row_failure[$name]:-}" ]] || live_rows=$(( live_rows + 1 )); done
starts_left=$(( live_rows * starts_per_row * phases_per_row ))   # starts not yet made, for the ETA
per_start_tenths=$(( (plain_start_tenths + tls_start_tenths) / (phases_per_row > 0 ? phases_per_row : 1) ))
per_step_tenths=$(( (plain_cells_tenths + tls_cells_tenths + phases_per_row * rewarm_tenths) / (${#SCENARIOS[@]} > 0 ? ${#SCENARIOS[@]} : 1) ))
plan_tenths=$(( live_rows * (starts_per_row * (plain_start_tenths + tls_start_tenths)
  + rounds * (plain_cells_tenths + tls_cells_tenths + phases_per_row * rewarm_tenths)) ))
(( ! conformance )) || plan_tenths=$(( plan_tenths + live_rows * 120 ))   # a start and ~120 cases per row
(( ! need_downstream )) || plan_tenths=$(( plan_tenths + 100 ))
(( ! need_tls_downstream )) || plan_tenths=$(( plan_tenths + 100 ))
plan_tenths=$(( plan_tenths + 200 ))   # the report and its charts
# ETA: the cells left at the measured pace (or the planned one), plus the starts left at their worst.
eta() {
  local left=$(( total_steps - step )) cell_tenths="$per_step_tenths"
  (( steps_timed == 0 )) || cell_tenths=$(( timed_seconds * 10 / steps_timed ))
  fmt_duration $(( (left * cell_tenths + starts_left * per_start_tenths) / 10 ))
}
if [[ "$starts_per_server" == 1 ]]; then
  starts_text="one start per row for the whole run (every row's JVM alive at once, ${REWARM}s re-warm before each round)"
else
  starts_text="a fresh start per row and round"
fi
if [[ "$warmup_mode" == fixed ]]; then
  warm_text="fixed warm-up of ${warmup} windows of 1 s per scenario of a start, the last $TREND_K judged"
else
  warm_text="adaptive warm-up of every scenario of a start ($WARMUP_MIN windows of 1 s each at least, then steady once the least-squares drift of req/s over its last $TREND_K windows is within ±${STEADY_PCT}% of their mean and <= $JIT_QUIET methods compiled per window; cap ${warmup_cap}s per scenario, pooled over the start)"
fi
echo "plan ($mode run): ${#run_rows[@]} row(s) x $rounds round(s) x ${#SCENARIOS[@]} scenario(s), ${duration}s each, pause ${PAUSE}s;" \
  "$starts_text; $warm_text;" \
  "at most about $(fmt_duration $(( plan_tenths / 10 ))) with every warm-up at its cap$( (( ! conformance )) || echo ', correctness column included')" \
  "(an estimate; the ETA follows the measured pace)" >&2


declare -A dead=()       # rows that failed: not retried in later rounds
declare -A start_count=() row_steps=()   # starts made per row (K of warmup-start<K>.tsv); steps done per row
declare -A tls_dead=()   # rows whose TLS start failed: their TLS scenarios are not retried
declare -A h2_off=()     # "<row>/<plain|tls>": that start does not speak h2 (h2c, or h2 by ALPN): its h2 cells are n/a
declare -A route_off=()  # "<row>/<plain|tls>": " <path> ..." the routes that start does not serve (404): their cells are n/a
for name in "${run_rows[@]}"; do
  [[ -z "${row_failure[$name]:-}" ]] || dead[$name]=1
done

echo "output: $out" >&2
echo "servers: ${run_rows[*]}; $rounds round(s) x ${#SCENARIOS[@]} scenario(s), ${duration}s each, workers $workers" >&2
(( ${#TLS_SCENARIOS[@]} == 0 )) || echo "TLS scenarios (${#TLS_SCENARIOS[@]}): a second start of each server with -Dspindle.tls.*" >&2

wrk_base=("${client_cmd[@]}" wrk -t"$WRK_THREADS" --latency)

# One warm-up window: wrk for $3 seconds with scenario $1's connections, script and path on base URL
# $2, its output appended to $4. Sets win_req, win_rps and win_secs (zeros when wrk failed); no
# subshell, so the trap can stop wrk by its PID. Over HTTPS at most TLS_WARM_CONNECTIONS: every
# window opens its connections anew, and 256 handshakes a second on a cold JVM are a storm that
# leaves it a backlog of abandoned handshakes instead of a warm request path.
TLS_WARM_CONNECTIONS=64
win_req=0 win_rps=0 win_secs=0
warm_window() {
  local f tmp="$snapshot/window.txt"
  IFS='|' read -r -a f <<<"$1"
  if [[ -n "${f[12]:-}" ]]; then
    # an h2 window: h2load for $3 seconds, no warm-up time of its own (the windows are the warm-up)
    make_h2load_cmd "$1" "$2" "$3" 0
    run_child "${h2load_cmd[@]}" >"$tmp" 2>&1 || true
    cat "$tmp" >>"$4"
    read -r win_req win_rps win_secs < <(h2load_figures "$tmp" "$3")
    return 0
  fi
  make_wrk_cmd "$1" "$2${f[2]}" "$3" "$(warm_connections "$1" "$2")"
  run_child "${wrk_cmd[@]}" >"$tmp" 2>&1 || true
  cat "$tmp" >>"$4"
  # "  123456 requests in 1.00s, 15.2MB read" and "Requests/sec:  123456.78", or a waiting scenario's fixed
  # window (bench-window.lua): "window: G good, O other answers in S s"
  read -r win_req win_rps win_secs < <(awk '/ requests in / { n = $1; s = $4; sub(/s,?$/, "", s) } /^Requests\/sec:/ { r = $2 }
    /^window: / { wn = $2; ws = $(NF - 1) }
    END { if (ws > 0) { n = wn; s = ws; r = wn / ws }
          printf "%s %s %s\n", (n == "" ? 0 : n), (r == "" ? 0 : r), (s == "" ? 0 : s) }' "$tmp")
}

# A waiting HTTP/1.1 scenario's warm-up windows come from one wrk run with bench-window.lua for the
# whole scenario (its connections kept, not opened anew each second): a wrk per window closes its
# connections at the end of each, and a server that queues blocking work (a worker pool) keeps
# working through the requests of connections nobody awaits, so its next windows answer nothing.
# cont_start scenario base log: starts it (in the background: child_pid, so the trap stops it);
# cont_window: sleeps until the next whole second of it has ended (and 0.3 s, for the answers of its
# last moment to be written) and sets win_req/win_rps/win_secs from the answers of that second;
# cont_stop: stops it (SIGINT: wrk prints its summary into the log).
# A waiting HTTP/2 scenario likewise: one h2load for the scenario's warm-up, its per-request log
# (written as each request ends: start µs, status, µs taken) read for the 2xx/3xx answers that ended
# in each second; 8 fresh connections a second kept the JIT compiling the connection set-up.
cont_prefix="" cont_next=0 cont_log="" cont_h2log=""
cont_capable() {
  local f
  IFS='|' read -r -a f <<<"$1"
  [[ -n "${f[10]:-}" && "${f[10]}" != 0 && -z "${f[11]:-}" ]] || return 1
  [[ -n "${f[12]:-}" ]] && return 0
  make_wrk_cmd "$1" "" 1 1
  (( wrk_windowed ))
}
cont_start() {
  local f
  IFS='|' read -r -a f <<<"$1"
  cont_prefix="$snapshot/bins-${f[0]}" cont_log="$3" cont_h2log=""
  rm -f "$cont_prefix"-*.tsv
  # longer than any warm-up of one scenario can be (its start's pool, or 4 caps + 10 s past it)
  local seconds=$(( (n_sc + 4) * warmup_cap + 20 ))
  [[ "$warmup_mode" != fixed ]] || seconds=$(( warmup + 5 ))
  if [[ -n "${f[12]:-}" ]]; then
    cont_h2log="$snapshot/cont-h2load.tsv"
    rm -f "$cont_h2log"
    make_h2load_cmd "$1" "$2" "$seconds" 0 "$cont_h2log"
    "${h2load_cmd[@]}" >"$snapshot/cont.txt" 2>&1 &
  else
    make_wrk_cmd "$1" "$2${f[2]}" "$seconds" "$(warm_connections "$1" "$2")" "$cont_prefix"
    "${wrk_cmd[@]}" >"$snapshot/cont.txt" 2>&1 &
  fi
  child_pid=$!
  cont_next=$(( ${EPOCHREALTIME%.*} + 1 ))
}
cont_window() {
  local now_us="${EPOCHREALTIME/./}" until_us=$(( (cont_next + 1) * 1000000 + 300000 ))
  (( until_us <= now_us )) || sleep "$(awk -v d=$(( until_us - now_us )) 'BEGIN { printf "%.3f", d / 1e6 }')"
  if [[ -n "$cont_h2log" ]]; then
    # the log's tail holds the last seconds' requests (a waiting scenario answers ~10k a second)
    win_req="$(tail -c 4000000 "$cont_h2log" 2>/dev/null | awk -F '\t' -v s="$cont_next" \
      'NF >= 3 && $2 >= 200 && $2 < 400 && int(($1 + $3) / 1000000) == s { g++ } END { print g + 0 }')"
  else
    win_req="$(cat "$cont_prefix"-*.tsv 2>/dev/null | awk -v s="$cont_next" '$1 == s { g += $2 } END { print g + 0 }')"
  fi
  win_rps="$win_req" win_secs=1
  cont_next=$(( cont_next + 1 ))
}
cont_stop() {
  [[ -n "$child_pid" ]] || return 0
  kill -INT "$child_pid" 2>/dev/null || true
  wait "$child_pid" 2>/dev/null || true
  child_pid=""
  cat "$snapshot/cont.txt" >>"$cont_log"
  rm -f "$cont_prefix"-*.tsv "$snapshot/cont.txt" ${cont_h2log:+"$cont_h2log"}
  cont_prefix="" cont_h2log=""
}

# The wrk command of scenario $1 (a line of the table) against URL $2 for $3 seconds at $4
# connections, into the array wrk_cmd; [$5]: a further argument to bench-window.lua (its bins prefix).
# Its script: the scenario's own with its words; or, for a waiting HTTP/1.1 scenario with none (a
# wait, closed loop), bench-window.lua (wrk_windowed=1): the connections' first requests spread over
# one wait and the goodput counted in a fixed window (see that file), so the count does not move in
# whole waves of answers ended together.
wrk_cmd=() wrk_windowed=0
make_wrk_cmd() {
  local f
  IFS='|' read -r -a f <<<"$1"
  wrk_cmd=("${wrk_base[@]}" -c"$4" -d"${3}s" --timeout "${f[6]}") wrk_windowed=0
  if [[ -n "${f[4]}" ]]; then
    wrk_cmd+=(-s "$LIB/${f[4]}" "$2")
    # shellcheck disable=SC2206  # script arguments are words
    [[ -z "${f[5]}" ]] || wrk_cmd+=(-- ${f[5]})
  elif [[ -n "${f[10]:-}" && "${f[10]}" != 0 && -z "${f[11]:-}" && -z "${f[12]:-}" ]]; then
    wrk_windowed=1
    wrk_cmd+=(-s "$LIB/bench-window.lua" "$2" -- "${f[10]}" "$3" "$4" "$WRK_THREADS" ${5:+"$5"})
  else
    wrk_cmd+=("$2")
  fi
}

# The connections of scenario $1's warm-up windows against base URL $2: its own, but over HTTPS at most
# TLS_WARM_CONNECTIONS (see warm_window).
warm_connections() {
  local n
  n="$(cut -d'|' -f4 <<<"$1")"
  [[ "$2" != https:* ]] || (( n <= TLS_WARM_CONNECTIONS )) || n="$TLS_WARM_CONNECTIONS"
  echo "$n"
}

# The h2load command of scenario $1 (a line of the table) against base URL $2 for $3 seconds after
# --warm-up-time $4 seconds ([$5]: --log-file, per-request latencies of the timed window), into the
# array h2load_cmd. h2c with prior knowledge on http://, only h2 offered by ALPN on https://. Bounded by
# timeout (exit 124): h2load waits for every client to stop after its window, and 1 s windows over TLS
# against a cold server (Spindle's and Netty's alike, on a loaded machine) have waited there for good.
H2LOAD_GRACE=10
h2load_cmd=()
make_h2load_cmd() {
  local f
  IFS='|' read -r -a f <<<"$1"
  h2load_cmd=("${client_cmd[@]}" timeout -k 5 $(( $3 + $4 + H2LOAD_GRACE )) h2load -t"$WRK_THREADS" -c"${f[3]}" -m"${f[12]}" -D"$3" --warm-up-time "${4}s")
  [[ "$2" != https:* ]] || h2load_cmd+=(--npn-list=h2)
  [[ -z "${5:-}" ]] || h2load_cmd+=(--log-file "$5")
  h2load_cmd+=("$2${f[2]}")
}

# "requests req/s seconds" of an h2load output $1 that measured $2 seconds: the requests done in the
# timed window ("requests: N total, N started, D done, ...") and h2load's "finished in ..., R req/s".
h2load_figures() {
  awk -v d="$2" '/^requests: / { for (i = 2; i < NF; i++) if ($(i + 1) ~ /^done,?$/) n = $i }
    /^finished in / { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^req\/s,?$/) r = $i }
    END { printf "%s %s %s\n", (n == "" ? 0 : n), (r == "" ? 0 : r), d }' "$1"
}

# The compiled-method count jstat printed last (empty when it printed none).
jstat_compiled() {
  [[ -n "$1" && -s "$1" ]] || return 0
  awk '$1 ~ /^[0-9]+$/ { c = $1 } END { print c }' "$1"
}

# Judges a scenario's last TREND_K windows: methods compiled during them $1 (empty: not sampled),
# their rates $2... (oldest first). Steady = no trend and a nearly quiet JIT: the least-squares slope
# of req/s against the window's index, times K (the drift the fitted line makes across the K
# windows), within STEADY_PCT % of their mean, every window answering something; and at most
# JIT_QUIET methods compiled per window over them (the JIT never goes fully silent: Netty and Spring
# still compile a few methods a second after 30 s). Prints "1|why" when steady, "0|why" when not.
judge_windows() {
  local jit="$1"; shift
  awk -v r="$*" -v jit="$jit" -v tol="$STEADY_PCT" -v quiet="$JIT_QUIET" '
  BEGIN {
    k = split(r, w, " "); mean = 0; zero = 0
    for (i = 1; i <= k; i++) { mean += w[i] / k; if (w[i] <= 0) zero = 1 }
    xm = (k + 1) / 2; sxy = 0; sxx = 0
    for (i = 1; i <= k; i++) { sxy += (i - xm) * (w[i] - mean); sxx += (i - xm) ^ 2 }
    drift = mean > 0 ? sxy / sxx * k / mean * 100 : 0
    rate_ok = !zero && mean > 0 && drift <= tol && drift >= -tol
    if (jit == "") { jit_ok = 1; jit_text = "JIT not sampled" }
    else { jit_ok = jit <= k * quiet; jit_text = sprintf("%d method%s compiled in them", jit, jit == 1 ? "" : "s") }
    if (zero) rate_text = sprintf("a window of the last %d answered nothing", k)
    else rate_text = sprintf("drift %+.0f%% over the last %d windows", drift, k)
    printf "%d|%s and %s\n", rate_ok && jit_ok, rate_text, jit_text
  }'
}

# Whether row $1 speaks only h2c by prior knowledge (SPINDLE_BENCH_H2_ONLY_SERVERS): its HTTP/1.1
# scenarios are n/a, it has no HTTP/1.1 route check, no TLS start and no correctness column.
h2_only() {
  local n
  for n in "${SPINDLE_BENCH_H2_ONLY_SERVERS[@]}"; do [[ "$1" == "$n" ]] && return 0; done
  return 1
}

# The scenarios of start "$1/$2" (phase plain or tls) that it measures, in order, into the array named $3:
# the phase's list less the h2 scenarios when this start does not speak h2 (h2_off), less the HTTP/1.1
# ones of an h2-only row, and less those on a route it does not serve (route_off).
phase_list() {
  local -n into="$3"
  local -a all=("${PLAIN_SCENARIOS[@]}")
  [[ "$2" != tls ]] || all=("${TLS_SCENARIOS[@]}")
  into=()
  local sc
  for sc in "${all[@]}"; do
    [[ -n "${h2_off[$1/$2]:-}" && -n "$(cut -d'|' -f13 <<<"$sc")" ]] && continue
    h2_only "$1" && [[ -z "$(cut -d'|' -f13 <<<"$sc")" ]] && continue
    [[ "${route_off[$1/$2]:-}" == *" $(cut -d'|' -f3 <<<"$sc") "* ]] && continue
    into+=("$sc")
  done
}
# The warm-up of one server start (row $1, start $2, base URL $3, phase $4): every scenario of the
# start in its order, each with 1 s windows (h2load's for an HTTP/2 one) judged on their own: at least
# WARMUP_MIN windows whatever they show, then more until judge_windows finds no trend over its last
# TREND_K windows and a nearly quiet JIT, or until the start's pool is spent (warmup_cap seconds per
# scenario of the start, less WARMUP_MIN windows kept for each scenario still to come: a cold first
# scenario may use what the later ones do not need); past it while a window completes nothing (a
# cold JVM still in its first TLS handshakes on one pinned CPU), up to 4 caps + 10 s for that
# scenario. --warmup N: N windows of each scenario, the last TREND_K judged. Every window goes to
# raw/<row>/warmup-start<K>.tsv (the generators' output to .txt), the outcome to starts.tsv: steady
# only when every scenario was; its reason names each scenario and how it was judged.
warm_up() {
  local name="$1" k="$2" base="$3" phase="$4" pid="$server_pid"
  local -a list=()
  phase_list "$name" "$phase" list
  local table="$out/raw/$name/warmup-start$k.tsv" log="$out/raw/$name/warmup-start$k.txt" jfile=""
  tsv t_s scenario window_s requests req_per_s compiled_total compile_queue >"$table"
  : >"$log"
  if [[ -n "$pid" ]]; then
    # one jstat for the whole warm-up, sampling every 250 ms (a jstat per window would cost a JVM start)
    jfile="$snapshot/jstat-$name-$k.txt"
    "$JAVA_HOME/bin/jstat" -compiler "$pid" 250 >"$jfile" 2>&1 </dev/null &
    jstat_pid=$!
  fi
  local t0="${EPOCHREALTIME/./}" steady=1 reason="" idx n_sc="${#list[@]}" n_steady=0
  local pool_us=$(( n_sc * warmup_cap * 1000000 ))
  (( n_sc > 0 )) || reason="nothing to warm up: every scenario of this start is an h2 one it does not speak or on a route it does not serve"
  for (( idx = 0; idx < n_sc; idx++ )); do
    local sc="${list[$idx]}" sc_name="${list[$idx]%%|*}" n=0 verdict="" one_steady=0 one_reason="" c_now
    local p0="${EPOCHREALTIME/./}" later=$(( n_sc - idx - 1 ))
    local -a rates=() compiled=("$(jstat_compiled "$jfile")")
    local cont=0
    win_req=1
    if cont_capable "$sc"; then
      cont=1
      cont_start "$sc" "$base" "$log"
    fi
    while :; do
      if [[ "$warmup_mode" == fixed ]]; then
        (( n < warmup )) || break
      elif (( n >= WARMUP_MIN )); then
        [[ "${verdict%%|*}" != 1 ]] || break
        # the pool: another window (1.2 s) must leave WARMUP_MIN windows for each later scenario
        local now_us=$(( ${EPOCHREALTIME/./} - t0 )) sc_us=$(( ${EPOCHREALTIME/./} - p0 ))
        if (( now_us + 1200000 + later * WARMUP_MIN * 1200000 > pool_us )); then
          (( win_req == 0 && sc_us < (4 * warmup_cap + 10) * 1000000 )) || break
        fi
      fi
      if (( cont )); then cont_window; else warm_window "$sc" "$base" 1 "$log"; fi
      n=$(( n + 1 ))
      c_now="$(jstat_compiled "$jfile")"
      rates+=("$win_rps")
      compiled+=("$c_now")
      tsv "$(awk -v us=$(( ${EPOCHREALTIME/./} - t0 )) 'BEGIN { printf "%.1f", us / 1e6 }')" "$sc_name" "$win_secs" "$win_req" "$win_rps" "$c_now" "" >>"$table"
      server_alive || break
      if (( n >= TREND_K )); then
        local jit=""
        [[ -z "${compiled[n-TREND_K]}" || -z "${compiled[n]}" ]] || jit=$(( compiled[n] - compiled[n-TREND_K] ))
        verdict="$(judge_windows "$jit" "${rates[@]:n-TREND_K:TREND_K}")"
        # jstat sampling now but not yet before these K windows (it needs a moment to attach): not
        # judged quiet on the rate alone; the next window is judged again
        if [[ -z "$jit" && -n "${compiled[n]}" ]]; then
          verdict="0|${verdict#*|}" verdict="${verdict/JIT not sampled/JIT not yet sampled before the last $TREND_K windows}"
        fi
      fi
    done
    (( ! cont )) || cont_stop
    if [[ -n "$pid" && -z "${compiled[n]:-}" ]]; then verdict="${verdict/JIT not sampled/JIT not sampled (jstat printed nothing)}"; fi
    [[ -n "$pid" ]] || verdict="${verdict/JIT not sampled/JIT not sampled (--target: no server process here)}"
    if ! server_alive; then
      one_steady=0 one_reason="the server exited during its warm-up"
    elif (( n < TREND_K )); then
      one_steady=0 one_reason="$n window(s); $TREND_K are needed to judge"
    else
      one_steady="${verdict%%|*}"
      if [[ "$warmup_mode" == fixed ]]; then
        one_reason="$(if [[ "$one_steady" == 1 ]]; then echo steady; else echo "not steady"; fi) after a fixed $n windows: ${verdict#*|}"
      elif [[ "$one_steady" == 1 ]]; then
        one_reason="steady after $n windows: ${verdict#*|}"
      else
        one_reason="not steady when the start's cap ended it after $n windows: ${verdict#*|}"
      fi
    fi
    (( one_steady == 1 )) && n_steady=$(( n_steady + 1 )) || steady=0
    reason="${reason:+$reason; }$sc_name $one_reason"
    server_alive || break
  done
  (( n_sc == 0 )) || reason="$n_steady of $n_sc scenarios steady ($WARMUP_MIN windows each at least; trend over the last $TREND_K within ±${STEADY_PCT}%, <= $JIT_QUIET methods/window): $reason"
  stop_jstat
  local spent
  spent="$(awk -v us=$(( ${EPOCHREALTIME/./} - t0 )) 'BEGIN { printf "%.1f", us / 1e6 }')"
  tsv "$name" "$k" "$warmup_mode" "$spent" "$steady" "$reason" >>"$out/starts.tsv"
  printf '        warm-up %ss: %s (%s)\n' "$spent" "$(if [[ "$steady" == 1 ]]; then echo steady; else echo NOT STEADY; fi)" "$reason" >&2
}

# What the TLS start negotiates, seen by OpenSSL with its defaults (wrk's library and settings):
# raw/<row>/tls-round<N>.txt and a line of tls.tsv. Informational: a failure here fails nothing.
record_tls() {
  local name="$1" r="$2" file="$out/raw/$1/tls-round$2.txt" proto cipher kex sig hash
  run_child "${client_cmd[@]}" timeout 10 openssl s_client -connect "$target_host:$port" -brief </dev/null >"$file" 2>&1 || true
  proto="$(sed -n 's/^Protocol version: //p' "$file" | head -n 1)"
  cipher="$(sed -n 's/^Ciphersuite: //p' "$file" | head -n 1)"
  kex="$(sed -n 's/^\(Server \)\{0,1\}Temp Key: //p; s/^Negotiated TLS1.3 group: //p' "$file" | head -n 1)"
  sig="$(sed -n 's/^Signature type: //p' "$file" | head -n 1)"
  hash="$(sed -n 's/^Hash used: //p' "$file" | head -n 1)"
  [[ -z "$sig" || -z "$hash" ]] || sig="$sig with $hash"
  tsv "$r" "$name" "${proto:-?}" "${cipher:-?}" "${kex:-?}" "${sig:-?}" >>"$out/tls.tsv"
}

# The rate of an open-model scenario from its spec ("rate:N", or "pct:P:SCENARIO" = P% of the req/s
# this start measured in SCENARIO; $2 names that associative array). Prints it, or why there is none.
open_rate() {
  local -n measured="$2"
  local kind="${1%%:*}" rest="${1#*:}"
  if [[ "$kind" == rate ]]; then echo "$rest"; return 0; fi
  local pct="${rest%%:*}" base="${rest#*:}"
  if [[ -z "${measured[$base]:-}" ]]; then
    echo "no $base figure in this start to take $pct% of (it must run earlier in the same start)"
    return 1
  fi
  awk -v r="${measured[$base]}" -v p="$pct" 'BEGIN { printf "%d", r * p / 100 + 0.5 }'
}

# Whether start "$1/$2" (round $3, base URL $4) speaks HTTP/2 when its list has h2 scenarios: one
# request by h2load (h2c with prior knowledge, or h2 alone offered by ALPN over TLS) to the first h2
# scenario's path. Not answered: h2_off for the start and an h2-unavailable event (scope h2 or tls-h2)
# with h2load's words, so its h2 cells show n/a and why (an error for a Spindle row, excused for a
# reference and a --baseline twin). Its output: raw/<row>/h2-check-[tls-]round<N>.txt.
check_h2() {
  local name="$1" phase="$2" r="$3" base="$4" sc first="" tag="" scope=h2 what="h2c (prior knowledge)"
  local -a list=("${PLAIN_SCENARIOS[@]}")
  if [[ "$phase" == tls ]]; then list=("${TLS_SCENARIOS[@]}") tag="tls-" scope=tls-h2 what="h2 by ALPN over TLS"; fi
  for sc in "${list[@]}"; do
    [[ -z "$(cut -d'|' -f13 <<<"$sc")" ]] || { first="$sc"; break; }
  done
  [[ -n "$first" ]] || return 0
  local file="$out/raw/$name/h2-check-${tag}round$r.txt" f
  IFS='|' read -r -a f <<<"$first"
  local cmd=("${client_cmd[@]}" timeout 15 h2load -n 1 -c 1)
  [[ "$phase" != tls ]] || cmd+=(--npn-list=h2)
  run_child "${cmd[@]}" "$base${f[2]}" >"$file" 2>&1 || true
  if grep -qE '^status codes: 1 2xx' "$file"; then
    unset "h2_off[$name/$phase]"
    return 0
  fi
  h2_off["$name/$phase"]=1
  local why note=""
  why="$(grep -m 1 -iE 'no protocol negotiated|not support|refused|error|abort' "$file" || true)"
  [[ -n "$why" ]] || why="$(grep -m 1 '^requests: ' "$file" || echo 'h2load printed nothing')"
  # a reference module may say why it speaks no h2 (spindle.reference.h2 in its pom)
  [[ -z "${row_module[$name]:-}" ]] || note="$(sed -n 's|.*<spindle.reference.h2>\(.*\)</spindle.reference.h2>.*|\1|p' \
    "$SPINDLE_ROOT/${row_module[$name]}/pom.xml" 2>/dev/null | head -n 1)"
  echo "NO H2 $name${tag:+ (TLS)} round $r: does not speak $what; h2load: $why (its h2 scenarios are n/a)" >&2
  event "$r" "$name" h2-unavailable "does not speak $what${note:+ ($note)}: one request by h2load got no 2xx answer (h2load: $why)" "$scope"
}

# The routes start "$1/$2" (round $3) does not serve, from its check's output $4 ("absent  <method> <path>":
# a 404 to a route a row may lack, see bench.py OPTIONAL_ROUTES) into route_off; for each one a scenario
# of the start uses, a route-unavailable event (scope "route:<path>"), so those cells show n/a and why.
check_routes() {
  local name="$1" phase="$2" r="$3" method path sc f used
  local -a list=("${PLAIN_SCENARIOS[@]}")
  [[ "$phase" != tls ]] || list=("${TLS_SCENARIOS[@]}")
  unset "route_off[$name/$phase]"
  while read -r _ method path; do
    [[ -n "$path" ]] || continue
    route_off["$name/$phase"]="${route_off[$name/$phase]:- }$path "
    used=""
    for sc in "${list[@]}"; do
      IFS='|' read -r -a f <<<"$sc"
      [[ "${f[2]}" != "$path" ]] || used="${used:+$used, }${f[0]}"
    done
    [[ -n "$used" ]] || continue
    echo "NO ROUTE $name round $r: $method $path answered 404 ($used n/a)" >&2
    event "$r" "$name" route-unavailable "does not serve $method $path (404 to the route check): $used not measured" "route:$path"
  done < <(grep -E '^absent  ' "$4" || true)
}

# A server start: "plain" for PLAIN_SCENARIOS, "tls" with the key store for TLS_SCENARIOS over https.
# Starts row $1 (logs named by round $3), checks every route, records what TLS negotiated, warms it
# up; on success it stays alive in live_pid/live_port/live_start["$1/$2"]. A failure writes its event
# (scope "tls" for the TLS start) and returns 1; exit 3 from the HTTPS check = the port speaks plain
# HTTP: "tls-unavailable".
open_phase() {
  local name="$1" phase="$2" r="$3" dir="$out/raw/$1"
  local tag="" scope="" scheme=http checker="${row_checks[$name]:-$BENCH_PY}" k
  local -a check_args=()
  if [[ "$phase" == tls ]]; then
    tag="tls-" scope=tls scheme=https check_args=(--tls)
    # A baseline's own bench.py may predate --tls; this one checks it then (and finds no TLS).
    grep -q -- '"--tls"' "$checker" || checker="$BENCH_PY"
  fi
  # the remote routes are checked when they have a downstream and the checker knows them (a
  # baseline's may not); every row serves them, the references with their framework's own client
  if [[ -n "$downstream_port" ]] && grep -q -- '"--remote"' "$checker"; then
    check_args+=(--remote)
  fi
  # /remote-tls/100 through the TLS downstream; a row without the route answers 404: its cell is n/a
  if [[ -n "$downstream_tls_port" ]] && grep -q -- '"--remote-tls"' "$checker"; then
    check_args+=(--remote-tls)
  fi
  # /remote-h2/100, the same downstream over HTTP/2, when a scenario calls it (n/a on a 404 likewise)
  if [[ -n "$downstream_tls_port" ]] && (( need_h2_route )) && grep -q -- '"--remote-h2"' "$checker"; then
    check_args+=(--remote-h2)
  fi
  # POST /multipart with the wrk body of each multipart scenario of this start (a baseline's checker may not know it)
  local sc f
  if grep -q -- '"--multipart"' "$checker"; then
    for sc in "${PLAIN_SCENARIOS[@]}" "${TLS_SCENARIOS[@]}"; do
      IFS='|' read -r -a f <<<"$sc"
      [[ "${f[2]}" != /multipart || "${f[4]}" != bench-multipart.lua ]] || check_args+=(--multipart "${f[5]}")
    done
  fi
  local what="$name${tag:+ (TLS)}"
  if [[ "$phase" == tls ]] && h2_only "$name"; then
    echo "NO TLS $name: it speaks only h2c (its TLS scenarios are not measured)" >&2
    event "$r" "$name" warning "no TLS start: the row speaks only h2c by prior knowledge (SPINDLE_BENCH_H2_ONLY_SERVERS)" tls
    return 1
  fi
  mkdir -p "$dir"
  k=$(( ${start_count[$name]:-0} + 1 ))
  start_count[$name]="$k"
  printf '[%d/%d] %s: start %d%s (round %d/%d) ... ETA %s\n' "$(( step + 1 ))" "$total_steps" "$name" "$k" \
    "${tag:+ with TLS}" "$r" "$rounds" "$(eta)" >&2
  starts_left=$(( starts_left > 0 ? starts_left - 1 : 0 ))
  if ! start_server "$name" "$r" "$phase"; then
    echo "FAILED $what round $r: $start_error" >&2
    event "$r" "$name" start-failed "$start_error" "$scope"
    return 1
  fi
  local crc=0
  if h2_only "$name"; then
    # nothing of HTTP/1.1 to check: check_h2 below asks its h2c with one request
    echo "not checked: the row speaks only h2c (SPINDLE_BENCH_H2_ONLY_SERVERS); check_h2 checks its h2" >"$dir/check-${tag}round$r.txt"
  else
    run_child "${client_cmd[@]}" "$SPINDLE_PYTHON" "$checker" check --host "$target_host" --port "$port" "${check_args[@]}" >"$dir/check-${tag}round$r.txt" 2>&1 || crc=$?
  fi
  if (( crc != 0 )); then
    local why kind=check-failed
    why="$(tail -n 1 "$dir/check-${tag}round$r.txt")"
    if [[ "$phase" == tls && "$crc" == 3 ]]; then
      kind=tls-unavailable
      echo "NO TLS $name round $r: $why (its TLS scenarios are not measured)" >&2
    else
      echo "FAILED $what round $r: wrong answers: $why (all checks: $dir/check-${tag}round$r.txt)" >&2
    fi
    event "$r" "$name" "$kind" "$why" "$scope"
    stop_server
    return 1
  fi
  [[ "$phase" != tls ]] || record_tls "$name" "$r"
  check_routes "$name" "$phase" "$r" "$dir/check-${tag}round$r.txt"
  check_h2 "$name" "$phase" "$r" "$scheme://$target_host:$port"
  warm_up "$name" "$k" "$scheme://$target_host:$port" "$phase"
  if ! server_alive; then
    local src=0
    wait "$server_pid" 2>/dev/null || src=$?
    server_pid=""
    echo "FAILED $what round $r: the server exited (status $src) during its warm-up" >&2
    event "$r" "$name" crashed "exited with status $src during the warm-up: $(tail -n 2 "$dir/server-${tag}round$r.err" | tr '\n' ' ')" "$scope"
    return 1
  fi
  live_pid["$name/$phase"]="$server_pid" live_port["$name/$phase"]="$port" live_start["$name/$phase"]="$k"
  server_pid=""
}

# Stops the start "$1/$2" (if alive), and notes a forced stop.
close_phase() {
  local key="$1/$2" scope=""
  [[ "$2" != tls ]] || scope=tls
  [[ -n "${live_start[$key]:-}" ]] || return 0
  server_pid="${live_pid[$key]:-}"
  unset "live_pid[$key]" "live_port[$key]" "live_start[$key]"
  stop_server
  if (( stop_forced )); then
    event "$3" "$1" warning "did not exit within ${STOP_TIMEOUT}s of SIGTERM; killed" "$scope"
  fi
}

# Measures round $3 of the live start "$1/$2": (one start per run) a re-warm of its first scenario,
# then each scenario with wrk (or open-load.sh), the server's CPU sampled around it. Returns 1 when the
# server died (the start is closed then).
measure_phase() {
  local name="$1" phase="$2" r="$3" key="$1/$2" dir="$out/raw/$1" t0=$SECONDS step0="$step"
  local done_here=0 tag="" scope="" scheme=http crc=0
  local -a list=("${PLAIN_SCENARIOS[@]}") measured=()
  if [[ "$phase" == tls ]]; then list=("${TLS_SCENARIOS[@]}") tag="tls-" scope=tls scheme=https; fi
  phase_list "$name" "$phase" measured
  local what="$name${tag:+ (TLS)}" k="${live_start[$key]}"
  server_pid="${live_pid[$key]:-}" port="${live_port[$key]}"
  if [[ "$starts_per_server" == 1 ]] && (( REWARM > 0 )) && (( ${#measured[@]} > 0 )); then
    # idle while the other rows ran: its pools may have shrunk and its caches gone cold (each generator's first scenario)
    : >"$dir/rewarm-${tag}round$r.txt"
    local leader
    for leader in $(warm_leaders "${measured[@]}"); do
      warm_window "${measured[$leader]}" "$scheme://$target_host:$port" "$REWARM" "$dir/rewarm-${tag}round$r.txt"
    done
  fi
  local sc f url cpu0 cpu1 ns0 ns1 cpu_ns rc ticks raw rel started summary rate
  local -A start_rps=()   # req/s of the closed-loop scenarios measured in this round of this start, for the open-model rates
  for sc in "${list[@]}"; do
    IFS='|' read -r -a f <<<"$sc"
    step=$(( step + 1 )) done_here=$(( done_here + 1 ))
    printf '[%d/%d] %s %s round %d/%d (start %d) ... ETA %s\n' "$step" "$total_steps" "$name" "${f[0]}" "$r" "$rounds" "$k" "$(eta)" >&2
    rel="raw/$name/${f[0]}-round$r.txt" raw="$out/raw/$name/${f[0]}-round$r.txt"
    url="$scheme://$target_host:$port${f[2]}"
    if [[ -n "${f[12]:-}" && -n "${h2_off[$key]:-}" ]]; then
      echo "        n/a: this start does not speak h2 (see events.tsv)" >&2
      continue
    fi
    if [[ -z "${f[12]:-}" ]] && h2_only "$name"; then
      echo "        n/a: this row speaks only h2c (SPINDLE_BENCH_H2_ONLY_SERVERS)" >&2
      continue
    fi
    if [[ "${route_off[$key]:-}" == *" ${f[2]} "* ]]; then
      echo "        n/a: this row does not serve ${f[2]} (see events.tsv)" >&2
      continue
    fi
    local cmd=() h2log=""
    if [[ -n "${f[12]:-}" ]]; then
      # h2load appends to its log file: a fresh one per cell, in the private directory (it is large)
      h2log="$snapshot/h2load-latencies.tsv"
      rm -f "$h2log"
      make_h2load_cmd "$sc" "$scheme://$target_host:$port" "$duration" "$H2_WARMUP" "$h2log"
      cmd=("${h2load_cmd[@]}")
    elif [[ -n "${f[11]:-}" ]]; then
      # An open-model scenario: open-load.sh writes a directory (its summary.tsv is what bench.py reads).
      rel="raw/$name/${f[0]}-round$r" raw="$out/raw/$name/${f[0]}-round$r"
      if ! rate="$(open_rate "${f[11]}" start_rps)"; then
        echo "        not measured: $rate" >&2
        event "$r" "$name" warning "${f[0]} not measured: $rate" "$scope"
        continue
      fi
      cmd=("${client_cmd[@]}" "$LIB/open-load.sh" --url "$url" --rate "$rate" --duration "$duration"
        --connections "${f[3]}" --timeout "${f[6]%s}" --out "$raw")
    else
      make_wrk_cmd "$sc" "$url" "$duration" "${f[3]}"
      cmd=("${wrk_cmd[@]}")
    fi
    started="${EPOCHREALTIME/./}"   # microseconds
    rc=0
    if [[ -n "$h2log" ]]; then
      # the server's CPU from the end of h2load's warm-up time, so it pairs with the requests it counts
      "${cmd[@]}" >"$raw" 2>&1 &
      child_pid=$!
      sleep "$H2_WARMUP"
      cpu0="$(cpu_ticks "$server_pid")" ns0="$(cpu_ns_sample "$server_pid")"
      wait "$child_pid" || rc=$?
      child_pid=""
      ns1="$(cpu_ns_sample "$server_pid")" cpu1="$(cpu_ticks "$server_pid")"
      # h2load prints no percentiles: they come from its per-request log, appended to its output
      # a waiting scenario: also its fixed window (bench.py h2load_window_line)
      "$SPINDLE_PYTHON" "$BENCH_PY" h2load-latency "$h2log" $([[ -z "${f[10]:-}" || "${f[10]}" == 0 ]] || echo --window) >>"$raw" 2>&1 || true
      rm -f "$h2log"
    else
      cpu0="$(cpu_ticks "$server_pid")" ns0="$(cpu_ns_sample "$server_pid")"
      # open-load.sh writes its own directory; what it prints goes beside it
      run_child "${cmd[@]}" >"$raw${f[11]:+.log}" 2>&1 || rc=$?
      ns1="$(cpu_ns_sample "$server_pid")" cpu1="$(cpu_ticks "$server_pid")"
    fi
    ticks="-"
    [[ "$cpu0" == - || "$cpu1" == - ]] || ticks=$(( cpu1 - cpu0 ))
    cpu_ns="$(cpu_ns_delta "$ns0" "$ns1")"
    tsv "$r" "$name" "${f[0]}" "$rel" "$ticks" "$rc" \
      "$(awk -v us=$(( ${EPOCHREALTIME/./} - started )) 'BEGIN { printf "%.3f", us / 1e6 }')" "$k" "$cpu_ns" >>"$out/measurements.tsv"
    if [[ -n "${f[11]:-}" ]]; then
      if [[ -s "$raw/summary.tsv" ]]; then
        awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
          { printf "        offered %s req/s, achieved %s, p50 %s ms, p99 %s ms, p99.9 %s ms, max %s ms, errors %s, non-2xx %s, unsent %s\n",
              $c["offered_rate"], $c["achieved_rate"], $c["p50_ms"], $c["p99_ms"], $c["p999_ms"], $c["max_ms"],
              $c["errors"], $c["non2xx"], $c["unsent"] }' "$raw/summary.tsv" >&2
      else
        echo "        open-load.sh failed (exit $rc): see $raw/hyperfoil.log" >&2
      fi
    elif summary="$("$SPINDLE_PYTHON" "$BENCH_PY" parse "$raw" 2>/dev/null)"; then
      local rps avg p99 errs non2xx cpu_text="?"
      IFS=$'\t' read -r rps avg p99 errs non2xx _ <<<"$summary"
      start_rps[${f[0]}]="${rps//,/}"
      if [[ "$cpu_ns" != - ]]; then
        cpu_text="$(awk -v n="$cpu_ns" -v t="$ticks" -v h="$CLK_TCK" 'BEGIN { printf "%.3fs%s", n / 1e9, t == "-" ? "" : sprintf(" (ticks %.2fs)", t / h) }')"
      elif [[ "$ticks" != - ]]; then
        cpu_text="$(awk -v t="$ticks" -v h="$CLK_TCK" 'BEGIN { printf "%.2fs", t / h }')"
      fi
      printf '        %s req/s, avg %s ms, p99 %s ms, %s %s, non-2xx %s, server CPU %s\n' \
        "$rps" "$avg" "$p99" "$(if [[ -n "$h2log" ]]; then echo 'failed streams'; else echo 'socket errors'; fi)" "$errs" "$non2xx" "$cpu_text" >&2
    else
      echo "        ${h2log:+h2load}${h2log:-wrk} failed (exit $rc): $(head -n 3 "$raw" | tr '\n' ' ')" >&2
    fi
    if ! server_alive; then
      local src=0
      wait "$server_pid" 2>/dev/null || src=$?
      echo "FAILED $what round $r: the server exited (status $src) during ${f[0]}" >&2
      event "$r" "$name" crashed "exited with status $src during ${f[0]}: $(tail -n 2 "$dir/server-${tag}round$r.err" | tr '\n' ' ')" "$scope"
      unset "live_pid[$key]" "live_port[$key]" "live_start[$key]"
      crc=1
      break
    fi
    # A pause between scenarios; none after the last one.
    (( PAUSE == 0 || done_here == ${#list[@]} )) || sleep "$PAUSE"
  done
  server_pid=""
  # Steps this start will not run (it failed) still count as done for the progress line.
  step=$(( step + ${#list[@]} - done_here ))
  row_steps[$name]=$(( ${row_steps[$name]:-0} + step - step0 ))
  # The pace for the ETA comes from rounds that measured everything (a failure is quick).
  if (( done_here == ${#list[@]} )); then
    steps_timed=$(( steps_timed + done_here )) timed_seconds=$(( timed_seconds + SECONDS - t0 ))
  fi
  return "$crc"
}

# A start per round (--start-per-round): the row's plain start, measured and stopped, then its TLS
# start likewise. A failure of the plain start ends the row (dead); of the TLS start, its TLS
# scenarios only (tls_dead), so the plain figures stand.
run_server_round() {
  local name="$1" r="$2" ok
  if (( ${#PLAIN_SCENARIOS[@]} > 0 )); then
    ok=0
    if open_phase "$name" plain "$r"; then
      measure_phase "$name" plain "$r" && ok=1
    else
      step=$(( step + ${#PLAIN_SCENARIOS[@]} ))
    fi
    close_phase "$name" plain "$r"
    if (( ! ok )); then
      dead[$name]=1
      step=$(( step + ${#TLS_SCENARIOS[@]} ))   # not started with TLS either
      return 0
    fi
  fi
  if (( ${#TLS_SCENARIOS[@]} > 0 )); then
    if [[ -n "${tls_dead[$name]:-}" ]]; then
      step=$(( step + ${#TLS_SCENARIOS[@]} ))
      return 0
    fi
    ok=0
    if open_phase "$name" tls "$r"; then
      measure_phase "$name" tls "$r" && ok=1
    else
      step=$(( step + ${#TLS_SCENARIOS[@]} ))
    fi
    close_phase "$name" tls "$r"
    if (( ! ok )); then
      tls_dead[$name]=1
      # Only TLS scenarios and they failed: nothing left to run for this row.
      (( ${#PLAIN_SCENARIOS[@]} > 0 )) || dead[$name]=1
    fi
  fi
  return 0
}

# One start per row for the whole run (the default): every row's starts first, each warmed up while
# the rows before it wait, all alive at once on their own ports; then the rounds, interleaved across
# them, each row's scenarios after a re-warm; every start stopped at the end.
run_started_once() {
  local name r
  for name in "${run_rows[@]}"; do
    [[ -z "${dead[$name]:-}" ]] || continue
    if (( ${#PLAIN_SCENARIOS[@]} > 0 )) && ! open_phase "$name" plain 1; then
      dead[$name]=1
      step=$(( step + rounds * ${#SCENARIOS[@]} ))
      (( ${#TLS_SCENARIOS[@]} == 0 )) || starts_left=$(( starts_left > 0 ? starts_left - 1 : 0 ))
      continue
    fi
    if (( ${#TLS_SCENARIOS[@]} > 0 )) && ! open_phase "$name" tls 1; then
      tls_dead[$name]=1
      step=$(( step + rounds * ${#TLS_SCENARIOS[@]} ))
      row_steps[$name]=$(( ${row_steps[$name]:-0} + rounds * ${#TLS_SCENARIOS[@]} ))
      (( ${#PLAIN_SCENARIOS[@]} > 0 )) || dead[$name]=1
    fi
  done
  for (( r = 1; r <= rounds; r++ )); do
    for name in "${run_rows[@]}"; do
      [[ -z "${dead[$name]:-}" ]] || continue
      if (( ${#PLAIN_SCENARIOS[@]} > 0 )) && ! measure_phase "$name" plain "$r"; then
        # it crashed: the rest of its steps (TLS ones included) will not run
        dead[$name]=1
        close_phase "$name" tls "$r"
        step=$(( step + rounds * ${#SCENARIOS[@]} - ${row_steps[$name]:-0} ))
        continue
      fi
      if (( ${#TLS_SCENARIOS[@]} > 0 )) && [[ -z "${tls_dead[$name]:-}" ]] && ! measure_phase "$name" tls "$r"; then
        tls_dead[$name]=1
        step=$(( step + (rounds - r) * ${#TLS_SCENARIOS[@]} ))
        row_steps[$name]=$(( ${row_steps[$name]:-0} + (rounds - r) * ${#TLS_SCENARIOS[@]} ))
        (( ${#PLAIN_SCENARIOS[@]} > 0 )) || dead[$name]=1
      fi
    done
  done
  for name in "${run_rows[@]}"; do
    close_phase "$name" plain "$rounds"
    close_phase "$name" tls "$rounds"
  done
}

# The correctness column: the shared conformance cases, sent over the network from the clients'
# side to a start of each row's own before round 1, so the measured starts see only their warm-up
# and scenarios. conformance/<row>.tsv holds every case; summary.md shows passed/total per row.
run_conformance() {
  local name="$1" dir="$out/raw/$1" rc=0 last
  mkdir -p "$dir" "$out/conformance"
  echo "conformance: $name ..." >&2
  if ! start_server "$name" 0 conformance; then
    echo "FAILED $name (conformance start): $start_error" >&2
    event 0 "$name" warning "conformance not checked: the server did not start ($start_error)"
    return 0
  fi
  run_child "${client_cmd[@]}" "${conformance_cmd[@]}" "$target_host:$port" "$out/conformance/$name.tsv" \
    >"$dir/conformance.txt" 2>&1 || rc=$?
  stop_server
  last="$(tail -n 1 "$dir/conformance.txt")"
  if (( rc == 0 || rc == 1 )); then
    echo "        conformance $last passed" >&2
  else
    rm -f "$out/conformance/$name.tsv"
    echo "warning: the conformance check of $name could not run (exit $rc): $last" >&2
    event 0 "$name" warning "conformance not checked: the check could not run (exit $rc): $last"
  fi
}
conformance_cmd=("$SCRIPTS/conformance-check.sh")
if (( conformance )); then
  for name in "${run_rows[@]}"; do
    # the cases are HTTP/1.1: an h2-only row has no correctness column
    [[ -n "${dead[$name]:-}" ]] || h2_only "$name" || run_conformance "$name"
  done
fi

if [[ "$starts_per_server" == 1 ]]; then
  run_started_once
else
  for (( r = 1; r <= rounds; r++ )); do
    for name in "${run_rows[@]}"; do
      if [[ -n "${dead[$name]:-}" ]]; then
        # Failed before: skip, but keep the step count honest.
        [[ -z "${row_failure[$name]:-}" ]] && step=$(( step + ${#SCENARIOS[@]} ))
        continue
      fi
      run_server_round "$name" "$r"
    done
  done
fi
trap - INT TERM
if (( need_downstream )) && ! spindle_pid_alive "$downstream_pid"; then
  echo "warning: the downstream $DOWNSTREAM_CLASS exited during the run; remote figures after that are 502s" >&2
  event - downstream warning "the downstream $DOWNSTREAM_CLASS exited during the run: $(tail -n 2 "$out/raw/downstream/server.err" | tr '\n' ' ')"
fi
if (( need_tls_downstream )) && ! spindle_pid_alive "$downstream_tls_pid"; then
  echo "warning: the TLS downstream $DOWNSTREAM_CLASS exited during the run; remote-tls and remote-h2 figures after that are 502s" >&2
  event - downstream warning "the TLS downstream $DOWNSTREAM_CLASS exited during the run: $(tail -n 2 "$out/raw/downstream-tls/server.err" | tr '\n' ' ')"
fi
stop_downstream


printf '%s\t%s\n' finished "$(date -u '+%Y-%m-%d %H:%M:%S')" >>"$out/meta.tsv"
(( ${#TLS_SCENARIOS[@]} == 0 )) || write_tls_environment >>"$out/environment.md"
{
  echo
  echo "Finished $(date -u '+%Y-%m-%d %H:%M:%S') UTC; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} >>"$out/environment.md"

report_args=("$out")
(( quick )) && report_args+=(--strict)
# Only a full run inside results/ becomes "the latest run" that results/README.md shows.
if (( ! quick )) && [[ -z "$baseline$scenarios_arg$target" && "$out" == "$SPINDLE_ROOT/results/"* && "$out" != "$SPINDLE_ROOT/results/ab/"* ]]; then
  report_args+=(--readme "$SPINDLE_ROOT/results/README.md")
fi
rc=0
"$SPINDLE_PYTHON" "$BENCH_PY" report "${report_args[@]}" || rc=$?
spindle_pack_raw "$out"
echo >&2
echo "results: $out/summary.md (charts in $out/charts/, raw wrk output in $out/$([[ -d "$out/raw" ]] && echo raw/ || echo raw.tar.gz))" >&2
if (( rc != 0 )); then
  echo "FAILED: see the problems above" >&2
  exit 1
fi
