// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.exchange.HttpStatus;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One error path: every error Spindle answers keeps its status, reason phrase and required headers
 * whatever filters and exception mappers surround the route, and no answer shows a Java class name.
 * Each error runs through four surroundings: nothing, a pass-through filter, catch-all mappers, both.
 */
@org.junit.jupiter.api.Timeout(30)
class ErrorPathTest {
    private static final String HOST = "Host: t\r\n";
    private static final long LIMIT = 1000;
    private static final int FILE_SIZE = 100;
    /** A qualified Java name ({@code java.lang.Integer}, {@code com.example.Order}) or an exception's name. */
    private static final Pattern CLASS_NAME = Pattern.compile("\\b[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+\\.[A-Z]\\w*|Exception");
    /** What the codec says: the kind of message JSON libraries give, class names included. */
    private static final String LIBRARY_MESSAGE =
            "Cannot deserialize value of type `com.example.Order` from String \"x\": not a valid `java.lang.Integer` value";

    @TempDir
    static Path files;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @BeforeAll
    static void writeFile() throws Exception {
        Files.write(files.resolve("data.bin"), new byte[FILE_SIZE]);
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    record Order(int id) {
    }

    /** A JSON library stand-in that fails as Jackson does, with type names in its message. */
    static final class FailingCodec implements JsonCodec {
        @Override
        public byte[] write(Object value) {
            return "{}".getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public <T> T read(byte[] json, int offset, int length, Class<T> type) throws Exception {
            throw new IllegalArgumentException(LIBRARY_MESSAGE);
        }
    }

    enum Surroundings {
        NOTHING(false, false), PASS_THROUGH_FILTER(true, false), CATCH_ALL_MAPPERS(false, true), FILTER_AND_MAPPERS(true, true);

        final boolean filter;
        final boolean mappers;

        Surroundings(boolean filter, boolean mappers) {
            this.filter = filter;
            this.mappers = mappers;
        }
    }

    /**
     * One error: the request, whether the connection's header timeout must pass (ticked) for it,
     * the status and reason, the header it requires, and whether the mappers shape it: it reaches
     * routing, or the connection refuses it once its head was read; a request whose head is
     * malformed gets the default answer.
     */
    record Case(String name, String request, boolean timesOut, int status, String reason, String header, String value,
            boolean routed) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static String post(String target, String headers, String body) {
        return "POST " + target + " HTTP/1.1\r\n" + HOST + headers + "\r\n" + body;
    }

    private static String chunkedOverTheLimit() {
        String chunk = "x".repeat(800);
        return "320\r\n" + chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n";
    }

    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("413 Content-Length", post("/blocking", "Content-Length: 2000\r\n", ""), false,
                413, "Content Too Large", null, null, true));
        cases.add(new Case("400 malformed header", "GET /blocking HTTP/1.1\r\n" + HOST + "no colon here\r\n\r\n", false,
                400, "Bad Request", null, null, false));
        for (String route : List.of("/blocking", "/async")) {
            cases.add(new Case("413 chunked on " + route, post(route, "Transfer-Encoding: chunked\r\n", chunkedOverTheLimit()), false,
                    413, "Content Too Large", null, null, true));
            cases.add(new Case("408 body on " + route, post(route, "Content-Length: 10\r\n", "abc"), true,
                    408, "Request Timeout", null, null, true));
            cases.add(new Case("400 bad chunk on " + route, post(route, "Transfer-Encoding: chunked\r\n", "zz\r\nabc\r\n"), false,
                    400, "Bad Request", null, null, true));
        }
        cases.add(new Case("405 with Allow", "GET /blocking HTTP/1.1\r\n" + HOST + "\r\n", false,
                405, "Method Not Allowed", "Allow", "POST", true));
        cases.add(new Case("404", "GET /nowhere HTTP/1.1\r\n" + HOST + "\r\n", false, 404, "Not Found", null, null, true));
        cases.add(new Case("static 404", "GET /files/missing.bin HTTP/1.1\r\n" + HOST + "\r\n", false,
                404, "Not Found", null, null, true));
        cases.add(new Case("static 416", "GET /files/data.bin HTTP/1.1\r\n" + HOST + "Range: bytes=500-\r\n\r\n", false,
                416, "Range Not Satisfiable", "Content-Range", "bytes */" + FILE_SIZE, true));
        cases.add(new Case("codec 400", post("/order", "Content-Length: 7\r\n", "{\"id\":x"), false,
                400, "Bad Request", null, null, true));
        cases.add(new Case("500 handler failure", "GET /fails HTTP/1.1\r\n" + HOST + "\r\n", false,
                500, "Internal Server Error", null, null, true));
        return cases;
    }

    static Stream<Arguments> casesInEverySurrounding() {
        List<Arguments> all = new ArrayList<>();
        for (Case c : cases()) {
            for (Surroundings s : Surroundings.values()) {
                all.add(Arguments.of(c, s));
            }
        }
        return all.stream();
    }

    /** The routes every case is sent to, surrounded as asked. */
    private static Router router(Surroundings s) throws Exception {
        Router.Builder b = Router.builder().json(new FailingCodec())
                .post("/blocking", Handler.blocking((req, res) -> {
                    req.bodyStream().transferTo(OutputStream.nullOutputStream());
                    res.text("read");
                }))
                .post("/async", Handler.async((req, res) -> req.readBody().thenAccept(body -> res.text("read"))))
                .post("/order", (req, res) -> res.json(req.bodyAs(Order.class)))
                .get("/fails", (req, res) -> {
                    throw new IllegalStateException("test: java.lang.IllegalStateException in the handler (expected in this test's log)");
                })
                .staticFiles("/files", StaticFiles.directory(files));
        if (s.filter) {
            b.filter((req, res, chain) -> chain.proceed());
        }
        if (s.mappers) {
            // the two usual catch-alls: one that sets the status itself, one that relies on the status it is given
            b.exception(HttpException.class, (e, req, res) -> res.status(e.status()).jsonText("{\"error\":" + e.status() + "}"));
            b.exception(Exception.class, (e, req, res) -> res.jsonText("{\"error\":" + res.status() + "}"));
        }
        return b.build();
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().maxBodySize(LIMIT).maxStreamedBodySize(LIMIT);
    }

    /** Feeds {@code request}, ticks past the header timeout if asked, then writes and resumes until one response is out. */
    private RawResponse answer(Router router, String request, boolean timesOut) throws InterruptedException {
        ServerConfig config = config();
        HttpConnection c = new HttpConnection(router, config, executor, wakeups::release);
        feed(c, request);
        if (timesOut) {
            long now = 1_000_000_000L;
            c.tick(now);
            c.tick(now + config.headerTimeout().toNanos());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            out.writeBytes(drainAll(c));
            List<RawResponse> got = parseAll(out.toByteArray());
            if (!got.isEmpty()) {
                assertThat(got).hasSize(1);
                return got.get(0);
            }
            assertThat(System.nanoTime()).as("the answer arrives").isLessThan(deadline);
            if (wakeups.tryAcquire(20, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("casesInEverySurrounding")
    void everyErrorKeepsItsStatusWhateverSurroundsTheRoute(Case c, Surroundings s) throws Exception {
        RawResponse r = answer(router(s), c.request(), c.timesOut());
        String body = r.bodyText();
        assertThat(r.status()).as("status").isEqualTo(c.status());
        assertThat(r.reason()).as("reason phrase").isEqualTo(c.reason());
        if (c.header() != null) {
            assertThat(r.headers(c.header())).as(c.header()).containsExactly(c.value());
        }
        assertThat(CLASS_NAME.matcher(body).find()).as("a class name in %s", body).isFalse();
        if (s.mappers && c.routed()) {
            assertThat(body).as("the mapper's answer").isEqualTo("{\"error\":" + c.status() + "}");
        } else {
            assertThat(body).as("the default answer").startsWith(c.status() + " " + c.reason() + ": ");
        }
    }

    /**
     * A mapper may reshape any answer, and give an application's error another status; a status
     * the connection decided from the wire stays.
     */
    @ParameterizedTest(name = "route {0}")
    @ValueSource(strings = {"/blocking", "/async"})
    void aMapperMayChangeAnApplicationStatusButNotOneDecidedFromTheWire(String route) throws Exception {
        Router router = Router.builder().json(new FailingCodec())
                .post(route, route.equals("/async")
                        ? Handler.async((req, res) -> req.readBody().thenAccept(body -> res.text("read")))
                        : Handler.blocking((req, res) -> res.text(req.bodyText())))
                .post("/order", (req, res) -> res.json(req.bodyAs(Order.class)))
                .exception(HttpException.class, (e, req, res) -> res.status(422).text("mapped " + e.status()))
                .build();
        RawResponse codec = answer(router, post("/order", "Content-Length: 2\r\n", "{}"), false);
        assertThat(codec.status()).isEqualTo(422);
        assertThat(codec.bodyText()).isEqualTo("mapped 400");
        RawResponse tooLarge = answer(router, post(route, "Transfer-Encoding: chunked\r\n", chunkedOverTheLimit()), false);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.bodyText()).isEqualTo("mapped 413");
        assertThat(tooLarge.header("Connection")).isEqualTo("close");
    }

    /** The response a mapper gets already has the default answer's status and required headers. */
    @Test
    void aMapperStartsFromTheStatusAndHeadersOfTheDefaultAnswer() throws Exception {
        Router router = Router.builder()
                .post("/only-post", (req, res) -> res.text("posted"))
                .get("/fails", (req, res) -> {
                    throw new ArithmeticException("test: handler failure (expected in this test's log)");
                })
                .exception(Throwable.class, (e, req, res) -> res.text("status " + res.status()))
                .build();
        RawResponse wrongMethod = answer(router, "GET /only-post HTTP/1.1\r\n" + HOST + "\r\n", false);
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.headers("Allow")).containsExactly("POST");
        assertThat(wrongMethod.bodyText()).isEqualTo("status 405");
        RawResponse failed = answer(router, "GET /fails HTTP/1.1\r\n" + HOST + "\r\n", false);
        assertThat(failed.status()).isEqualTo(500);
        assertThat(failed.bodyText()).isEqualTo("status 500");
    }

    static Stream<Arguments> kindsOfNotFound() {
        return Stream.of(
                Arguments.of("inline", (Handler) (req, res) -> res.status(404).text("custom 404 " + req.path())),
                Arguments.of("blocking", Handler.blocking((req, res) -> res.status(404).text("custom 404 " + req.path()))),
                Arguments.of("async", Handler.async((req, res) -> CompletableFuture.runAsync(
                        () -> res.status(404).text("custom 404 " + req.path()),
                        CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS)))));
    }

    /** A missing static file is answered by notFound() like a missing route, inside the filters; files that exist still serve. */
    @ParameterizedTest(name = "{0} notFound")
    @MethodSource("kindsOfNotFound")
    void aMissingStaticFileIsAnsweredByNotFound(String kind, Handler notFound) throws Exception {
        Router router = Router.builder()
                .filter((req, res, chain) -> {
                    res.header("X-Filtered", "yes");
                    return chain.proceed();
                })
                .notFound(notFound)
                .staticFiles("/files", StaticFiles.directory(files))
                .build();
        for (String target : List.of("/files/missing.bin", "/nowhere", "/files/.hidden")) {
            RawResponse r = answer(router, "GET " + target + " HTTP/1.1\r\n" + HOST + "\r\n", false);
            assertThat(r.status()).as(target).isEqualTo(404);
            assertThat(r.bodyText()).as(target).isEqualTo("custom 404 " + target);
            assertThat(r.header("X-Filtered")).as(target).isEqualTo("yes");
        }
        RawResponse found = answer(router, "GET /files/data.bin HTTP/1.1\r\n" + HOST + "\r\n", false);
        assertThat(found.status()).isEqualTo(200);
        assertThat(found.body()).hasSize(FILE_SIZE);
    }

    /** The application words a codec failure through a mapper on BodyDecodingException, which carries the type and the cause. */
    @Test
    void theApplicationWordsACodecFailureAndTheCauseIsChained() throws Exception {
        AtomicReference<BodyDecodingException> seen = new AtomicReference<>();
        Router router = Router.builder().json(new FailingCodec())
                .post("/order", (req, res) -> res.json(req.bodyAs(Order.class)))
                .exception(BodyDecodingException.class, (e, req, res) -> {
                    seen.set(e);
                    res.jsonText("{\"problem\":\"an order needs a numeric id\"}");
                })
                .build();
        RawResponse r = answer(router, post("/order", "Content-Length: 2\r\n", "{}"), false);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).isEqualTo("{\"problem\":\"an order needs a numeric id\"}");
        BodyDecodingException e = seen.get();
        assertThat(e.type()).isEqualTo(Order.class);
        assertThat(e.status()).isEqualTo(400);
        assertThat(e.getMessage()).isEqualTo("the body is not a valid Order");
        assertThat(e.getCause()).isInstanceOf(IllegalArgumentException.class).hasMessage(LIBRARY_MESSAGE);
    }

    @Test
    void anHttpExceptionChainsItsCause() {
        Exception cause = new java.io.IOException("disk");
        HttpException e = new HttpException(503, "storage unavailable", cause);
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.getMessage()).isEqualTo("storage unavailable");
    }

    /** Every status the IANA registry names has its reason phrase, so any status Spindle or an application sends does. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307,
            308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424,
            425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511})
    void everyRegisteredStatusHasItsReasonPhrase(int status) {
        assertThat(HttpStatus.reason(status)).isNotEmpty();
    }

    @Test
    void reasonPhrasesFollowRfc9110() {
        assertThat(HttpStatus.reason(416)).isEqualTo("Range Not Satisfiable");
        assertThat(HttpStatus.reason(413)).isEqualTo("Content Too Large");
        assertThat(HttpStatus.reason(422)).isEqualTo("Unprocessable Content");
        assertThat(HttpStatus.reason(412)).isEqualTo("Precondition Failed");
    }
}
