// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.AccessLog;
import dev.spindle.core.ExchangeEnd;
import dev.spindle.core.ExchangeListener;
import dev.spindle.core.ExchangeMetrics;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.conformance.h2.ErrorCode;
import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.conformance.h2.Header;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every exchange seen once, with the status actually sent: for each kind of exchange (routed,
 * failed, refused by the connection before or after its head was read, timed out, cut short by
 * the client), N of them against a server whose router has a listener, an access log, the metrics
 * and a filter that registers {@code Request.onEnd}; each must see exactly N, with the status the
 * client got. Run by {@link HttpConformanceSuite} against every server; tagged, to run alone
 * ({@code -Dtest=<Server>ConformanceTest -Dgroups=exchange-ends}).
 */
@org.junit.jupiter.api.Tag("exchange-ends")
public abstract class ExchangeEndCases {
    /** Exchanges of each kind. */
    static final int N = 2;
    private static final int MAX_BODY = 1024;
    private static final int MAX_LINE = 512;
    private static final Duration TIMEOUT = Duration.ofMillis(400);

    private final SuiteTarget suite;

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected ExchangeEndCases(SuiteTarget suite) {
        this.suite = suite;
    }

    private final List<String> ended = new CopyOnWriteArrayList<>();
    private final List<String> filtered = new CopyOnWriteArrayList<>();
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final List<String> started = new CopyOnWriteArrayList<>();
    private final ExchangeMetrics metrics = new ExchangeMetrics();
    private final CountDownLatch release = new CountDownLatch(1);
    private HttpServer server;

    /**
     * One kind: how to provoke it, the status the client reads (0: none, it went away), whether
     * its head is read (so the filter sees it), and the outcome listeners see.
     */
    record Kind(String name, int status, boolean headRead, ExchangeEnd.Outcome outcome) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Kind> kinds() {
        return Stream.of(
                new Kind("routed 200", 200, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("handler throws", 500, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("no route", 404, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("malformed head", 400, false, ExchangeEnd.Outcome.COMPLETE),
                new Kind("head not in time", 408, false, ExchangeEnd.Outcome.COMPLETE),
                new Kind("announced body too large", 413, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("chunked body too large", 413, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("target too long", 414, false, ExchangeEnd.Outcome.COMPLETE),
                new Kind("too many header fields", 431, false, ExchangeEnd.Outcome.COMPLETE),
                new Kind("handler timeout", 503, true, ExchangeEnd.Outcome.COMPLETE),
                new Kind("client reset mid-body", 0, true, ExchangeEnd.Outcome.ABORTED));
    }

    /**
     * One kind of HTTP/2 exchange: the ends each one makes (an exchange refused beside one in
     * flight makes two) and how many of them pass the filter.
     */
    record H2Kind(String name, int status, List<String> ends, int filtered) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<H2Kind> h2Kinds() {
        return Stream.of(
                new H2Kind("routed 200", 200, List.of("200 COMPLETE"), 1),
                new H2Kind("handler throws", 500, List.of("500 COMPLETE"), 1),
                new H2Kind("too many header fields", 431, List.of("431 COMPLETE"), 1),
                new H2Kind("handler timeout", 503, List.of("503 COMPLETE"), 1),
                new H2Kind("stream reset by the client mid-body", 0, List.of("0 ABORTED"), 1),
                new H2Kind("stream refused beside one in flight", 0, List.of("0 REFUSED", "0 ABORTED"), 1));
    }

    @BeforeEach
    void startServer() throws IOException {
        Assumptions.assumeTrue(suite.runs(), "the server does not serve a router of the suite's");
        Router router = Router.builder()
                .listener(new ExchangeListener() {
                    @Override
                    public void exchangeStarted(String method, String protocol) {
                        started.add(method);
                    }

                    @Override
                    public void exchangeEnded(ExchangeEnd end) {
                        ended.add(end.status() + " " + end.outcome());
                    }
                })
                .listener(new AccessLog(capturing(logged)))
                .listener(metrics)
                .filter((req, res, chain) -> {
                    req.onEnd(end -> filtered.add(end.status() + " " + end.outcome()));
                    return chain.proceed();
                })
                .get("/ok", (req, res) -> res.text("ok"))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("test: a handler failure (expected in this test's log)");
                })
                .post("/ok", (req, res) -> res.text("ok"))
                .get("/stuck", Handler.blocking((req, res) -> {
                    release.await(30, TimeUnit.SECONDS);
                    res.text("late");
                }))
                .post("/upload", Handler.blocking((req, res) -> {
                    try (InputStream body = req.bodyStream()) {
                        res.text(Long.toString(body.transferTo(OutputStream.nullOutputStream())));
                    }
                }))
                .build();
        // one stream at a time, so that a second one is refused
        ServerConfig config = suite.config().maxBodySize(MAX_BODY).maxRequestLineLength(MAX_LINE).headerTimeout(TIMEOUT)
                .handlerTimeout(TIMEOUT).http2MaxConcurrentStreams(1);
        server = suite.start(config, router);
    }

    @AfterEach
    void stopServer() {
        release.countDown();
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyExchangeIsSeenOnceWithTheStatusSent(Kind kind) throws Exception {
        for (int i = 0; i < N; i++) {
            int got = provoke(kind);
            assertThat(got).as("what the client read, %s #%d", kind, i).isEqualTo(kind.status());
            // an exchange ends once its last byte is written, which may be just after the client has it
            awaitSize(ended, i + 1, kind.name());
        }
        // none counted twice: give a late second report the time to show
        Thread.sleep(200);
        String expected = kind.status() + " " + kind.outcome();
        assertThat(ended).as("the listener").hasSize(N).containsOnly(expected);
        assertThat(started).as("exchanges started").hasSize(N);
        assertThat(filtered).as("Request.onEnd of a filter").hasSize(kind.headRead() ? N : 0);
        if (kind.headRead()) {
            assertThat(filtered).containsOnly(expected);
        }
        assertThat(logged).as("the access log").hasSize(N);
        assertThat(metrics.count()).as("the metrics").isEqualTo(N);
        if (kind.status() > 0) {
            assertThat(metrics.count(kind.status() / 100)).isEqualTo(N);
            assertThat(logged).allMatch(line -> line.contains(" " + kind.status() + " "), "a line with status " + kind.status());
        } else {
            assertThat(metrics.unanswered()).isEqualTo(N);
            assertThat(logged).allMatch(line -> line.contains(" aborted "), "a line saying aborted");
        }
    }

    @ParameterizedTest(name = "h2 {0}")
    @MethodSource("h2Kinds")
    void everyHttp2ExchangeIsSeenOnceWithTheStatusSent(H2Kind kind) throws Exception {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        List<String> expected = new java.util.ArrayList<>();
        for (int i = 0; i < N; i++) {
            int got = provoke(kind);
            assertThat(got).as("what the client read, %s #%d", kind, i).isEqualTo(kind.status());
            expected.addAll(kind.ends());
            awaitSize(ended, expected.size(), kind.name());
        }
        Thread.sleep(200);
        assertThat(ended).as("the listener").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(started).as("exchanges started").hasSize(expected.size());
        assertThat(filtered).as("Request.onEnd of a filter").hasSize(N * kind.filtered());
        assertThat(logged).as("the access log").hasSize(expected.size()).allMatch(line -> line.contains(" HTTP/2 "), "HTTP/2 lines");
        assertThat(metrics.count()).as("the metrics").isEqualTo(expected.size());
    }

    private int provoke(H2Kind kind) throws Exception {
        try (H2Connection c = suite.openH2(server.port())) {
            c.handshake();
            switch (kind.name()) {
                case "routed 200" -> c.request(1, "GET", "/ok", true);
                case "handler throws" -> c.request(1, "GET", "/boom", true);
                case "too many header fields" -> {
                    Header[] extra = new Header[200];
                    for (int i = 0; i < extra.length; i++) {
                        extra[i] = new Header("x-field-" + i, "v");
                    }
                    c.request(1, "GET", "/ok", true, extra);
                }
                case "handler timeout" -> c.request(1, "GET", "/stuck", true);
                case "stream reset by the client mid-body" -> {
                    int before = started.size();
                    c.request(1, "POST", "/upload", false);
                    c.data(1, new byte[4096], false);
                    awaitSize(started, before + 1, kind.name());
                    c.rstStream(1, ErrorCode.CANCEL);
                    return 0;
                }
                case "stream refused beside one in flight" -> {
                    int before = started.size();
                    c.request(1, "POST", "/upload", false);
                    awaitSize(started, before + 1, kind.name());
                    c.request(3, "GET", "/ok", true);
                    c.expectStreamError(3, ErrorCode.REFUSED_STREAM);
                    c.rstStream(1, ErrorCode.CANCEL);
                    return 0;
                }
                default -> throw new IllegalArgumentException(kind.name());
            }
            return c.response(1).status();
        }
    }

    /** Sends one exchange of {@code kind}: the status the client read, 0 when it went away first. */
    private int provoke(Kind kind) throws Exception {
        try (RawConnection c = suite.connect(server.port())) {
            switch (kind.name()) {
                case "routed 200" -> c.send(get("/ok"));
                case "handler throws" -> c.send(get("/boom"));
                case "no route" -> c.send(get("/nowhere"));
                case "malformed head" -> c.send("GET /ok HTTP/1.1\r\nHost: t\r\nno colon here\r\n\r\n");
                case "head not in time" -> c.send("GET /ok HTTP/1.1\r\nHost: t\r\n");
                case "announced body too large" -> c.send("POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: " + MAX_BODY * 4 + "\r\n\r\n");
                case "chunked body too large" -> {
                    String chunk = "x".repeat(800);
                    c.send("POST /ok HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n320\r\n" + chunk + "\r\n320\r\n" + chunk
                            + "\r\n0\r\n\r\n");
                }
                case "target too long" -> c.send(get("/" + "a".repeat(MAX_LINE)));
                case "too many header fields" -> {
                    StringBuilder head = new StringBuilder("GET /ok HTTP/1.1\r\nHost: t\r\n");
                    for (int i = 0; i < 200; i++) {
                        head.append("X-Field-").append(i).append(": v\r\n");
                    }
                    c.send(head.append("\r\n").toString());
                }
                case "handler timeout" -> c.send(get("/stuck"));
                case "client reset mid-body" -> {
                    int before = started.size();
                    c.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n" + "y".repeat(4096));
                    // the handler is reading its body: the client goes away with a reset
                    awaitSize(started, before + 1, kind.name());
                    c.socket().setSoLinger(true, 0);
                    return 0;
                }
                default -> throw new IllegalArgumentException(kind.name());
            }
            return c.read().status();
        }
    }

    /** Waits up to 5 s for {@code list} to reach {@code size}. */
    private static void awaitSize(List<String> list, int size, String kind) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (list.size() < size && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(list).as("reported so far, %s", kind).hasSizeGreaterThanOrEqualTo(size);
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n";
    }

    /** A logger with INFO on that adds each INFO line, formatted, to {@code lines}. */
    private static org.slf4j.Logger capturing(List<String> lines) {
        return (org.slf4j.Logger) java.lang.reflect.Proxy.newProxyInstance(
                org.slf4j.Logger.class.getClassLoader(), new Class<?>[] {org.slf4j.Logger.class}, (proxy, m, args) -> {
                    if (m.getName().equals("isInfoEnabled")) {
                        return true;
                    }
                    if (m.getName().equals("info") && args != null && args[0] instanceof String format) {
                        Object[] values = args.length == 2 && args[1] instanceof Object[] a ? a
                                : java.util.Arrays.copyOfRange(args, 1, args.length);
                        lines.add(org.slf4j.helpers.MessageFormatter.arrayFormat(format, values).getMessage());
                    }
                    return m.getReturnType() == boolean.class ? false : null;
                });
    }
}
