// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/** Filters, exception mappers and custom 404/405 answers, through the sans-I/O connection. */
@org.junit.jupiter.api.Timeout(20)
class FilterTest {
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: t\r\n\r\n";
    }

    /** Feeds {@code requests}, then writes and resumes until every response is out. */
    private List<RawResponse> exchange(Router router, String requests, int expected) throws InterruptedException {
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, requests);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            out.writeBytes(drainAll(c));
            List<RawResponse> got = parseAll(out.toByteArray());
            if (got.size() >= expected) {
                return got;
            }
            assertThat(System.nanoTime()).as("all responses arrive").isLessThan(deadline);
            if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
    }

    private static String text(RawResponse r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** A filter that adds its name to the X-Trace header before and after the rest of the chain. */
    private static Filter tracing(String name) {
        return (req, res, chain) -> {
            res.header("X-In", name);
            return chain.proceed().thenRun(() -> res.header("X-Out", name));
        };
    }

    static Stream<Arguments> kindsOfRoute() {
        return Stream.of(
                Arguments.of("inline", (Handler) (req, res) -> res.text("inline")),
                Arguments.of("blocking", Handler.blocking((req, res) -> res.text("blocking"))),
                Arguments.of("async", Handler.async((req, res) -> CompletableFuture.runAsync(() -> res.text("async"),
                        CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kindsOfRoute")
    void filtersRunInOrderAroundEveryKindOfRouteAndSeeItsFinalResponse(String kind, Handler handler) throws Exception {
        Router router = Router.builder().filter(tracing("a")).filter(tracing("b")).get("/x", handler).build();
        RawResponse r = exchange(router, get("/x"), 1).get(0);
        assertThat(text(r)).isEqualTo(kind);
        assertThat(r.headers()).filteredOn(f -> f.name().startsWith("X-"))
                .extracting(f -> f.name() + "=" + f.value())
                .containsExactly("X-In=a", "X-In=b", "X-Out=b", "X-Out=a");
    }

    @Test
    void aFilterAroundABlockingRouteRunsOnTheHandlersThreadNotTheConnections() throws Exception {
        List<Thread> seen = new CopyOnWriteArrayList<>();
        Router router = Router.builder()
                .filter((req, res, chain) -> {
                    seen.add(Thread.currentThread());
                    return chain.proceed();
                })
                .get("/b", Handler.blocking((req, res) -> {
                    seen.add(Thread.currentThread());
                    res.text("b");
                }))
                .build();
        exchange(router, get("/b"), 1);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(0)).isSameAs(seen.get(1)).isNotSameAs(Thread.currentThread());
    }

    @Test
    void filtersSeeNotFoundMethodNotAllowedAndFailuresWithTheirRealStatus() throws Exception {
        ExchangeMetrics metrics = new ExchangeMetrics();
        List<String> seen = new CopyOnWriteArrayList<>();
        Router router = Router.builder()
                .listener(metrics)
                .filter((req, res, chain) -> chain.proceed().thenRun(() -> seen.add(res.status() + " " + req.routePattern())))
                .get("/ok", (req, res) -> res.text("ok"))
                .get("/gone", (req, res) -> {
                    throw new HttpException(410, "gone for good");
                })
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("test: handler failure (expected in this test's log)");
                })
                .build();
        List<RawResponse> rs = exchange(router, get("/ok") + get("/nowhere") + "POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
                + get("/gone") + get("/boom"), 5);
        assertThat(rs).extracting(RawResponse::status).containsExactly(200, 404, 405, 410, 500);
        assertThat(rs.get(2).header("Allow")).isEqualTo("GET, HEAD");
        assertThat(seen).containsExactly("200 /ok", "404 null", "405 null", "410 /gone", "500 /boom");
        assertThat(metrics.count()).isEqualTo(5);
        assertThat(metrics.count(2)).isEqualTo(1);
        assertThat(metrics.count(4)).isEqualTo(3);
        assertThat(metrics.count(5)).isEqualTo(1);
        assertThat(java.util.Arrays.stream(metrics.latencyCounts()).sum()).isEqualTo(5);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failingRoutes")
    void theEndOfAnExchangeAFilterAnsweredCarriesTheHandlersException(String kind, Handler handler) throws Exception {
        List<Throwable> heard = new CopyOnWriteArrayList<>();
        List<Throwable> ended = new CopyOnWriteArrayList<>();
        Router router = Router.builder()
                .listener(end -> heard.add(end.failure()))
                .filter((req, res, chain) -> {
                    req.onEnd(end -> ended.add(end.failure()));
                    return chain.proceed();
                })
                .exception(UnsupportedOperationException.class, (e, req, res) -> res.status(501).text("mapped"))
                .get("/boom", handler)
                .get("/ok", (req, res) -> res.text("ok"))
                .build();
        List<RawResponse> rs = exchange(router, get("/boom") + get("/ok"), 2);
        assertThat(rs).extracting(RawResponse::status).containsExactly(kind.endsWith("mapped") ? 501 : 500, 200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ended.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        for (List<Throwable> seen : List.of(heard, ended)) {
            assertThat(seen).hasSize(2);
            assertThat(seen.get(0)).as(kind).isInstanceOf(kind.endsWith("mapped") ? UnsupportedOperationException.class
                    : IllegalStateException.class);
            assertThat(seen.get(1)).as("the next exchange on the connection has none").isNull();
        }
    }

    static Stream<Arguments> failingRoutes() {
        Handler inline = (req, res) -> {
            throw new IllegalStateException("test: handler failure (expected in this test's log)");
        };
        return Stream.of(
                Arguments.of("inline", inline),
                Arguments.of("blocking", Handler.blocking(inline)),
                Arguments.of("async", Handler.async((req, res) -> CompletableFuture.failedFuture(
                        new IllegalStateException("test: handler failure (expected in this test's log)")))),
                Arguments.of("inline, mapped", (Handler) (req, res) -> {
                    throw new UnsupportedOperationException("test: mapped");
                }));
    }

    static class BaseFailure extends RuntimeException {
        BaseFailure(String m) {
            super(m);
        }
    }

    static class SpecificFailure extends BaseFailure {
        SpecificFailure(String m) {
            super(m);
        }
    }

    @Test
    void exceptionMappersAnswerByTheMostSpecificRegisteredClass() throws Exception {
        Router router = Router.builder()
                .exception(BaseFailure.class, (e, req, res) -> res.status(409).text("base: " + e.getMessage()))
                .exception(SpecificFailure.class, (e, req, res) -> res.status(422).text("specific: " + e.getMessage()))
                .exception(HttpException.class, (e, req, res) -> res.status(e.status()).jsonText("{\"error\":" + e.status() + "}"))
                .get("/base", (req, res) -> {
                    throw new BaseFailure("b");
                })
                .get("/specific", (req, res) -> {
                    throw new SpecificFailure("s");
                })
                .get("/async", Handler.async((req, res) -> CompletableFuture.failedFuture(new SpecificFailure("late"))))
                .get("/mapper-fails", (req, res) -> {
                    throw new ArithmeticException("test: handler failure (expected in this test's log)");
                })
                .exception(ArithmeticException.class, (e, req, res) -> {
                    throw new IllegalStateException("test: mapper failure (expected in this test's log)");
                })
                .build();
        List<RawResponse> rs = exchange(router, get("/base") + get("/specific") + get("/async") + get("/missing")
                + get("/mapper-fails"), 5);
        assertThat(rs).extracting(RawResponse::status).containsExactly(409, 422, 422, 404, 500);
        assertThat(text(rs.get(0))).isEqualTo("base: b");
        assertThat(text(rs.get(1))).isEqualTo("specific: s");
        assertThat(text(rs.get(2))).isEqualTo("specific: late");
        assertThat(text(rs.get(3))).isEqualTo("{\"error\":404}");
    }

    @Test
    void customNotFoundAndMethodNotAllowedAnswers() throws Exception {
        Router router = Router.builder()
                .notFound((req, res) -> res.status(404).jsonText("{\"missing\":" + Json.quote(req.path()) + "}"))
                .methodNotAllowed((req, res) -> res.jsonText("{\"allow\":" + Json.quote(String.join(",", List.of("see header"))) + "}"))
                .post("/items", (req, res) -> res.text("created"))
                .build();
        List<RawResponse> rs = exchange(router, get("/nope") + get("/items"), 2);
        assertThat(rs.get(0).status()).isEqualTo(404);
        assertThat(text(rs.get(0))).isEqualTo("{\"missing\":\"/nope\"}");
        assertThat(rs.get(1).status()).isEqualTo(405);
        assertThat(rs.get(1).header("Allow")).isEqualTo("POST");
        assertThat(rs.get(1).header("Content-Type")).startsWith("application/json");
    }

    @Test
    void headersAFilterSetBeforeAFailureStayOnTheErrorAnswer() throws Exception {
        Router router = Router.builder()
                .filter((req, res, chain) -> {
                    res.header("Access-Control-Allow-Origin", "*");
                    return chain.proceed();
                })
                .get("/fails", (req, res) -> {
                    res.header("X-Half-Done", "yes");
                    throw new HttpException(409, "conflict");
                })
                .build();
        RawResponse r = exchange(router, get("/fails"), 1).get(0);
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.header("Access-Control-Allow-Origin")).isEqualTo("*");
        assertThat(r.header("X-Half-Done")).as("what the failed handler set is dropped").isNull();
    }

    @Test
    void aFilterCanAnswerWithoutProceeding() throws Exception {
        Router router = Router.builder()
                .filter((req, res, chain) -> {
                    if (req.header("Authorization") == null) {
                        res.status(401).header("WWW-Authenticate", "Bearer").text("who are you?");
                        return CompletableFuture.completedFuture(null);
                    }
                    return chain.proceed();
                })
                .get("/secret", (req, res) -> res.text("42"))
                .build();
        List<RawResponse> rs = exchange(router, get("/secret")
                + "GET /secret HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer x\r\n\r\n", 2);
        assertThat(rs).extracting(RawResponse::status).containsExactly(401, 200);
        assertThat(text(rs.get(1))).isEqualTo("42");
    }

    @Test
    void aFilterThatDoesNotFinishAroundAnInlineRouteFailsTheExchange() throws Exception {
        Router router = Router.builder()
                .filter((req, res, chain) -> new CompletableFuture<>())
                .get("/x", (req, res) -> res.text("x"))
                .build();
        assertThat(exchange(router, get("/x"), 1).get(0).status()).isEqualTo(500);
    }

    @Test
    void theAccessLogWritesOneLinePerExchange() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        org.slf4j.Logger capture = capturing(lines);
        Router router = Router.builder().listener(new AccessLog(capture))
                .get("/users/{id}", (req, res) -> res.jsonText("{\"id\":" + Json.quote(req.pathParam("id")) + "}"))
                .build();
        exchange(router, get("/users/7?x=1") + get("/nope"), 2);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).matches("GET /users/7\\?x=1 HTTP/1.1 200 10 B \\d+ us");
        assertThat(lines.get(1)).matches("GET /nope HTTP/1.1 404 \\d+ B \\d+ us");
    }

    /** A body of unknown length is logged and counted once sent, with the bytes that went out; one cut short, as aborted. */
    @Test
    void streamedBodiesAreLoggedAndCountedOnceSentWithTheirBytes() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        org.slf4j.Logger capture = capturing(lines);
        List<Long> listened = new CopyOnWriteArrayList<>();
        ExchangeMetrics metrics = new ExchangeMetrics((method, route, status, bytes, nanos) -> listened.add(bytes));
        byte[] part = new byte[10_000];
        Router router = Router.builder().listener(new AccessLog(capture)).listener(metrics)
                .get("/stream", (req, res) -> res.stream(out -> {
                    for (int i = 0; i < 7; i++) {
                        out.write(part);
                    }
                }))
                .get("/broken", (req, res) -> res.stream(out -> {
                    out.write(part);
                    throw new java.io.IOException("test: the producer failed (expected)");
                }))
                .build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, get("/stream") + get("/stream"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lines.size() < 2 || c.next().writes()) {
            out.writeBytes(drainAll(c));
            assertThat(System.nanoTime()).as("both bodies are sent").isLessThan(deadline);
            if (wakeups.tryAcquire(20, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        List<RawResponse> rs = parseAll(out.toByteArray());
        assertThat(rs).extracting(r -> r.body().length).containsExactly(70_000, 70_000);
        assertThat(lines).hasSize(2).allMatch(l -> l.matches("GET /stream HTTP/1.1 200 70000 B \\d+ us"));
        assertThat(listened).containsExactly(70_000L, 70_000L);
        assertThat(metrics.bodyBytes()).isEqualTo(140_000);

        c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, get("/broken"));
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(c.next() == Next.CLOSE)) {
            drainAll(c);
            assertThat(System.nanoTime()).as("the broken body ends the connection").isLessThan(deadline);
            if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).matches("GET /broken HTTP/1.1 200 aborted \\d+ us");
        assertThat(listened).hasSize(3).last().isEqualTo(-1L);
    }

    /** A refusal, how the connection answers it, and whether its head was read (so filters and mappers shape it). */
    record Refusal(String name, String request, int status, boolean headRead) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Refusal> refusals() {
        String big = "x".repeat(5_000);
        return Stream.of(
                new Refusal("413 announced", "POST /x HTTP/1.1\r\nHost: t\r\nOrigin: https://app.example\r\nContent-Length: 99999999\r\n\r\n",
                        413, true),
                new Refusal("413 chunked", "POST /x HTTP/1.1\r\nHost: t\r\nOrigin: https://app.example\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + Integer.toHexString(big.length()) + "\r\n" + big + "\r\n0\r\n\r\n", 413, true),
                new Refusal("400 malformed head", "GET /x HTTP/1.1\r\nHost: t\r\nno colon\r\n\r\n", 400, false),
                new Refusal("414", "GET /" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414, false));
    }

    /**
     * The connection's refusals carry the application's decoration (a CORS filter's headers, the
     * mapper's JSON) once their head was read, their status kept; every refusal's default answer
     * is problem details when asked; and each is one exchange for the listeners.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusalsPassTheFiltersAndMappersAndAreProblemDetails(Refusal refusal) throws Exception {
        List<String> ends = new CopyOnWriteArrayList<>();
        Router decorated = Router.builder()
                .listener(end -> ends.add(end.status() + " " + end.outcome()))
                .filter((req, res, chain) -> {
                    res.header("Access-Control-Allow-Origin", req.header("Origin"));
                    return chain.proceed();
                })
                .exception(HttpException.class, (e, req, res) -> res.status(200).jsonText("{\"error\":" + e.status() + "}"))
                .post("/x", (req, res) -> res.text("x"), RouteOptions.defaults().maxBodySize(1_000))
                .get("/x", (req, res) -> res.text("x"))
                .build();
        RawResponse r = exchange(decorated, refusal.request(), 1).get(0);
        assertThat(r.status()).as("the refusal's status, whatever the mapper set").isEqualTo(refusal.status());
        assertThat(r.header("Connection")).isEqualTo("close");
        if (refusal.headRead()) {
            assertThat(r.header("Access-Control-Allow-Origin")).isEqualTo("https://app.example");
            assertThat(text(r)).isEqualTo("{\"error\":" + refusal.status() + "}");
        } else {
            assertThat(r.header("Access-Control-Allow-Origin")).isNull();
            assertThat(text(r)).startsWith(refusal.status() + " ");
        }
        assertThat(ends).containsExactly(refusal.status() + " COMPLETE");

        Router problems = Router.builder().problemDetails()
                .post("/x", (req, res) -> res.text("x"), RouteOptions.defaults().maxBodySize(1_000))
                .get("/x", (req, res) -> res.text("x"))
                .build();
        RawResponse p = exchange(problems, refusal.request(), 1).get(0);
        assertThat(p.status()).isEqualTo(refusal.status());
        assertThat(p.header("Content-Type")).startsWith("application/problem+json");
        assertThat(text(p)).startsWith("{\"type\":\"about:blank\",\"title\":\"" + dev.spindle.core.exchange.HttpStatus.reason(refusal.status())
                + "\",\"status\":" + refusal.status() + ",\"detail\":\"").endsWith("\"}");
    }

    @Test
    void problemDetailsAnswerRoutedErrorsToo() throws Exception {
        Router router = Router.builder().problemDetails()
                .get("/gone", (req, res) -> {
                    throw new HttpException(410, "it said \"bye\"");
                })
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("test: a handler failure (expected in this test's log)");
                })
                .build();
        List<RawResponse> rs = exchange(router, get("/gone") + get("/boom") + get("/nowhere"), 3);
        assertThat(rs).extracting(RawResponse::status).containsExactly(410, 500, 404);
        assertThat(rs).allMatch(r -> r.header("Content-Type").startsWith("application/problem+json"));
        assertThat(text(rs.get(0))).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Gone\",\"status\":410,\"detail\":\"it said \\\"bye\\\"\"}");
        assertThat(text(rs.get(1))).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500,"
                + "\"detail\":\"the handler failed\"}");
        assertThat(text(rs.get(2))).contains("\"status\":404");
    }

    /** A logger with INFO on that adds each INFO line, formatted, to {@code lines}. */
    private static org.slf4j.Logger capturing(List<String> lines) {
        return (org.slf4j.Logger) java.lang.reflect.Proxy.newProxyInstance(
                org.slf4j.Logger.class.getClassLoader(), new Class<?>[] {org.slf4j.Logger.class}, (proxy, m, args) -> {
                    if (m.getName().equals("isInfoEnabled")) {
                        return true;
                    }
                    if (m.getName().equals("info") && args != null && args[0] instanceof String format) {
                        Object[] values = args.length == 2 && args[1] instanceof Object[] a ? a : java.util.Arrays.copyOfRange(args, 1, args.length);
                        lines.add(org.slf4j.helpers.MessageFormatter.arrayFormat(format, values).getMessage());
                    }
                    return null;
                });
    }
}
