// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.http1.OutgoingBody;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestRoutes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static dev.spindle.core.ConnectionBytes.bytes;
import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Contract v2 of the sans-I/O {@link Connection}: streamed bodies both ways, asynchronous
 * handlers, and the time decisions of {@link Connection#tick}. Driven the way a strategy drives
 * it: write what it hands out, wait for its wakeup, resume.
 */
@org.junit.jupiter.api.Timeout(30)
class ConnectionStreamingTest {
    private static final String HOST = "Host: test\r\n";
    private static final int SIZE = 3 * 1024 * 1024 + 17;
    private static final byte[] PAYLOAD = new byte[SIZE];

    static {
        new Random(42).nextBytes(PAYLOAD);
    }

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\n" + HOST + "\r\n";
    }

    private HttpConnection connection(Router routes, ServerConfig config, boolean offload) {
        return new HttpConnection(routes, config, offload ? executor : null, wakeups::release);
    }

    /**
     * Writes everything the connection hands out, waiting for its wakeup when it has nothing, until
     * it waits for input with nothing to write, or is finished; fails if the pending output ever
     * exceeds {@code bound}.
     */
    private byte[] pump(HttpConnection c, int bound) throws InterruptedException {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.state().finished() && (c.next().writes() || !c.next().reads())) {
            assertThat(System.nanoTime()).as("the connection settles").isLessThan(deadline);
            if (c.next().writes()) {
                HttpConnection.FileRegion file = c.outboundFile();
                if (file != null) {
                    int n = (int) Math.min(file.count(), 100_000);
                    ByteBuffer dst = ByteBuffer.allocate(n);
                    try {
                        file.channel().read(dst, file.position());
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    }
                    written.write(dst.array(), 0, dst.position());
                    c.written(dst.position());
                    continue;
                }
                assertThat(c.outbound().remaining()).as("output held by the connection").isLessThanOrEqualTo(bound);
                written.writeBytes(drain(c));
            } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        return written.toByteArray();
    }

    private static int bound(ServerConfig config) {
        return config.writeHighWaterMark() + OutgoingBody.CHUNK + 64;
    }

    static Stream<Arguments> streamedResponses() {
        return Stream.of(
                Arguments.of("input stream, known length", (Handler) (req, res) -> res.body(new ByteArrayInputStream(PAYLOAD), SIZE), false),
                Arguments.of("input stream, unknown length", (Handler) (req, res) -> res.body(new ByteArrayInputStream(PAYLOAD), -1), true),
                Arguments.of("writer, unknown length", (Handler) (req, res) -> res.stream(out -> {
                    for (int i = 0; i < SIZE; i += 1000) {
                        out.write(PAYLOAD, i, Math.min(1000, SIZE - i));
                    }
                }), true),
                Arguments.of("writer, known length", (Handler) (req, res) -> res.stream(SIZE, out -> out.write(PAYLOAD)), false));
    }

    @ParameterizedTest(name = "{0}, offloaded {1}")
    @MethodSource("streamedResponsesBothWays")
    void streamedResponseArrivesWholeInBoundedMemory(String name, boolean offload, Handler handler, boolean chunked) throws Exception {
        ServerConfig config = ServerConfig.defaults();
        Router routes = Router.builder().get("/big", handler).get("/next", (req, res) -> res.text("next")).build();
        HttpConnection c = connection(routes, config, offload);
        feed(c, get("/big") + get("/next"));
        List<RawResponse> responses = parseAll(pump(c, bound(config)));
        assertThat(responses).hasSize(2);
        RawResponse big = responses.get(0);
        assertThat(big.header("Transfer-Encoding")).isEqualTo(chunked ? "chunked" : null);
        assertThat(big.header("Content-Length")).isEqualTo(chunked ? null : Integer.toString(SIZE));
        assertThat(big.body()).isEqualTo(PAYLOAD);
        assertThat(responses.get(1).bodyText()).as("the pipelined request after it").isEqualTo("next");
    }

    static Stream<Arguments> streamedResponsesBothWays() {
        return streamedResponses().flatMap(a -> Stream.of(
                Arguments.of(a.get()[0], false, a.get()[1], a.get()[2]),
                Arguments.of(a.get()[0], true, a.get()[1], a.get()[2])));
    }

    /** An idle keep-alive connection lets go of its input and output arrays after a quiet while, and the next request makes them again. */
    @Test
    void aQuietKeepAliveConnectionLetsGoOfItsBuffersAndServesTheNextRequest() throws Exception {
        Router routes = Router.builder().get("/hello", (req, res) -> res.text("hello")).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, get("/hello"));
        assertThat(parseAll(drain(c)).get(0).bodyText()).isEqualTo("hello");
        long now = System.nanoTime();
        c.tick(now);
        assertThat(c.bufferCapacity()).as("held while recently busy").isPositive();
        assertThat(c.nanosToTick(now)).as("the quiet while").isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(5));
        long later = now + TimeUnit.SECONDS.toNanos(6);
        c.tick(later);
        assertThat(c.bufferCapacity()).as("an idle connection holds no arrays").isZero();
        assertThat(c.nanosToTick(later)).as("then its idle timeout").isGreaterThan(TimeUnit.SECONDS.toNanos(5));
        feed(c, get("/hello") + get("/hello"));
        assertThat(parseAll(drain(c))).extracting(RawResponse::bodyText).containsExactly("hello", "hello");
    }

    @Test
    void unknownLengthToHttp10IsDelimitedByTheClose() throws Exception {
        Router routes = Router.builder().get("/big", (req, res) -> res.body(new ByteArrayInputStream(PAYLOAD), -1)).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, "GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        byte[] out = pump(c, bound(ServerConfig.defaults()));
        String head = new String(out, 0, 200, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(head).contains("Connection: close").doesNotContain("Content-Length").doesNotContain("chunked");
        int start = head.indexOf("\r\n\r\n") + 4;
        assertThat(java.util.Arrays.copyOfRange(out, start, out.length)).isEqualTo(PAYLOAD);
        assertThat(c.state().finished()).isTrue();
    }

    @ParameterizedTest(name = "transferFiles {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void fileIsSentWithItsLengthAsRegionOrBytes(boolean transfer, @TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("f.bin"), PAYLOAD);
        Router routes = Router.builder().get("/f", (req, res) -> res.file(file)).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        c.transferFiles(transfer);
        feed(c, get("/f") + "HEAD /f HTTP/1.1\r\n" + HOST + "\r\n");
        List<RawResponse> responses = parseAll(pump(c, bound(ServerConfig.defaults())), java.util.Set.of(1));
        assertThat(responses.get(0).header("Content-Length")).isEqualTo(Integer.toString(SIZE));
        assertThat(responses.get(0).body()).isEqualTo(PAYLOAD);
        assertThat(responses.get(1).header("Content-Length")).as("HEAD").isEqualTo(Integer.toString(SIZE));
    }

    @Test
    void failingWriterEndsTheConnectionMidBody() throws Exception {
        Router routes = Router.builder().get("/broken", (req, res) -> res.stream(out -> {
            out.write(PAYLOAD, 0, 100_000);
            throw new IllegalStateException("disk on fire");
        })).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, get("/broken") + get("/broken"));
        byte[] out = pump(c, bound(ServerConfig.defaults()));
        assertThat(c.next()).as("closed: the status was sent, only a cut can tell the client").isEqualTo(Next.CLOSE);
        assertThat(new String(out, java.nio.charset.StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200 OK").doesNotEndWith("0\r\n\r\n");
    }

    /** An upload read as a stream by a blocking handler: the connection never holds more than the window. */
    @ParameterizedTest(name = "chunked {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void uploadIsStreamedToABlockingHandler(boolean chunked) throws Exception {
        AtomicLong seen = new AtomicLong();
        Router routes = Router.builder().post("/count", Handler.blocking((req, res) -> {
            long n = 0;
            try (InputStream in = req.bodyStream()) {
                n = in.transferTo(OutputStream.nullOutputStream());
            }
            seen.set(n);
            res.text(Long.toString(n));
        })).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        String head = "POST /count HTTP/1.1\r\n" + HOST + (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: " + SIZE + "\r\n\r\n");
        feed(c, head);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        int at = 0;
        int piece = 16 * 1024;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (at < SIZE) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            if (!c.next().reads()) {
                if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    c.resume();
                }
                continue;
            }
            int n = Math.min(piece, SIZE - at);
            byte[] data = java.util.Arrays.copyOfRange(PAYLOAD, at, at + n);
            feed(c, chunked ? concat(bytes(Integer.toHexString(n) + "\r\n"), data, bytes("\r\n")) : data);
            at += n;
        }
        if (chunked) {
            feed(c, "0\r\n\r\n");
        }
        feed(c, get("/count"));
        written.writeBytes(pump(c, bound(ServerConfig.defaults())));
        List<RawResponse> responses = parseAll(written.toByteArray());
        assertThat(responses.get(0).bodyText()).isEqualTo(Integer.toString(SIZE));
        assertThat(responses.get(1).status()).as("the pipelined request after the upload").isEqualTo(405);
        assertThat(seen.get()).isEqualTo(SIZE);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            all.writeBytes(p);
        }
        return all.toByteArray();
    }

    static Stream<Arguments> unreadBodies() {
        // body length, discard limit, whether the connection is kept
        return Stream.of(
                Arguments.of(10_000, 1 << 20, true),
                Arguments.of(200_000, 100_000, false));
    }

    /** A handler that answers without reading the body: the rest is dropped, or the connection closed if it is too large. */
    @ParameterizedTest(name = "{0} bytes, limit {1} -> kept {2}")
    @MethodSource("unreadBodies")
    void unreadBodyIsDroppedOrClosesTheConnection(int length, long limit, boolean kept) throws Exception {
        Router routes = Router.builder()
                .post("/ignore", Handler.blocking((req, res) -> res.text("ignored")))
                .get("/after", (req, res) -> res.text("after"))
                .build();
        ServerConfig config = ServerConfig.defaults().discardLimit(limit);
        HttpConnection c = connection(routes, config, true);
        feed(c, "POST /ignore HTTP/1.1\r\n" + HOST + "Content-Length: " + length + "\r\n\r\n");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c.next().writes() && System.nanoTime() < deadline) {
            // the connection wants the body meanwhile; the handler answers on its own thread
            if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        byte[] first = pump(c, bound(config));
        List<RawResponse> answered = parseAll(first);
        assertThat(answered).as("answered without reading the body").hasSize(1);
        assertThat(answered.get(0).header("Connection")).isEqualTo(kept ? null : "close");
        if (kept) {
            feed(c, new byte[length]);
            feed(c, get("/after"));
            List<RawResponse> rest = parseAll(pump(c, bound(config)));
            assertThat(rest).extracting(RawResponse::bodyText).containsExactly("after");
        } else {
            assertThat(c.state().finished()).isTrue();
        }
    }

    @Test
    void asynchronousAnswersKeepPipelinedOrder() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        Router routes = Router.builder()
                .get("/later", Handler.async((req, res) -> gate.thenRun(() -> res.text("later"))))
                .get("/now", (req, res) -> res.text("now"))
                .build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, get("/later") + get("/now"));
        assertThat(c.next().writes()).as("nothing before the stage completes").isFalse();
        assertThat((c.state() == Connection.State.HANDLING)).isTrue();
        executor.execute(() -> gate.complete(null));
        List<RawResponse> responses = parseAll(pump(c, bound(ServerConfig.defaults())));
        assertThat(responses).extracting(RawResponse::bodyText).containsExactly("later", "now");
    }

    @Test
    void failedStageIs500AndKeepsTheConnection() throws Exception {
        Router routes = Router.builder()
                .get("/fail", Handler.async((req, res) -> CompletableFuture.failedFuture(new IllegalStateException("nope"))))
                .get("/gone", Handler.async((req, res) -> CompletableFuture.failedFuture(new HttpException(410, "gone"))))
                .build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, get("/fail") + get("/gone"));
        List<RawResponse> responses = parseAll(pump(c, bound(ServerConfig.defaults())));
        assertThat(responses).extracting(RawResponse::status).containsExactly(500, 410);
        assertThat(c.state().finished()).isFalse();
    }

    @Test
    void asynchronousHandlerReadsTheBodyWithDemand() throws Exception {
        Router routes = Router.builder().post("/sum", Handler.async((req, res) -> req.readBody()
                .thenAccept(body -> res.text(Integer.toString(body.length))))).build();
        HttpConnection c = connection(routes, ServerConfig.defaults(), true);
        feed(c, "POST /sum HTTP/1.1\r\n" + HOST + "Content-Length: 100000\r\n\r\n");
        for (int i = 0; i < 10; i++) {
            feed(c, new byte[10_000]);
        }
        assertThat(parseAll(pump(c, bound(ServerConfig.defaults()))).get(0).bodyText()).isEqualTo("100000");
    }

    @Test
    void handlerTimeoutAnswers503AndCloses() {
        Router routes = Router.builder().get("/never", Handler.async((req, res) -> new CompletableFuture<Void>())).build();
        ServerConfig config = ServerConfig.defaults().handlerTimeout(Duration.ofSeconds(2));
        HttpConnection c = connection(routes, config, true);
        feed(c, get("/never"));
        long now = 1_000_000_000L;
        c.tick(now);
        c.tick(now + Duration.ofMillis(1999).toNanos());
        assertThat(c.next().writes()).isFalse();
        c.tick(now + Duration.ofSeconds(2).toNanos());
        RawResponse r = parseAll(drain(c)).get(0);
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(c.next()).isEqualTo(Next.LINGER);
    }

    static Stream<Arguments> timeouts() {
        return Stream.of(
                // name, input, ticks after the first (ms), expected status or 0 for a silent close
                Arguments.of("idle keep-alive connection", get("/plaintext"), 60_000, 0),
                Arguments.of("request line never finished", "GET /plain", 10_000, 408),
                Arguments.of("body never finished", "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 10\r\n\r\nab", 10_000, 408));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("timeouts")
    void timeoutsAreDecidedByTheCore(String name, String input, long afterMillis, int status) {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), ServerConfig.defaults());
        feed(c, input);
        drain(c);
        long now = 5_000_000_000L;
        c.tick(now);
        c.tick(now + TimeUnit.MILLISECONDS.toNanos(afterMillis - 1));
        assertThat(c.state().finished()).as("not before the timeout").isFalse();
        c.tick(now + TimeUnit.MILLISECONDS.toNanos(afterMillis));
        if (status == 0) {
            assertThat(c.next()).as("closed without a response").isEqualTo(Next.CLOSE);
            assertThat(c.next().writes()).isFalse();
        } else {
            RawResponse r = parseAll(drain(c)).get(0);
            assertThat(r.status()).isEqualTo(status);
            assertThat(c.next()).isEqualTo(Next.LINGER);
            c.tick(now + TimeUnit.MILLISECONDS.toNanos(afterMillis + 100));
            c.tick(now + TimeUnit.MILLISECONDS.toNanos(afterMillis + 700));
            assertThat(c.next()).as("closed after lingering").isEqualTo(Next.CLOSE);
        }
    }

    @Test
    void outputThePeerDoesNotTakeIsDroppedAfterTheWriteTimeout() {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), ServerConfig.defaults().writeTimeout(Duration.ofSeconds(3)));
        feed(c, get("/plaintext"));
        long now = 5_000_000_000L;
        c.tick(now);
        c.written(3);
        c.tick(now + TimeUnit.SECONDS.toNanos(2));
        c.tick(now + TimeUnit.SECONDS.toNanos(4));
        assertThat(c.next()).as("progress at 2 s restarted the clock").isNotEqualTo(Next.CLOSE);
        c.tick(now + TimeUnit.SECONDS.toNanos(5));
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void rejectingConnectionAnswers503ThenLingers() {
        HttpConnection c = HttpConnection.rejecting(ServerConfig.defaults(), 503, "too many connections");
        feed(c, get("/plaintext"));
        RawResponse r = parseAll(drain(c)).get(0);
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(c.next()).isEqualTo(Next.LINGER);
        c.endOfInput();
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    /**
     * Connections that only drop input hold almost no buffer memory: one lingering after a response
     * that closed it (a request body of 1 MiB had been buffered), and one answering a rejection.
     * A server churning through short connections holds thousands of them.
     */
    @Test
    void lingeringAndRejectingConnectionsHoldAlmostNoBuffers() {
        Router routes = Router.builder().post("/up", (req, res) -> res.text("ok")).build();
        HttpConnection closing = new HttpConnection(routes, ServerConfig.defaults());
        feed(closing, "POST /up HTTP/1.1\r\n" + HOST + "Connection: close\r\nContent-Length: " + (1 << 20) + "\r\n\r\n");
        feed(closing, new byte[1 << 20]);
        assertThat(parseAll(drain(closing)).get(0).status()).isEqualTo(200);
        closing.tick(System.nanoTime());
        assertThat(closing.next()).isEqualTo(Next.LINGER);
        assertThat(closing.bufferCapacity()).as("buffer bytes held while lingering").isLessThanOrEqualTo(1024);

        HttpConnection rejecting = HttpConnection.rejecting(ServerConfig.defaults(), 503, "too many connections");
        assertThat(rejecting.bufferCapacity()).as("buffer bytes held by a rejection").isLessThanOrEqualTo(1024);
        assertThat(parseAll(drain(rejecting)).get(0).status()).isEqualTo(503);
    }

    /** Heap a connection holds once idle after a 50 MB reply: its buffers shrink back. */
    @Test
    void idleConnectionLetsGoOfALargeReply() {
        byte[] big = new byte[50_000_000];
        Router routes = Router.builder().get("/big", (req, res) -> res.body(big)).post("/up", (req, res) -> res.text("ok")).build();
        HttpConnection c = new HttpConnection(routes, ServerConfig.defaults().maxBodySize(60_000_000));
        feed(c, get("/big"));
        while (c.next().writes()) {
            drain(c);
        }
        feed(c, "POST /up HTTP/1.1\r\n" + HOST + "Content-Length: " + big.length + "\r\n\r\n");
        feed(c, big);
        drain(c);
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
        assertThat(c.bufferCapacity()).as("bytes of buffers held while idle").isLessThanOrEqualTo(64 * 1024);
    }

    private static String post(String target, int length) {
        return "POST " + target + " HTTP/1.1\r\n" + HOST + "Content-Length: " + length + "\r\n\r\n";
    }

    private static Router echoRoutes() {
        return Router.builder()
                .post("/echo", (req, res) -> res.body(req.body()))
                .get("/next", (req, res) -> res.text("next"))
                .build();
    }

    /** Feeds {@code b} in pieces of {@code piece} bytes, as socket reads deliver a large body. */
    private static void feedInPieces(HttpConnection c, byte[] b, int piece) {
        for (int i = 0; i < b.length; i += piece) {
            c.received(ByteBuffer.wrap(b, i, Math.min(piece, b.length - i)));
        }
    }

    /**
     * A body past the input buffer's retain limit, its head in the same read as its first bytes (as
     * a blocking loop reads it), is echoed from the input array too: letting the array go when the
     * request was consumed, before its handler ran, made the echo a copy, twice the memory.
     */
    @Test
    void echoOfABodyPastTheRetainLimitIsNotCopied() {
        int size = 5_000_000;
        HttpConnection c = connection(echoRoutes(), ServerConfig.defaults(), false);
        byte[] head = post("/echo", size).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] body = new byte[size];
        new java.util.Random(7).nextBytes(body);
        byte[] all = java.util.Arrays.copyOf(head, head.length + size);
        System.arraycopy(body, 0, all, head.length, size);
        byte[] read = new byte[16 * 1024];
        for (int i = 0; i < all.length; i += read.length) {
            int n = Math.min(read.length, all.length - i);
            System.arraycopy(all, i, read, 0, n);
            c.received(ByteBuffer.wrap(read, 0, n));
        }
        assertThat(c.outputCapacity()).as("the body was not copied into the output buffer").isLessThan(size);
        List<RawResponse> responses = parseAll(ConnectionBytes.drainAll(c));
        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).body()).isEqualTo(body);
    }

    @Test
    void largeEchoIsSentFromTheInputArrayAndSurvivesInputArrivingWhileItIsWritten() {
        int size = 300_000;
        byte[] body = java.util.Arrays.copyOf(PAYLOAD, size);
        HttpConnection c = connection(echoRoutes(), ServerConfig.defaults(), false);
        feed(c, post("/echo", size));
        feedInPieces(c, body, 16 * 1024);

        ByteArrayOutputStream written = new ByteArrayOutputStream();
        written.writeBytes(drain(c));
        ByteBuffer part = c.outbound();
        assertThat(part.remaining()).as("the body follows the head as its own part").isEqualTo(size);
        byte[] first = new byte[100_000];
        part.get(first);
        c.written(first.length);
        written.writeBytes(first);
        assertThat(c.outputCapacity()).as("the body was not copied into the output buffer").isLessThan(size);

        // bytes a strategy had already read arrive while the rest of the body is unsent: the next
        // request, and a body of other bytes that would overwrite the echoed one if it were reused
        byte[] other = new byte[size];
        java.util.Arrays.fill(other, (byte) 'x');
        feed(c, get("/next") + post("/echo", size));
        feedInPieces(c, other, 16 * 1024);
        written.writeBytes(ConnectionBytes.drainAll(c));

        List<RawResponse> responses = parseAll(written.toByteArray());
        assertThat(responses).hasSize(3);
        assertThat(responses.get(0).body()).isEqualTo(body);
        assertThat(new String(responses.get(1).body(), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("next");
        assertThat(responses.get(2).body()).isEqualTo(other);
        assertThat(c.next().reads()).isTrue();
    }

    @Test
    void largeEchoPipelinedBehindAnotherRequestInTheSameBufferKeepsOrder() {
        int size = 100_000;
        byte[] body = java.util.Arrays.copyOfRange(PAYLOAD, 1000, 1000 + size);
        byte[] all = new ByteArrayOutputStream() {
            {
                writeBytes(bytes(post("/echo", size)));
                writeBytes(body);
                writeBytes(bytes(get("/next") + "HEAD /next HTTP/1.1\r\n" + HOST + "\r\n"));
            }
        }.toByteArray();
        HttpConnection c = connection(echoRoutes(), ServerConfig.defaults(), false);
        feedInPieces(c, all, 7_000);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        while (c.next().writes()) {
            ByteBuffer view = c.outbound();
            byte[] chunk = new byte[Math.min(view.remaining(), 9_000)];
            view.get(chunk);
            c.written(chunk.length);
            written.writeBytes(chunk);
        }
        List<RawResponse> responses = parseAll(written.toByteArray(), java.util.Set.of(2));
        assertThat(responses).hasSize(3);
        assertThat(responses.get(0).header("Content-Length")).isEqualTo(String.valueOf(size));
        assertThat(responses.get(0).body()).isEqualTo(body);
        assertThat(responses.get(1).body()).isEqualTo(bytes("next"));
        assertThat(responses.get(2).status()).isEqualTo(200);
        assertThat(c.next().reads()).isTrue();
    }
}
