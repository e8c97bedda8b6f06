// SPDX-License-Identifier: Apache-2.0
package dev.spindle.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.blocking.VirtualThreadServer;
import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.nio.MultiLoopServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real upstream server calling a real downstream one through Spindle's client, both instrumented,
 * their spans and metrics read from the SDK's in-memory exporter and reader.
 */
class SpindleTelemetryTest {
    private static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
    private static final AttributeKey<String> METHOD_ORIGINAL = AttributeKey.stringKey("http.request.method_original");
    private static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
    private static final AttributeKey<String> SCHEME = AttributeKey.stringKey("url.scheme");
    private static final AttributeKey<String> PATH = AttributeKey.stringKey("url.path");
    private static final AttributeKey<String> QUERY = AttributeKey.stringKey("url.query");
    private static final AttributeKey<String> VERSION = AttributeKey.stringKey("network.protocol.version");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    private static final AttributeKey<String> USER_AGENT = AttributeKey.stringKey("user_agent.original");
    private static final List<Double> SPEC_BUCKETS = List.of(0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
            5.0, 7.5, 10.0);
    private static final int MAX_BODY = 16;
    private static final Duration HANDLER_TIMEOUT = Duration.ofMillis(600);

    /** The strategies the servers run on: an event loop (handlers on the loop, or on virtual threads) or a thread per connection. */
    enum Strategy {
        NIO, VIRTUAL_THREADS;

        HttpServer start(ServerConfig config, Router router) throws IOException {
            return switch (this) {
                case NIO -> new MultiLoopServer(config.workers(1), router).start();
                case VIRTUAL_THREADS -> new VirtualThreadServer(config, router).start();
            };
        }
    }

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
    private final SpindleTelemetry telemetry = SpindleTelemetry.create(otel);
    /** What the handlers call the downstream with: it writes their context into each request. */
    private final Client client = Client.create(ClientConfig.defaults().interceptor(telemetry.clientInterceptor()));
    /** The test's own client: it sends the incoming traceparent by hand. */
    private final Client plain = Client.create();
    private final List<HttpServer> servers = new ArrayList<>();
    private String upstream;

    @AfterEach
    void stop() {
        servers.forEach(HttpServer::close);
        client.close();
        plain.close();
        otel.close();
    }

    private void start(Strategy strategy) throws IOException {
        HttpServer downstream = strategy.start(ServerConfig.defaults().port(0).shutdownHook(false), Router.builder()
                .filter(telemetry.filter())
                .listener(telemetry.listener())
                .get("/seen", (req, res) -> res.text(String.valueOf(req.header("traceparent"))))
                .build());
        servers.add(downstream);
        String seen = "http://127.0.0.1:" + downstream.port() + "/seen";
        HttpServer up = strategy.start(ServerConfig.defaults().port(0).shutdownHook(false).maxBodySize(MAX_BODY)
                .maxRequestLineLength(1024).handlerTimeout(HANDLER_TIMEOUT).drainTimeout(Duration.ofSeconds(1)), Router.builder()
                .filter(telemetry.filter())
                .listener(telemetry.listener())
                .get("/users/{id}", (req, res) -> res.jsonText("{\"id\":\"" + req.pathParam("id") + "\"}"))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("boom");
                })
                .post("/upload", (req, res) -> res.text("stored " + req.bodyLength()))
                .get("/work", (req, res) -> {
                    Span own = otel.getTracer("test").spanBuilder("work").startSpan();
                    own.end();
                    res.text("worked");
                })
                .get("/call/blocking", Handler.blocking((req, res) -> res.text(client.get(seen).call().bodyText())))
                .get("/call/async", Handler.async((req, res) -> client.get(seen).send().thenAccept(answer -> res.text(answer.bodyText()))))
                .get("/slow", Handler.blocking((req, res) -> {
                    Thread.sleep(HANDLER_TIMEOUT.toMillis() * 3);
                    res.text("too late");
                }))
                .get("/stream", (req, res) -> res.body(new Zeros(1L << 30), -1))
                .build());
        servers.add(up);
        upstream = "http://127.0.0.1:" + up.port();
    }

    /** One request of the table and the server span it must make. */
    record Case(String name, String method, String target, int status, String spanName, String route, boolean error) {
        boolean posts() {
            return method.equals("POST");
        }
    }

    private static final List<Case> CASES = List.of(
            new Case("a route with a path variable", "GET", "/users/42?full=1", 200, "GET /users/{id}", "/users/{id}", false),
            new Case("a handler that throws", "GET", "/boom", 500, "GET /boom", "/boom", true),
            new Case("an unknown path", "GET", "/nowhere", 404, "GET", null, false),
            new Case("a body over maxBodySize", "POST", "/upload", 413, "POST /upload", "/upload", false),
            new Case("a method outside the conventions' list", "PROPFIND", "/users/7", 405, "HTTP", null, false));

    private static String hex(int digits) {
        StringBuilder b = new StringBuilder(digits);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < digits; i++) {
            b.append(Character.forDigit(random.nextInt(16), 16));
        }
        return b.toString();
    }

    private ClientResponse send(Case c, String traceId, String parentId) throws Exception {
        Client.RequestBuilder request = plain.request(c.method(), upstream + c.target())
                .header("traceparent", "00-" + traceId + "-" + parentId + "-01")
                .header("User-Agent", "spindle-test");
        if (c.posts()) {
            request.body("x".repeat(MAX_BODY * 4));
        }
        return request.call();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void serverSpansFollowTheHttpConventions(Strategy strategy) throws Exception {
        start(strategy);
        for (Case c : CASES) {
            String traceId = hex(32);
            String parentId = hex(16);
            assertThat(send(c, traceId, parentId).status()).as(c.name()).isEqualTo(c.status());
            SpanData span = awaitSpan(s -> s.getTraceId().equals(traceId));
            String path = c.target().contains("?") ? c.target().substring(0, c.target().indexOf('?')) : c.target();
            assertThat(span.getName()).as(c.name()).isEqualTo(c.spanName());
            assertThat(span.getKind()).as(c.name()).isEqualTo(SpanKind.SERVER);
            assertThat(span.getParentSpanId()).as(c.name() + ": the incoming traceparent's span").isEqualTo(parentId);
            assertThat(span.getParentSpanContext().isRemote()).as(c.name()).isTrue();
            Attributes a = span.getAttributes();
            assertThat(a.get(METHOD)).as(c.name()).isEqualTo(c.method().equals("PROPFIND") ? "_OTHER" : c.method());
            assertThat(a.get(METHOD_ORIGINAL)).as(c.name()).isEqualTo(c.method().equals("PROPFIND") ? "PROPFIND" : null);
            assertThat(a.get(STATUS)).as(c.name()).isEqualTo((long) c.status());
            assertThat(a.get(ROUTE)).as(c.name()).isEqualTo(c.route());
            assertThat(a.get(PATH)).as(c.name()).isEqualTo(path);
            assertThat(a.get(QUERY)).as(c.name()).isEqualTo(c.target().contains("?") ? "full=1" : null);
            assertThat(a.get(SCHEME)).as(c.name()).isEqualTo("http");
            assertThat(a.get(VERSION)).as(c.name()).isEqualTo("1.1");
            assertThat(a.get(USER_AGENT)).as(c.name()).isEqualTo("spindle-test");
            assertThat(span.getStatus().getStatusCode()).as(c.name() + ": ERROR for a 5xx only")
                    .isEqualTo(c.error() ? StatusCode.ERROR : StatusCode.UNSET);
            assertThat(a.get(ERROR_TYPE)).as(c.name()).isEqualTo(c.error() ? String.valueOf(c.status()) : null);
            if (c.error()) {
                assertThat(span.getEvents()).as(c.name() + ": the handler's exception").anySatisfy(e -> {
                    assertThat(e.getName()).isEqualTo("exception");
                    assertThat(e.getAttributes().get(AttributeKey.stringKey("exception.type"))).isEqualTo("java.lang.IllegalStateException");
                });
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void metricsCountEveryExchangeOnceRefusalsBeforeRoutingIncluded(Strategy strategy) throws Exception {
        start(strategy);
        Map<Attributes, Long> expected = new HashMap<>();
        for (int round = 0; round < 2; round++) {
            for (Case c : CASES) {
                send(c, hex(32), hex(16));
                AttributesBuilder a = Attributes.builder()
                        .put(METHOD, c.method().equals("PROPFIND") ? "_OTHER" : c.method())
                        .put(SCHEME, "http")
                        .put(VERSION, "1.1")
                        .put(STATUS, c.status());
                if (c.route() != null) {
                    a.put(ROUTE, c.route());
                }
                if (c.error()) {
                    a.put(ERROR_TYPE, String.valueOf(c.status()));
                }
                expected.merge(a.build(), 1L, Long::sum);
            }
        }
        // a request line over maxRequestLineLength: refused before routing, seen by no filter, counted all the same
        assertThat(raw("GET /" + "a".repeat(2000) + " HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 414");
        expected.merge(Attributes.builder().put(METHOD, "_OTHER").put(SCHEME, "http").put(VERSION, "1.1").put(STATUS, 414L).build(),
                1L, Long::sum);
        long total = expected.values().stream().mapToLong(Long::longValue).sum();

        Map<Attributes, Long> counted = awaitDurations(total);
        assertThat(counted).isEqualTo(expected);
        MetricData duration = metric("http.server.request.duration");
        assertThat(duration.getUnit()).isEqualTo("s");
        assertThat(duration.getHistogramData().getPoints()).allSatisfy(p -> {
            assertThat(p.getBoundaries()).as("the conventions' explicit buckets").isEqualTo(SPEC_BUCKETS);
            assertThat(p.getMin()).isGreaterThan(0).isLessThan(HANDLER_TIMEOUT.toNanos() / 1e9);
        });
        assertThat(spans.getFinishedSpanItems()).as("one span per exchange that reached routing, none for the 414")
                .hasSize((int) total - 1);
        assertActiveRequestsBackToZero();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void clientCallsCarryTheServerSpansContextToTheNextServer(Strategy strategy) throws Exception {
        start(strategy);
        for (String route : List.of("/call/blocking", "/call/async")) {
            String traceId = hex(32);
            String parentId = hex(16);
            ClientResponse answer = send(new Case(route, "GET", route, 200, "GET " + route, route, false), traceId, parentId);
            assertThat(answer.status()).as(route).isEqualTo(200);
            SpanData up = awaitSpan(s -> s.getTraceId().equals(traceId) && s.getName().equals("GET " + route));
            SpanData down = awaitSpan(s -> s.getTraceId().equals(traceId) && s.getName().equals("GET /seen"));
            String seen = answer.bodyText();
            assertThat(seen).as(route + ": the downstream's traceparent").isEqualTo("00-" + traceId + "-" + up.getSpanId() + "-01");
            assertThat(up.getParentSpanId()).as(route).isEqualTo(parentId);
            assertThat(down.getParentSpanId()).as(route + ": the downstream's span is the upstream span's child").isEqualTo(up.getSpanId());
            assertThat(down.getKind()).isEqualTo(SpanKind.SERVER);
        }
        String traceId = hex(32);
        send(new Case("/work", "GET", "/work", 200, "GET /work", "/work", false), traceId, hex(16));
        SpanData server = awaitSpan(s -> s.getTraceId().equals(traceId) && s.getKind() == SpanKind.SERVER);
        SpanData own = awaitSpan(s -> s.getTraceId().equals(traceId) && s.getName().equals("work"));
        assertThat(own.getParentSpanId()).as("a handler's own span is the server span's child").isEqualTo(server.getSpanId());
    }

    @Test
    void aRequestWithoutTraceparentStartsATraceAndAClientOffAnyServerSendsNone() throws Exception {
        start(Strategy.NIO);
        ClientResponse answer = client.get(upstream + "/call/blocking").call();
        assertThat(answer.status()).isEqualTo(200);
        SpanData up = awaitSpan(s -> s.getName().equals("GET /call/blocking"));
        assertThat(up.getParentSpanContext().isValid()).as("a root span").isFalse();
        assertThat(answer.bodyText()).isEqualTo("00-" + up.getTraceId() + "-" + up.getSpanId() + "-"
                + up.getSpanContext().getTraceFlags().asHex());
        // the test thread has no current span: the interceptor adds nothing
        SpanData down = awaitSpan(s -> s.getName().equals("GET /seen") && s.getTraceId().equals(up.getTraceId()));
        assertThat(down.getParentSpanId()).isEqualTo(up.getSpanId());
    }

    /** On an event loop's server: a thread-per-connection server runs a blocking handler on the connection's thread, untimed. */
    @Test
    void aTimedOutHandlersSpanEndsWithThe503Sent() throws Exception {
        start(Strategy.NIO);
        String traceId = hex(32);
        long started = System.nanoTime();
        ClientResponse answer = send(new Case("slow", "GET", "/slow", 503, "GET /slow", "/slow", true), traceId, hex(16));
        assertThat(answer.status()).isEqualTo(503);
        SpanData span = awaitSpan(s -> s.getTraceId().equals(traceId));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("ended at the timeout, not when the handler did")
                .isLessThan(HANDLER_TIMEOUT.toMillis() * 3);
        assertThat(span.getName()).isEqualTo("GET /slow");
        assertThat(span.getAttributes().get(STATUS)).isEqualTo(503L);
        assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("503");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(awaitDurations(1)).containsOnlyKeys(Attributes.builder().put(METHOD, "GET").put(SCHEME, "http")
                .put(VERSION, "1.1").put(STATUS, 503L).put(ROUTE, "/slow").put(ERROR_TYPE, "503").build());
        assertActiveRequestsBackToZero();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void anExchangeTheClientCutsShortIsAnError(Strategy strategy) throws Exception {
        start(strategy);
        String traceId = hex(32);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", servers.get(1).port()), 5000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(("GET /stream HTTP/1.1\r\nHost: x\r\ntraceparent: 00-" + traceId + "-" + hex(16)
                    + "-01\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[16384];
            long read = 0;
            while (read < 256 * 1024) {
                int n = in.read(buffer);
                assertThat(n).as("the stream goes on").isPositive();
                read += n;
            }
            socket.setSoLinger(true, 0);   // a reset, not a close: the server's next writes fail
        }
        SpanData span = awaitSpan(s -> s.getTraceId().equals(traceId));
        assertThat(span.getName()).isEqualTo("GET /stream");
        assertThat(span.getAttributes().get(STATUS)).as("the status being sent").isEqualTo(200L);
        assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("_OTHER");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(awaitDurations(1)).containsOnlyKeys(Attributes.builder().put(METHOD, "GET").put(SCHEME, "http")
                .put(VERSION, "1.1").put(STATUS, 200L).put(ROUTE, "/stream").put(ERROR_TYPE, "_OTHER").build());
        assertActiveRequestsBackToZero();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void http2ExchangesAreProtocolVersion2(Strategy strategy) throws Exception {
        start(strategy);
        String traceId = hex(32);
        String parentId = hex(16);
        try (java.net.http.HttpClient h2 = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_2).build()) {
            for (int i = 0; i < 2; i++) {   // the first asks for h2c by Upgrade, the second is a stream of the h2 connection
                java.net.http.HttpResponse<String> r = h2.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(upstream + "/users/" + i))
                        .header("traceparent", "00-" + traceId + "-" + parentId + "-01").build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
            }
        }
        SpanData stream = awaitSpan(s -> s.getTraceId().equals(traceId) && "/users/1".equals(s.getAttributes().get(PATH)));
        assertThat(stream.getName()).isEqualTo("GET /users/{id}");
        assertThat(stream.getParentSpanId()).isEqualTo(parentId);
        assertThat(stream.getAttributes().get(VERSION)).isEqualTo("2");
        assertThat(awaitDurations(2)).containsEntry(Attributes.builder().put(METHOD, "GET").put(SCHEME, "http").put(VERSION, "2")
                .put(STATUS, 200L).put(ROUTE, "/users/{id}").build(), 1L);
        assertActiveRequestsBackToZero();
    }

    @Test
    void theUrlSchemeIsTheBuildersAndAnUnknownOneIsRefused() {
        assertThat(SpindleTelemetry.builder(otel).urlScheme("https").build().filter()).isNotNull();
        assertThatThrownBy(() -> SpindleTelemetry.builder(otel).urlScheme("ftp"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp");
        assertThat(telemetry.filter()).isSameAs(telemetry.filter());
        assertThat(telemetry.listener()).isSameAs(telemetry.listener());
    }

    /** Sends raw bytes to the upstream server and returns all it answers, up to its close. */
    private String raw(String request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", servers.get(1).port()), 5000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** An exchange ends once its last byte is written, which may be just after the client has it: poll for its span. */
    private SpanData awaitSpan(Predicate<SpanData> which) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<SpanData> found = spans.getFinishedSpanItems().stream().filter(which).toList();
            if (!found.isEmpty() || System.nanoTime() > deadline) {
                assertThat(found).as("the span, among " + spans.getFinishedSpanItems()).hasSize(1);
                return found.get(0);
            }
            Thread.sleep(5);
        }
    }

    /** The duration histogram's count per attribute set, once {@code total} exchanges were recorded. */
    private Map<Attributes, Long> awaitDurations(long total) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Map<Attributes, Long> counted = new HashMap<>();
            MetricData duration = metric("http.server.request.duration");
            if (duration != null) {
                for (HistogramPointData p : duration.getHistogramData().getPoints()) {
                    counted.put(p.getAttributes(), p.getCount());
                }
            }
            long sum = counted.values().stream().mapToLong(Long::longValue).sum();
            if (sum >= total || System.nanoTime() > deadline) {
                return counted;
            }
            Thread.sleep(5);
        }
    }

    private void assertActiveRequestsBackToZero() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<LongPointData> points;
        do {
            MetricData active = metric("http.server.active_requests");
            assertThat(active).isNotNull();
            assertThat(active.getUnit()).isEqualTo("{request}");
            points = List.copyOf(active.getLongSumData().getPoints());
            if (points.stream().allMatch(p -> p.getValue() == 0)) {
                break;
            }
            Thread.sleep(5);
        } while (System.nanoTime() < deadline);
        assertThat(points).isNotEmpty().allSatisfy(p -> {
            assertThat(p.getValue()).as(p.getAttributes().toString()).isZero();
            assertThat(p.getAttributes().asMap().keySet()).containsExactlyInAnyOrder(METHOD, SCHEME);
        });
    }

    private MetricData metric(String name) {
        return metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).findFirst().orElse(null);
    }

    /** {@code length} zero bytes, made as they are read. */
    private static final class Zeros extends InputStream {
        private long left;

        Zeros(long length) {
            this.left = length;
        }

        @Override
        public int read() {
            if (left <= 0) {
                return -1;
            }
            left--;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            java.util.Arrays.fill(b, off, off + n, (byte) 0);
            left -= n;
            return n;
        }
    }
}
