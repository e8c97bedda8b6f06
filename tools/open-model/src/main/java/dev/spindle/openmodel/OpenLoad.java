// SPDX-License-Identifier: Apache-2.0
package dev.spindle.openmodel;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

import io.hyperfoil.api.config.Benchmark;
import io.hyperfoil.api.config.BenchmarkData;
import io.hyperfoil.api.config.Phase;
import io.hyperfoil.api.session.PhaseInstance;
import io.hyperfoil.api.statistics.StatisticsSnapshot;
import io.hyperfoil.core.impl.LocalSimulationRunner;
import io.hyperfoil.core.parser.BenchmarkParser;
import io.hyperfoil.http.statistics.HttpStats;

/**
 * One constant-rate (open-model) GET load with Hyperfoil's engine run in this JVM, written as
 * summary.tsv and percentiles.tsv. Hyperfoil does the load and the measuring; this class only writes
 * the benchmark definition from the arguments and turns Hyperfoil's statistics into the two tables.
 *
 * <p>Exit status: 0 measured, 1 could not run, 2 bad arguments, 3 measured but the generator fell
 * behind its schedule (its session pool ran out, or requests were not sent), so the latency
 * understates what the offered rate would have seen.
 */
public final class OpenLoad {
   private static final String TEST_PHASE = "test";
   private static final double NANOS_PER_MS = 1_000_000.0;

   private OpenLoad() {
   }

   public static void main(String[] args) {
      Map<String, String> opts;
      try {
         opts = parse(args);
      } catch (IllegalArgumentException e) {
         System.err.println("error: " + e.getMessage());
         System.err.println("usage: OpenLoad --url URL --rate REQ_PER_S --duration S --warmup S --connections N"
               + " --threads N --max-sessions N --timeout S --out DIR");
         System.exit(2);
         return;
      }
      try {
         System.exit(run(opts));
      } catch (Exception e) {
         System.err.println("error: the load did not run: " + e);
         e.printStackTrace();
         System.exit(1);
      }
   }

   private static Map<String, String> parse(String[] args) {
      Map<String, String> opts = new HashMap<>();
      for (int i = 0; i < args.length; i += 2) {
         if (!args[i].startsWith("--") || i + 1 >= args.length) {
            throw new IllegalArgumentException("expected --name value pairs, got '" + args[i] + "'");
         }
         opts.put(args[i].substring(2), args[i + 1]);
      }
      for (String required : new String[] { "url", "rate", "duration", "warmup", "connections", "threads",
            "max-sessions", "timeout", "out" }) {
         if (!opts.containsKey(required)) {
            throw new IllegalArgumentException("missing --" + required);
         }
      }
      return opts;
   }

   private static int run(Map<String, String> opts) throws Exception {
      URI url = URI.create(opts.get("url"));
      if (!"http".equals(url.getScheme()) || url.getHost() == null) {
         throw new IllegalArgumentException("only http://host:port/path URLs: " + url);
      }
      double rate = Double.parseDouble(opts.get("rate"));
      int duration = Integer.parseInt(opts.get("duration"));
      int warmup = Integer.parseInt(opts.get("warmup"));
      int connections = Integer.parseInt(opts.get("connections"));
      int threads = Integer.parseInt(opts.get("threads"));
      int maxSessions = Integer.parseInt(opts.get("max-sessions"));
      int timeout = Integer.parseInt(opts.get("timeout"));
      Path out = Path.of(opts.get("out"));
      Files.createDirectories(out);

      String yaml = benchmarkYaml(url, rate, duration, warmup, connections, threads, maxSessions, timeout);
      Files.writeString(out.resolve("benchmark.hf.yaml"), yaml);
      Benchmark benchmark = BenchmarkParser.instance().buildBenchmark(
            new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), BenchmarkData.EMPTY, Map.of());

      Map<String, StatisticsSnapshot> totals = new ConcurrentHashMap<>();
      Map<String, Integer> peakSessions = new ConcurrentHashMap<>();
      Map<String, Boolean> sessionLimitExceeded = new ConcurrentHashMap<>();
      LocalSimulationRunner runner = new LocalSimulationRunner(benchmark,
            (phase, stepId, metric, snapshot, countDown) -> totals
                  .computeIfAbsent(phase.name(), p -> new StatisticsSnapshot()).add(snapshot),
            (phase, min, max) -> peakSessions.merge(phase, max, Math::max),
            null) {
         @Override
         protected CompletableFuture<Void> phaseChanged(Phase phase, PhaseInstance.Status status, boolean limitExceeded,
               Throwable error) {
            if (limitExceeded) {
               sessionLimitExceeded.put(phase.name(), true);
            }
            return super.phaseChanged(phase, status, limitExceeded, error);
         }
      };
      runner.run();

      StatisticsSnapshot test = totals.get(TEST_PHASE);
      if (test == null || test.requestCount == 0) {
         System.err.println("error: Hyperfoil recorded no request in the measured phase (is the server up at " + url + "?)");
         return 1;
      }
      long expected = Math.round(rate * duration);
      // Requests due in the window that never went out. A few go missing at the window's edges (the phase ends on
      // a millisecond timer); past 1% of the schedule the generator itself was the bottleneck.
      long unsent = Math.max(0, expected - test.requestCount);
      boolean behind = unsent > Math.max(2, expected / 100);
      boolean limit = sessionLimitExceeded.getOrDefault(TEST_PHASE, false);
      writeSummary(out.resolve("summary.tsv"), test, rate, duration, connections, threads, maxSessions,
            peakSessions.getOrDefault(TEST_PHASE, 0), limit, unsent);
      writePercentiles(out.resolve("percentiles.tsv"), test.histogram);
      if (limit || behind) {
         System.err.printf(Locale.ROOT, "error: the generator fell behind the schedule (session pool of %d exhausted: %s,"
               + " requests due but not sent: %d): the latency figures understate the offered load%n",
               maxSessions, limit, unsent);
         return 3;
      }
      return 0;
   }

   /** Hyperfoil's own benchmark format, so the file kept in the output directory can be rerun by Hyperfoil itself. */
   static String benchmarkYaml(URI url, double rate, int duration, int warmup, int connections, int threads,
         int maxSessions, int timeout) {
      int port = url.getPort() < 0 ? 80 : url.getPort();
      String path = (url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath())
            + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
      StringBuilder y = new StringBuilder();
      y.append("name: open-load\n");
      y.append("threads: ").append(threads).append('\n');
      y.append("http:\n");
      y.append("  host: http://").append(url.getHost()).append(':').append(port).append('\n');
      y.append("  sharedConnections: ").append(connections).append('\n');
      y.append("  requestTimeout: ").append(timeout).append("s\n");
      // wrk sends neither cookies nor a User-Agent per session; keep the requests the same shape.
      y.append("ergonomics:\n  repeatCookies: false\n  userAgentFromSession: false\n");
      y.append("phases:\n");
      String scenario = "      scenario:\n"
            + "      - request:\n"
            + "        - httpRequest:\n"
            + "            GET: '" + path.replace("'", "''") + "'\n";
      if (warmup > 0) {
         y.append(phase("warmup", rate, warmup, timeout, maxSessions, null, true)).append(scenario);
      }
      y.append(phase(TEST_PHASE, rate, duration, timeout, maxSessions, warmup > 0 ? "warmup" : null, false)).append(scenario);
      return y.toString();
   }

   private static String phase(String name, double rate, int duration, int timeout, int maxSessions, String after,
         boolean isWarmup) {
      // variance false: a fixed interval between requests (as wrk2), so the count due in the window is exact
      return "- " + name + ":\n"
            + "    constantRate:\n"
            + "      usersPerSec: " + String.format(Locale.ROOT, "%.3f", rate) + "\n"
            + "      variance: false\n"
            + "      maxSessions: " + maxSessions + "\n"
            + "      duration: " + duration + "s\n"
            // the requests still out when the phase ends may take up to the timeout to finish
            + "      maxDuration: " + (duration + timeout + 1) + "s\n"
            + (after == null ? "" : "      startAfterStrict: " + after + "\n")
            + (isWarmup ? "      isWarmup: true\n" : "");
   }

   private static void writeSummary(Path file, StatisticsSnapshot s, double rate, int duration, int connections,
         int threads, int maxSessions, int peakSessions, boolean limitExceeded, long unsent) throws IOException {
      HttpStats http = HttpStats.get(s);
      AbstractHistogram h = s.histogram;
      long non2xx = http.status_3xx + http.status_4xx + http.status_5xx + http.status_other;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("offered_rate", fmt(rate));
      row.put("achieved_rate", fmt((double) s.responseCount / duration));
      row.put("requests", Long.toString(s.requestCount));
      row.put("responses", Long.toString(s.responseCount));
      row.put("errors", Long.toString(s.connectionErrors + s.requestTimeouts + s.internalErrors));
      row.put("timeouts", Long.toString(s.requestTimeouts));
      row.put("non2xx", Long.toString(non2xx));
      row.put("p50_ms", ms(h.getValueAtPercentile(50)));
      row.put("p90_ms", ms(h.getValueAtPercentile(90)));
      row.put("p99_ms", ms(h.getValueAtPercentile(99)));
      row.put("p999_ms", ms(h.getValueAtPercentile(99.9)));
      row.put("max_ms", ms(h.getMaxValue()));
      row.put("mean_ms", fmt(h.getMean() / NANOS_PER_MS));
      // total time requests waited for a free connection; already inside their latency
      row.put("blocked_ms", fmt(s.blockedTime / NANOS_PER_MS));
      row.put("unsent", Long.toString(unsent));
      row.put("session_limit_exceeded", limitExceeded ? "1" : "0");
      row.put("peak_sessions", Integer.toString(peakSessions));
      row.put("max_sessions", Integer.toString(maxSessions));
      row.put("connections", Integer.toString(connections));
      row.put("threads", Integer.toString(threads));
      row.put("duration_s", Integer.toString(duration));
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
         w.println(String.join("\t", row.keySet()));
         w.println(String.join("\t", row.values()));
      }
   }

   /** HdrHistogram's percentile ticks (5 per halving of the distance to 100%), then the maximum at 100. */
   private static void writePercentiles(Path file, AbstractHistogram h) throws IOException {
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
         w.println("percentile\tlatency_ms\tcount");
         for (HistogramIterationValue v : h.percentiles(5)) {
            if (v.getPercentileLevelIteratedTo() >= 100.0) {
               break;
            }
            w.println(String.format(Locale.ROOT, "%.6f\t%s\t%d", v.getPercentileLevelIteratedTo(),
                  ms(v.getValueIteratedTo()), v.getTotalCountToThisValue()));
         }
         w.println(String.format(Locale.ROOT, "100\t%s\t%d", ms(h.getMaxValue()), h.getTotalCount()));
      }
   }

   private static String ms(long nanos) {
      return String.format(Locale.ROOT, "%.3f", nanos / NANOS_PER_MS);
   }

   private static String fmt(double v) {
      return String.format(Locale.ROOT, "%.3f", v);
   }
}
