// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * A WebSocket and SSE load generator: opens the connections, runs the warm-up and the measured
 * window, closes, and writes one JSON object (see tools/ws-load/README.md).
 * Exit status: 0 the run finished (errors are counted, not fatal), 1 nothing opened or the run failed,
 * 2 bad arguments.
 */
public final class WsLoad {
    private static final long ECHO_DRAIN_NANOS = 5_000_000_000L;
    private static final long JOIN_MILLIS = 15_000;

    private WsLoad() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("ws-load: " + e.getMessage());
            System.err.println(Options.USAGE);
            return 2;
        }
        if (o == null) {
            System.out.println(Options.USAGE);
            return 0;
        }
        if (o.pid() > 0 && !ServerCpu.readable(o.pid())) {
            System.err.println("ws-load: --pid " + o.pid() + ": /proc/" + o.pid() + "/stat cannot be read");
            return 2;
        }
        if (new java.net.InetSocketAddress(o.host(), o.port()).isUnresolved()) {
            System.err.println("ws-load: --host " + o.host() + " does not resolve");
            return 2;
        }
        try {
            return measure(o);
        } catch (IOException | RuntimeException e) {
            System.err.println("ws-load: the run failed: " + e);
            return 1;
        }
    }

    private static int measure(Options o) throws IOException {
        ServerCpu cpu = new ServerCpu(o.pid());
        Run run = new Run(o);
        Loop[] loops = new Loop[o.threads()];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new Loop(run);
        }
        if (o.mode().equals("broadcast")) {
            loops[0].conns.add(new WsConn(loops[0], WsConn.Role.PUBLISHER, "/ws/broadcast"));
        } else if (o.mode().equals("sse")) {
            loops[0].conns.add(new SsePublisher(loops[0]));
        }
        for (int i = 0; i < o.connections(); i++) {
            Loop l = loops[i % loops.length];
            l.conns.add(switch (o.mode()) {
                case "echo" -> new WsConn(l, WsConn.Role.ECHO, "/ws/echo");
                case "broadcast" -> new WsConn(l, WsConn.Role.SUBSCRIBER, "/ws/broadcast");
                default -> new SseStream(l);
            });
        }
        int total = o.connections() + (o.publishes() ? 1 : 0);
        Thread[] threads = new Thread[loops.length];
        long openStart = System.nanoTime();
        for (int i = 0; i < loops.length; i++) {
            threads[i] = new Thread(loops[i], "ws-load-" + i);
            threads[i].start();
        }
        while (run.finishedOpening.get() < total && run.failure == null && anyAlive(threads)) {
            LockSupport.parkNanos(2_000_000L);
        }
        double openSeconds = (System.nanoTime() - openStart) / 1e9;

        String failed = null;
        if (run.failure != null) {
            failed = "selector thread failed while opening: " + run.failure;
        } else if (run.opened.get() == 0) {
            failed = "no connection opened";
        } else if (o.publishes() && !run.publisherOpen) {
            failed = "the publisher connection did not open";
        }
        ServerCpu.Sample start = null;
        ServerCpu.Sample end = null;
        ServerCpu.Sample[] bounds = new ServerCpu.Sample[o.windows() + 1];
        if (failed == null) {
            // A first reading loads the classes, so the one at the window's start is not late.
            cpu.sample();
            long trafficStart = System.nanoTime();
            run.windowStart = trafficStart + (long) (o.warmup() * 1e9);
            long windowNanos = (long) (o.duration() * 1e9);
            run.windowEnd = run.windowStart + windowNanos * o.windows();
            setPhase(run, loops, Run.RUN);
            sleepUntil(run.windowStart);
            bounds[0] = cpu.sample();
            for (int w = 1; w <= o.windows(); w++) {
                sleepUntil(run.windowStart + windowNanos * w);
                bounds[w] = cpu.sample();
            }
            start = bounds[0];
            end = bounds[o.windows()];
            setPhase(run, loops, Run.DRAIN);
            long drainUntil = System.nanoTime() + (o.publishes() ? Publishing.EXPIRY_NANOS + 1_000_000_000L : ECHO_DRAIN_NANOS);
            while (!allDrained(loops) && System.nanoTime() - drainUntil < 0 && run.failure == null) {
                LockSupport.parkNanos(2_000_000L);
            }
            if (run.failure != null) {
                failed = "selector thread failed: " + run.failure;
            }
        }
        setPhase(run, loops, Run.CLOSE);
        boolean joined = true;
        for (Thread t : threads) {
            try {
                t.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            joined &= !t.isAlive();
        }
        if (!joined && failed == null) {
            failed = "selector threads did not finish closing";
        }
        if (run.failure != null && failed == null) {
            failed = "selector thread failed: " + run.failure;
        }
        Map<String, Object> report = report(o, run, loops, cpu, openSeconds, start, end, failed);
        report.put("windows", start != null && end != null ? windows(o, loops, cpu, bounds) : null);
        String json = Json.write(report);
        if (o.out() != null) {
            Files.writeString(Path.of(o.out()), json, StandardCharsets.UTF_8);
        } else {
            System.out.print(json);
        }
        System.err.println(summary(report));
        return failed == null ? 0 : 1;
    }

    /** Each measured window's completions and CPU, so a warm-up judges its trend from one run. */
    private static List<Map<String, Object>> windows(Options o, Loop[] loops, ServerCpu cpu, ServerCpu.Sample[] bounds) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int w = 0; w < o.windows(); w++) {
            ServerCpu.Sample a = bounds[w];
            ServerCpu.Sample b = bounds[w + 1];
            long completions = 0;
            for (Loop l : loops) {
                completions += l.windowCompletions[w];
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("window_s", o.duration());
            m.put("completions", completions);
            boolean server = o.pid() > 0 && a.ticks() >= 0 && b.ticks() >= 0;
            m.put("server_cpu_ticks_s", server ? round((b.ticks() - a.ticks()) / (double) cpu.clockTicks, 3) : null);
            m.put("server_cpu_schedstat_s", server ? round((b.schedNanos() - a.schedNanos()) / 1e9, 6) : null);
            m.put("client_cpu_s", a.clientNanos() >= 0 ? round((b.clientNanos() - a.clientNanos()) / 1e9, 3) : null);
            out.add(m);
        }
        return out;
    }

    private static boolean anyAlive(Thread[] threads) {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    private static boolean allDrained(Loop[] loops) {
        for (Loop l : loops) {
            if (!l.drained) {
                return false;
            }
        }
        return true;
    }

    private static void setPhase(Run run, Loop[] loops, int phase) {
        run.phase = phase;
        for (Loop l : loops) {
            l.wakeup();
        }
    }

    private static void sleepUntil(long nanos) {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private static Map<String, Object> report(Options o, Run run, Loop[] loops, ServerCpu cpu, double openSeconds,
            ServerCpu.Sample start, ServerCpu.Sample end, String failed) {
        Histogram latency = new Histogram();
        Map<String, Long> errors = new TreeMap<>();
        Map<String, Long> openFailures = new TreeMap<>();
        Map<String, Long> closeCodes = new TreeMap<>();
        long completions = 0;
        long published = 0;
        long publishedInWindow = 0;
        long incomplete = 0;
        long missing = 0;
        for (Loop l : loops) {
            latency.add(l.latency);
            completions += l.completions;
            published += l.published;
            publishedInWindow += l.publishedInWindow;
            incomplete += l.incomplete;
            missing += l.missing;
            l.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
            l.openFailures.forEach((k, v) -> openFailures.merge(k, v, Long::sum));
            l.closeCodes.forEach((k, v) -> closeCodes.merge(k, v, Long::sum));
        }
        boolean measured = start != null && end != null;
        double window = measured ? (run.windowEnd - run.windowStart) / 1e9 : 0;
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("mode", o.mode());
        r.put("host", o.host());
        r.put("port", o.port());
        r.put("connections", o.connections());
        r.put("threads", o.threads());
        r.put("size", o.size());
        r.put("inflight", o.publishes() ? o.inflight() : null);
        r.put("open_concurrency", o.openConcurrency());
        r.put("open_timeout_s", o.openTimeout());
        r.put("opened", run.opened.get());
        r.put("publisher_open", o.publishes() ? run.publisherOpen : null);
        r.put("open_failures", openFailures);
        r.put("open_seconds", round(openSeconds, 3));
        r.put("warmup_s", o.warmup());
        r.put("window_s", measured ? window : null);
        r.put("cpu_window_s", measured ? round((end.nanos() - start.nanos()) / 1e9, 6) : null);
        r.put("completions", completions);
        r.put("rate_per_s", measured ? round(completions / window, 1) : null);
        Double ticksS = null;
        Double schedS = null;
        if (measured && o.pid() > 0 && start.ticks() >= 0 && end.ticks() >= 0) {
            ticksS = round((end.ticks() - start.ticks()) / (double) cpu.clockTicks, 3);
            schedS = round((end.schedNanos() - start.schedNanos()) / 1e9, 6);
        }
        r.put("server_pid", o.pid() > 0 ? o.pid() : null);
        r.put("clk_tck", o.pid() > 0 ? cpu.clockTicks : null);
        r.put("server_cpu_ticks_s", ticksS);
        r.put("server_cpu_schedstat_s", schedS);
        r.put("server_threads", measured && o.pid() > 0 ? Map.of("start", start.threads(), "end", end.threads()) : null);
        Map<String, Object> perCpu = new LinkedHashMap<>();
        perCpu.put("schedstat", schedS != null && schedS > 0 ? round(completions / schedS, 1) : null);
        perCpu.put("ticks", ticksS != null && ticksS > 0 ? round(completions / ticksS, 1) : null);
        r.put("per_server_cpu_s", perCpu);
        r.put("client_cpu_s", measured && start.clientNanos() >= 0 ? round((end.clientNanos() - start.clientNanos()) / 1e9, 3) : null);
        Map<String, Object> lat = new LinkedHashMap<>();
        lat.put("p50", latency.quantile(0.50));
        lat.put("p90", latency.quantile(0.90));
        lat.put("p99", latency.quantile(0.99));
        lat.put("p999", latency.quantile(0.999));
        lat.put("max", latency.max());
        lat.put("count", latency.count());
        r.put("latency_us", lat);
        r.put("published", o.publishes() ? published : null);
        r.put("published_in_window", o.publishes() ? publishedInWindow : null);
        r.put("incomplete_messages", o.publishes() ? incomplete : null);
        r.put("missing_deliveries", o.publishes() ? missing : null);
        r.put("errors", errors);
        r.put("close_codes", closeCodes);
        r.put("java_version", System.getProperty("java.version"));
        r.put("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        r.put("failed", failed);
        return r;
    }

    private static String summary(Map<String, Object> r) {
        @SuppressWarnings("unchecked")
        Map<String, Object> lat = (Map<String, Object>) r.get("latency_us");
        @SuppressWarnings("unchecked")
        Map<String, Object> perCpu = (Map<String, Object>) r.get("per_server_cpu_s");
        @SuppressWarnings("unchecked")
        Map<String, Long> errors = (Map<String, Long>) r.get("errors");
        long errorCount = errors.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder sb = new StringBuilder();
        if (r.get("window_s") == null) {
            sb.append(String.format(Locale.ROOT, "ws-load %s c%s: opened %s/%s in %ss; not measured; open failures %s; FAILED: %s",
                    r.get("mode"), r.get("connections"), r.get("opened"), r.get("connections"), r.get("open_seconds"),
                    r.get("open_failures"), r.get("failed")));
            return sb.toString();
        }
        sb.append(String.format(Locale.ROOT, "ws-load %s c%s: opened %s/%s in %ss; %s completions in %ss = %s/s; latency us p50 %s p99 %s p99.9 %s max %s",
                r.get("mode"), r.get("connections"), r.get("opened"), r.get("connections"), r.get("open_seconds"), r.get("completions"),
                r.get("window_s"), r.get("rate_per_s"), lat.get("p50"), lat.get("p99"), lat.get("p999"), lat.get("max")));
        if (r.get("server_cpu_schedstat_s") != null) {
            sb.append(String.format(Locale.ROOT, "; server cpu %ss (ticks %ss) = %s per cpu-s", r.get("server_cpu_schedstat_s"),
                    r.get("server_cpu_ticks_s"), perCpu.get("schedstat")));
        }
        sb.append("; client cpu ").append(r.get("client_cpu_s")).append('s');
        if (r.get("published") != null) {
            sb.append("; published ").append(r.get("published")).append(", incomplete ").append(r.get("incomplete_messages"))
                    .append(" (missing ").append(r.get("missing_deliveries")).append(')');
        }
        sb.append("; errors ").append(errorCount == 0 ? "0" : errors.toString());
        if (!((Map<?, ?>) r.get("open_failures")).isEmpty()) {
            sb.append("; open failures ").append(r.get("open_failures"));
        }
        if (r.get("failed") != null) {
            sb.append("; FAILED: ").append(r.get("failed"));
        }
        return sb.toString();
    }

    private static double round(double v, int places) {
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }
}
