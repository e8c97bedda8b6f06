# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# The server rows of the benchmark matrix (scripts/benchmark-servers.sh), in display order.
# Source it; do not run it.
#
# One row: "<display name>|<main class simple name>|<extra JVM arguments, space-separated>[|<workers>]"
#   - the class is found in the tree by spindle_find_server, so its module needs no mention;
#   - the same class may appear in several rows with different -D properties (a variant
#     is configuration, so it gets its own row and its own fresh JVM);
#   - <workers> replaces the run's worker count for that row, to compare engines at the same
#     thread count (IoUringServer with one ring against SingleLoopServer's one loop).
# A module adds its rows here when it lands. Until its class exists, a row is skipped with a
# note (or is a "not built" failure row when asked for by name with --servers).

# shellcheck disable=SC2034  # read by benchmark-servers.sh
SPINDLE_BENCH_SERVERS=(
  # blocking-server
  "SingleThreadServer|SingleThreadServer|"
  "ThreadPerConnectionServer|ThreadPerConnectionServer|"
  # 200 threads: Tomcat's default maximum, a pool as people run one
  "ThreadPoolServer|ThreadPoolServer||200"
  "VirtualThreadServer|VirtualThreadServer|"
  "VirtualThreadServer-jdkclient|VirtualThreadServer|-Dspindle.remote.client=jdk"
  # the JDK's other poller mode (one platform thread per poller, not virtual threads): a lever of issue 41
  "VirtualThreadServer-pollerMode1|VirtualThreadServer|-Djdk.pollerMode=1"
  # nio-servers: one engine, four topologies, plus busy-polling as a variant
  "SingleLoopServer|SingleLoopServer|"
  "MultiLoopServer|MultiLoopServer|"
  "MultiLoopServer-busypoll|MultiLoopServer|-Dspindle.busyPoll=true"
  # the remote routes through the JDK HttpClient instead of Spindle's Client (its own selector thread)
  "MultiLoopServer-jdkclient|MultiLoopServer|-Dspindle.remote.client=jdk"
  # with SpindleMetrics on a Prometheus registry (launchers' Launch): what metrics cost per request
  "MultiLoopServer-micrometer|MultiLoopServer|-Dspindle.metrics=micrometer"
  "BossWorkerServer|BossWorkerServer|"
  "ReusePortServer|ReusePortServer|"
  # iouring-server
  "IoUringServer|IoUringServer|"
  "IoUringServer-1ring|IoUringServer||1"
  "IoUringServer-jdkclient|IoUringServer|-Dspindle.remote.client=jdk"
  # netty-server: the Netty reference, in Netty's own idiom (epoll, NIO where epoll is unavailable)
  "NettyServer|NettyServer|"
  # a yardstick, h2 only: the plainest Netty h2c server (prior knowledge, 200 "Hello, World!" to any
  # request), what the reference's h2 path is held against; in SPINDLE_BENCH_H2_ONLY_SERVERS below,
  # not in SPINDLE_BENCH_DEFAULT_SERVERS. Run it by name with h2c scenarios: --servers
  # NettyServer,NettyHttp2Hello --scenarios plaintext-h2c,plaintext-h2c-16x64
  "NettyHttp2Hello|NettyHttp2HelloServer|"
  # references/: the frameworks users would pick instead, each its own module (reference rows)
  # Spring Boot MVC on Tomcat: the same app on virtual threads, and on Tomcat's platform pool
  # (200 threads, Boot's default maximum; the -D wins over the run's worker count)
  "SpringMvc-virtual|SpringMvcServer|-Dspring.threads.virtual.enabled=true"
  "SpringMvc-pool200|SpringMvcServer|-Dserver.tomcat.threads.max=200"
  "HelidonSeServer|HelidonSeServer|"
  # Spring Boot WebFlux on Reactor Netty (the blocking routes offloaded to bounded-elastic, the default)
  "SpringWebFlux|SpringWebFluxServer|"
  "VertxServer|VertxServer|"
)

# Reference rows: every row whose class lives under references/, plus the rows of these classes
# (NettyServer, the Netty reference, is the top-level module netty-server). Every row's "vs best reference"
# is its req/s divided by the best reference row's in the same scenario, which the summary names.
# shellcheck disable=SC2034
SPINDLE_BENCH_REFERENCE_CLASSES=(NettyServer)

# Rows that speak only h2c with prior knowledge: no HTTP/1.1 route check, no correctness column (the
# conformance cases are HTTP/1.1), no TLS start; their HTTP/1.1 scenarios are n/a. Their h2 is checked
# as every row's, by one h2load request before the warm-up.
# shellcheck disable=SC2034
SPINDLE_BENCH_H2_ONLY_SERVERS=(NettyHttp2Hello)

# The default run (neither --quick nor --full, no --servers): one row per I/O model of Spindle's
# and every reference row, so the main job ends within 20 minutes on 2 cores; --full runs them all.
# shellcheck disable=SC2034
SPINDLE_BENCH_DEFAULT_SERVERS=(
  ThreadPoolServer VirtualThreadServer MultiLoopServer IoUringServer NettyServer
  SpringMvc-virtual SpringMvc-pool200 SpringWebFlux HelidonSeServer VertxServer
)

# --open-model without --servers: one row per family of I/O model (a platform-thread pool, virtual
# threads, event loops, io_uring) and the Netty reference.
# shellcheck disable=SC2034
SPINDLE_BENCH_OPEN_SERVERS=(
  ThreadPoolServer VirtualThreadServer MultiLoopServer IoUringServer NettyServer
)

# --quick without --servers: the first of these groups whose classes all exist.
# shellcheck disable=SC2034
SPINDLE_BENCH_QUICK_SERVERS=(
  "VirtualThreadServer NettyServer"
  "VirtualThreadServer ThreadPerConnectionServer"
)
