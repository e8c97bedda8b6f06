// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
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
import static dev.spindle.core.ConnectionBytes.bytes;
import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Body limits per route ({@link RouteOptions}), the buffered and streamed limits of
 * {@link ServerConfig}, and the server-wide {@link BodyBudget} for buffered bodies, on the sans-I/O
 * connection: bytes in, statuses out.
 */
class BodyLimitTest {
    private static final String HOST = "Host: test\r\n";
    /** The server's limits in these tests: small, so the bodies are too. */
    private static final ServerConfig LIMITS = ServerConfig.defaults().maxBodySize(1000).maxStreamedBodySize(5000);

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** Answers the length of the body it read, whole (inline) or as a stream (blocking, async). */
    private static Router limitedRoutes() {
        Handler inline = (req, res) -> res.text(Long.toString(req.bodyLength()));
        Handler blocking = Handler.blocking((req, res) -> {
            try (InputStream in = req.bodyStream()) {
                res.text(Long.toString(in.transferTo(java.io.OutputStream.nullOutputStream())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Handler async = Handler.async((req, res) -> req.readBody().thenAccept(b -> res.text(Integer.toString(b.length))));
        Handler collects = Handler.blocking((req, res) -> res.text(Integer.toString(req.bodyBytes().length)));
        RouteOptions small = RouteOptions.defaults().maxBodySize(100);
        RouteOptions large = RouteOptions.defaults().maxBodySize(20_000);
        return Router.builder()
                .post("/inline", inline)
                .post("/inline/small", inline, small)
                .post("/inline/large", inline, large)
                .post("/blocking", blocking)
                .post("/blocking/small", blocking, small)
                .route("POST", "/blocking/large", blocking, large)
                .post("/async", async)
                .put("/async/small", async, small)
                .post("/async/large", async, large)
                .post("/collects", collects)
                .post("/collects/large", collects, large)
                .build();
    }

    static Stream<Arguments> limits() {
        return Stream.of(
                // route, method, body length, expected status; each row is sent announced and chunked
                Arguments.of("/inline", "POST", 1000, 200),
                Arguments.of("/inline", "POST", 1001, 413),
                Arguments.of("/inline/small", "POST", 100, 200),
                Arguments.of("/inline/small", "POST", 101, 413),
                Arguments.of("/inline/large", "POST", 20_000, 200),
                Arguments.of("/inline/large", "POST", 20_001, 413),
                Arguments.of("/blocking", "POST", 5000, 200),
                Arguments.of("/blocking", "POST", 5001, 413),
                Arguments.of("/blocking/small", "POST", 100, 200),
                Arguments.of("/blocking/small", "POST", 101, 413),
                Arguments.of("/blocking/large", "POST", 20_000, 200),
                Arguments.of("/blocking/large", "POST", 20_001, 413),
                Arguments.of("/async", "POST", 1000, 200),
                Arguments.of("/async", "POST", 1001, 413),
                Arguments.of("/async/small", "PUT", 100, 200),
                Arguments.of("/async/small", "PUT", 101, 413),
                Arguments.of("/async/large", "POST", 20_000, 200),
                Arguments.of("/async/large", "POST", 20_001, 413),
                // a streamed body read whole keeps the buffered limit (the server's, or the route's)
                Arguments.of("/collects", "POST", 1000, 200),
                Arguments.of("/collects", "POST", 1001, 413),
                Arguments.of("/collects/large", "POST", 20_000, 200),
                Arguments.of("/collects/large", "POST", 20_001, 413),
                // no route: the server's buffered limit, then the 404
                Arguments.of("/nowhere", "POST", 1000, 404),
                Arguments.of("/nowhere", "POST", 1001, 413));
    }

    @ParameterizedTest(name = "{1} {0} with {2} bytes -> {3}")
    @MethodSource("limits")
    void eachRouteHasItsBodyLimit(String target, String method, int length, int status) throws Exception {
        for (boolean chunked : new boolean[] {false, true}) {
            HttpConnection c = new HttpConnection(limitedRoutes(), LIMITS, executor, wakeups::release);
            RawResponse r = exchange(c, request(method, target, length, chunked));
            assertThat(r.status()).as("chunked %s", chunked).isEqualTo(status);
            if (status == 200) {
                assertThat(r.bodyText()).isEqualTo(Integer.toString(length));
            }
        }
    }

    /** An announced length over the limit is refused at the header section, before any body byte. */
    @Test
    void announcedLengthOverTheRouteLimitIsRefusedAtTheHeaderSection() throws Exception {
        HttpConnection c = new HttpConnection(limitedRoutes(), LIMITS, executor, wakeups::release);
        RawResponse r = exchange(c, bytes("POST /blocking/large HTTP/1.1\r\n" + HOST + "Content-Length: 20001\r\n\r\n"));
        assertThat(r.status()).isEqualTo(413);
        RawResponse ok = exchange(new HttpConnection(limitedRoutes(), LIMITS, executor, wakeups::release),
                bytes("POST /inline/large HTTP/1.1\r\n" + HOST + "Content-Length: 20000\r\n\r\n"), 1);
        assertThat(ok).as("a body within the limit waits for its bytes").isNull();
    }

    /** A streamed body has no limit by default: only the buffered one is 16 MiB. */
    @Test
    void streamedBodiesAreUnlimitedByDefault() {
        assertThat(ServerConfig.defaults().maxStreamedBodySize()).isEqualTo(Long.MAX_VALUE);
        assertThat(ServerConfig.defaults().maxBodySize()).isEqualTo(16L << 20);
        Router routes = limitedRoutes();
        HttpConnection c = new HttpConnection(routes, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, "POST /blocking HTTP/1.1\r\n" + HOST + "Content-Length: 17000000000\r\n\r\n");
        assertThat(c.next().writes()).as("no 413 for 17 GB streamed").isFalse();
        c.closed();
    }

    @Test
    void routeOptionsRejectANegativeLimit() {
        assertThatThrownBy(() -> RouteOptions.defaults().maxBodySize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RouteOptions.defaults().maxBodySize()).isEqualTo(-1);
    }

    private static Router countingRoutes() {
        return Router.builder()
                .post("/count", (req, res) -> res.text(Long.toString(req.bodyLength())))
                .post("/echo", (req, res) -> res.body(req.body()))
                .get("/plain", (req, res) -> res.text("ok"))
                .build();
    }

    private static HttpConnection budgeted(BodyBudget budget) {
        return new HttpConnection(countingRoutes(), ServerConfig.defaults(), null, null, budget);
    }

    static Stream<Arguments> budgetCases() {
        // budget, body length, chunked, expected status of a lone request
        return Stream.of(
                Arguments.of(100_000, 80_000, false, 200),
                Arguments.of(100_000, 80_000, true, 200),
                Arguments.of(100_000, 200_000, false, 413),
                Arguments.of(100_000, 200_000, true, 413),
                Arguments.of(0, 10_000, false, 200),
                Arguments.of(0, 20_000, false, 413));
    }

    @ParameterizedTest(name = "budget {0}, {1} bytes, chunked {2} -> {3}")
    @MethodSource("budgetCases")
    void aLoneBodyFitsTheBudgetOrIsRefused(long capacity, int length, boolean chunked, int status) {
        BodyBudget budget = new BodyBudget(capacity);
        HttpConnection c = budgeted(budget);
        feedInReads(c, request("POST", "/count", length, chunked));
        RawResponse r = parseAll(drain(c)).get(0);
        assertThat(r.status()).isEqualTo(status);
        assertThat(budget.reserved()).as("given back once answered, before the socket is closed").isZero();
        c.closed();
        assertThat(budget.reserved()).isZero();
    }

    /** Two connections, one budget: the second body waits out the first (503, Retry-After), then fits. */
    @Test
    void aBodyThatDoesNotFitBesideOthersIn503AndFitsOnceTheyAreDone() {
        BodyBudget budget = new BodyBudget(100_000);
        HttpConnection first = budgeted(budget);
        byte[] body = new byte[70_000];
        feed(first, "POST /count HTTP/1.1\r\n" + HOST + "Content-Length: " + body.length + "\r\n\r\n");
        feed(first, Arrays.copyOf(body, 1000));
        assertThat(budget.reserved()).as("sized for the announced body at once, not by doubling")
                .isBetween(1L, 70_000L + 1000);

        HttpConnection second = budgeted(budget);
        feed(second, "POST /count HTTP/1.1\r\n" + HOST + "Content-Length: " + body.length + "\r\n\r\n");
        RawResponse refused = parseAll(drain(second)).get(0);
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        assertThat(refused.header("Connection")).isEqualTo("close");
        second.closed();

        HttpConnection chunked = budgeted(budget);
        feed(chunked, "POST /count HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n");
        for (int i = 0; i < 40 && !chunked.next().writes(); i++) {
            feed(chunked, "1000\r\n" + "x".repeat(4096) + "\r\n");
        }
        assertThat(parseAll(drain(chunked)).get(0).status()).as("a chunked body refused as it grows").isEqualTo(503);
        chunked.closed();

        feedInReads(first, Arrays.copyOfRange(body, 1000, body.length));
        assertThat(parseAll(drain(first)).get(0).bodyText()).isEqualTo("70000");
        assertThat(budget.reserved()).as("released once the request is consumed").isZero();

        HttpConnection third = budgeted(budget);
        feed(third, "POST /count HTTP/1.1\r\n" + HOST + "Content-Length: " + body.length + "\r\n\r\n");
        feedInReads(third, body);
        assertThat(parseAll(drain(third)).get(0).status()).isEqualTo(200);
        assertThat(first.state()).isEqualTo(Connection.State.IDLE);
        feed(first, "GET /plain HTTP/1.1\r\n" + HOST + "\r\n");
        assertThat(parseAll(drain(first)).get(0).bodyText()).isEqualTo("ok");
    }

    /** A connection that ends mid-body, however it ends, gives its reservation back. */
    @Test
    void aConnectionEndingMidBodyReleasesItsReservation() {
        BodyBudget budget = new BodyBudget(1 << 20);
        for (int way = 0; way < 3; way++) {
            HttpConnection c = budgeted(budget);
            feed(c, "POST /count HTTP/1.1\r\n" + HOST + "Content-Length: 500000\r\n\r\n");
            feedInReads(c, new byte[100_000]);
            assertThat(budget.reserved()).isPositive();
            switch (way) {
                case 0 -> c.closed();
                case 1 -> {
                    // the peer half-closes inside the body, then the strategy closes the socket
                    c.endOfInput();
                    c.closed();
                }
                default -> {
                    // a header timeout (408), then the close
                    long now = System.nanoTime();
                    c.tick(now);
                    c.tick(now + TimeUnit.SECONDS.toNanos(11));
                    drain(c);
                    c.closed();
                }
            }
            assertThat(budget.reserved()).as("way %d", way).isZero();
        }
    }

    /** A large echo is sent from the input array it arrived in: that array stays reserved until it is sent. */
    @Test
    void anEchoSentInPlaceKeepsItsReservationUntilSent() {
        BodyBudget budget = new BodyBudget(1 << 20);
        HttpConnection c = budgeted(budget);
        byte[] body = new byte[200_000];
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: " + body.length + "\r\n\r\n");
        feedInReads(c, body);
        assertThat(budget.reserved()).isPositive();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        while (c.next().writes()) {
            all.writeBytes(drain(c));
        }
        assertThat(parseAll(all.toByteArray()).get(0).body()).hasSize(body.length);
        assertThat(budget.reserved()).isZero();
        c.closed();
        assertThat(budget.reserved()).isZero();
    }

    @Test
    void budgetReservesAndReleases() {
        BodyBudget budget = new BodyBudget(100);
        assertThat(budget.tryReserve(60)).isTrue();
        assertThat(budget.tryReserve(41)).isFalse();
        assertThat(budget.reserved()).isEqualTo(60);
        assertThat(budget.tryReserve(40)).isTrue();
        budget.release(100);
        assertThat(budget.reserved()).isZero();
        assertThat(new BodyBudget(Long.MAX_VALUE).tryReserve(Long.MAX_VALUE)).isTrue();
        assertThatThrownBy(() -> new BodyBudget(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ServerConfig.defaults().bufferedBodyBudget()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
    }

    /** Feeds {@code b} as socket reads of 16 KiB deliver it (a strategy's read buffer, lent to the connection). */
    private static void feedInReads(HttpConnection c, byte[] b) {
        for (int i = 0; i < b.length; i += 16 * 1024) {
            c.received(ByteBuffer.wrap(b, i, Math.min(16 * 1024, b.length - i)).slice());
        }
    }

    private static byte[] request(String method, String target, int length, boolean chunked) {
        byte[] body = new byte[length];
        Arrays.fill(body, (byte) 'x');
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (!chunked) {
            out.writeBytes(bytes(method + " " + target + " HTTP/1.1\r\n" + HOST + "Content-Length: " + length + "\r\n\r\n"));
            out.writeBytes(body);
            return out.toByteArray();
        }
        out.writeBytes(bytes(method + " " + target + " HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n"));
        for (int i = 0; i < length; i += 4000) {
            int n = Math.min(4000, length - i);
            out.writeBytes(bytes(Integer.toHexString(n) + "\r\n"));
            out.write(body, i, n);
            out.writeBytes(bytes("\r\n"));
        }
        out.writeBytes(bytes("0\r\n\r\n"));
        return out.toByteArray();
    }

    /**
     * Feeds the request as far as the connection reads it, running it (and its handler) until it
     * answers; the first response, or null if none came in time.
     */
    private RawResponse exchange(HttpConnection c, byte[] request) throws InterruptedException {
        return exchange(c, request, 10);
    }

    private RawResponse exchange(HttpConnection c, byte[] request, int seconds) throws InterruptedException {
        ByteBuffer input = ByteBuffer.wrap(request);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (input.hasRemaining() && c.next().reads()) {
                ByteBuffer piece = input.slice().limit(Math.min(input.remaining(), 16 * 1024));
                c.received(piece);
                input.position(input.position() + piece.position());
            } else if (c.next().writes()) {
                written.writeBytes(drain(c));
            } else if (!written.toString(java.nio.charset.StandardCharsets.ISO_8859_1).isEmpty()
                    && (c.state().finished() || (c.state() == Connection.State.IDLE))) {
                break;
            } else if (wakeups.tryAcquire(20, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        List<RawResponse> responses = parseAll(written.toByteArray());
        c.closed();
        return responses.isEmpty() ? null : responses.get(0);
    }
}
