// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer.bench;

import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bench.Requests;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.micrometer.SpindleMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Core's HTTP/1.1 round trip ({@code dev.spindle.core.bench.CoreRoundTripBenchmark}: the plaintext
 * request's bytes in, the answer's bytes out, on a keep-alive connection) with metrics off, with a
 * listener that does nothing (what core's end of an exchange costs once anyone listens), and with
 * {@link SpindleMetrics} on a {@link PrometheusMeterRegistry}. Run with the gc profiler for B/op:
 *
 * <pre>
 * java -cp '&lt;micrometer's test classpath&gt;' org.openjdk.jmh.Main MetricsRoundTrip -prof gc
 * </pre>
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MetricsRoundTripBenchmark {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    /** {@code off}: no listener; {@code listener}: one that does nothing; {@code micrometer}: {@link SpindleMetrics}. */
    @Param({"off", "listener", "micrometer"})
    public String metrics;

    private Connection connection;
    private ByteBuffer request;
    private PrometheusMeterRegistry registry;

    @Setup
    public void setup() {
        Router.Builder routes = Router.builder();
        switch (metrics) {
            case "off" -> {
            }
            case "listener" -> routes.listener(new ExchangeListener() {
                @Override
                public void exchangeEnded(ExchangeEnd end) {
                }
            });
            case "micrometer" -> {
                registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                routes.listener(new SpindleMetrics(registry));
            }
            default -> throw new IllegalArgumentException(metrics);
        }
        // the benchmark app's plaintext route, as core's round trip has it (dev.spindle.core.testing.TestRoutes)
        Router router = routes.get("/plaintext", (req, res) -> res.contentType(Response.TEXT_PLAIN).body(HELLO)).build();
        ServerConfig config = ServerConfig.defaults();
        connection = Connection.open(router, config, null, null, BodyBudget.of(config));
        request = Requests.direct(Requests.wrkGet("/plaintext"));
        connection.received(request.rewind());
        ByteBuffer out = connection.outbound();
        String response = StandardCharsets.ISO_8859_1.decode(out.duplicate()).toString();
        connection.written(out.remaining());
        if (!response.startsWith("HTTP/1.1 200 OK\r\n") || !response.endsWith("\r\n\r\nHello, World!")
                || connection.next() == Next.CLOSE || connection.next().writes()) {
            throw new IllegalStateException("unexpected response: " + response);
        }
    }

    @TearDown
    public void checkTheExchangesWereCounted() {
        if (registry != null && !registry.scrape().contains("http_server_requests_seconds_count{exception=\"none\",method=\"GET\","
                + "outcome=\"SUCCESS\",status=\"200\",uri=\"/plaintext\"}")) {
            throw new IllegalStateException("the exchanges were not counted: " + registry.scrape());
        }
    }

    @Benchmark
    public int roundTrip() {
        connection.received(request.rewind());
        ByteBuffer out = connection.outbound();
        int n = out.remaining();
        connection.written(n);
        return n;
    }
}
