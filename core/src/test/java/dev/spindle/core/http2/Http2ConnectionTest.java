// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Http2Connection} fed frames by hand: requests to handlers, flow control, stream and connection errors, defences. */
class Http2ConnectionTest {
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final Semaphore woken = new Semaphore(0);
    /** The answers of {@code GET /slow}'s handlers, completed when a test says (its cancelled requests' handlers ending). */
    private final Queue<CompletableFuture<Void>> slow = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private Router routes() {
        return Router.builder()
                .get("/slow", Handler.async((req, res) -> {
                    CompletableFuture<Void> answer = new CompletableFuture<>();
                    slow.add(answer);
                    return answer.thenRun(() -> res.text("slow"));
                }))
                .get("/hang", Handler.async((req, res) -> new CompletableFuture<Void>()))
                .post("/early", Handler.blocking((req, res) -> res.body(new byte[10_000])))
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/version", (req, res) -> res.text(req.version() + " " + req.header("host")))
                .get("/cookie", (req, res) -> res.text(req.header("cookie") + " | " + req.header("x-after") + " | " + req.headerCount() + " | " + req.headers("cookie").size()))
                .get("/big", (req, res) -> res.body(new byte[100_000]))
                .post("/echo", (req, res) -> res.body(req.body()))
                .post("/blocking", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(Long.toString(in.transferTo(OutputStream.nullOutputStream())));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }))
                .get("/blocking", Handler.blocking((req, res) -> res.text("from a worker")))
                .post("/blocking/small", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(Long.toString(in.transferTo(OutputStream.nullOutputStream())));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }), dev.spindle.core.RouteOptions.defaults().maxBodySize(1000))
                .get("/stream", (req, res) -> res.body(new java.io.ByteArrayInputStream("s".repeat(40_000).getBytes(StandardCharsets.US_ASCII)), -1))
                .get("/writer", Handler.blocking((req, res) -> res.stream(out -> {
                    for (int i = 0; i < 50; i++) {
                        out.write("w".repeat(1000).getBytes(StandardCharsets.US_ASCII));
                    }
                })))
                .build();
    }

    private Http2Connection connection(ServerConfig config) {
        return new Http2Connection(routes(), config, executor, woken::release, null);
    }

    private H2Peer peer() {
        return new H2Peer(connection(ServerConfig.defaults())).start();
    }

    @Test
    void answersAGetWithItsHeadersAndBody() throws Exception {
        H2Peer peer = peer();
        List<H2Peer.Frame> first = peer.read();
        assertThat(first.get(0).type()).as("the server's preface is a SETTINGS frame").isEqualTo(SETTINGS);
        peer.send(get(1, "/plaintext"));
        H2Peer.Response r = peer.response(1);
        assertThat(r.status()).isEqualTo("200");
        assertThat(r.headers()).containsEntry("content-length", "13").containsKey("date");
        assertThat(r.body()).isEqualTo("Hello, World!");
        assertThat(r.ended()).isTrue();
        assertThat(peer.frames()).anyMatch(f -> f.type() == SETTINGS && f.has(ACK));
    }

    @Test
    void theRequestSaysHttp2AndAuthorityIsTheHost() throws Exception {
        H2Peer peer = peer();
        peer.send(get(1, "/version"));
        assertThat(peer.response(1).body()).isEqualTo("HTTP/2 localhost");
    }

    @Test
    void manyStreamsOnOneConnectionAreAllAnswered() throws Exception {
        H2Peer peer = peer();
        for (int id = 1; id < 200; id += 2) {
            peer.send(get(id, "/plaintext"));
        }
        for (int id = 1; id < 200; id += 2) {
            assertThat(peer.response(id).body()).as("stream %d", id).isEqualTo("Hello, World!");
        }
    }

    @Test
    void echoesABodySentInSeveralDataFrames() throws Exception {
        H2Peer peer = peer();
        peer.send(post(1, "/echo"));
        peer.send(data(1, "hello ", false));
        peer.send(data(1, "world", true));
        assertThat(peer.response(1).body()).isEqualTo("hello world");
    }

    @Test
    void aBlockingHandlerRunsOnTheExecutorAndIsAnsweredAfterTheWakeup() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        peer.send(get(1, "/blocking"));
        assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        c.resume();
        assertThat(peer.response(1).body()).isEqualTo("from a worker");
    }

    @Test
    void aStreamedBodyIsFedToItsBlockingHandler() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        peer.send(post(1, "/blocking"));
        String chunk = "x".repeat(10_000);
        for (int i = 0; i < 5; i++) {
            peer.send(data(1, chunk, i == 4));
        }
        for (int i = 0; i < 50 && !peer.response(1).ended(); i++) {
            woken.tryAcquire(100, TimeUnit.MILLISECONDS);
            c.resume();
        }
        assertThat(peer.response(1).body()).isEqualTo("50000");
    }

    @Test
    void aStreamedBodyGoesOutInDataFramesWithoutALength() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        // 90,000 bytes in all: more than the connection's first window
        peer.send(windowUpdate(0, 1_000_000));
        peer.send(get(1, "/stream"));
        peer.send(get(3, "/writer"));
        for (int i = 0; i < 100 && !(peer.response(1).ended() && peer.response(3).ended()); i++) {
            woken.tryAcquire(50, TimeUnit.MILLISECONDS);
            c.resume();
        }
        H2Peer.Response stream = peer.response(1);
        assertThat(stream.headers()).doesNotContainKey("content-length");
        assertThat(stream.body()).isEqualTo("s".repeat(40_000));
        assertThat(peer.response(3).body()).isEqualTo("w".repeat(50_000));
        assertThat(peer.response(3).ended()).isTrue();
    }

    @Test
    void aStreamedBodyOverItsRoutesLimitIsAnswered413() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        peer.send(post(1, "/blocking/small"));
        peer.send(data(1, "x".repeat(3000), true));
        for (int i = 0; i < 50 && !peer.response(1).ended(); i++) {
            woken.tryAcquire(100, TimeUnit.MILLISECONDS);
            c.resume();
        }
        assertThat(peer.response(1).status()).isEqualTo("413");
    }

    @Test
    void respectsThePeersStreamWindowUntilAWindowUpdate() throws Exception {
        H2Peer peer = new H2Peer(connection(ServerConfig.defaults()));
        peer.send(concat(PREFACE, settings(0x4, 1000)));
        peer.send(get(1, "/big"));
        assertThat(dataBytes(peer.read(), 1)).isEqualTo(1000);
        peer.send(windowUpdate(1, 5000));
        assertThat(dataBytes(peer.read(), 1)).isEqualTo(5000);
        peer.send(windowUpdate(1, 1_000_000));
        // the connection's window (65,535) is the limit now
        assertThat(dataBytes(peer.read(), 1)).isEqualTo(65_535 - 6000);
        peer.send(windowUpdate(0, 1_000_000));
        assertThat(peer.response(1).body()).hasSize(100_000);
        assertThat(peer.response(1).ended()).isTrue();
    }

    private static int dataBytes(List<H2Peer.Frame> frames, int stream) {
        return frames.stream().filter(f -> f.type() == DATA && f.stream() == stream).mapToInt(f -> f.payload().length).sum();
    }

    @Test
    void cookieFieldsSplitForCompressionReachTheHandlerAsOne() throws Exception {
        H2Peer peer = peer();
        String longValue = "v".repeat(600);
        peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block(":method", "GET", ":scheme", "http", ":path", "/cookie",
                ":authority", "localhost", "cookie", "a=1", "x-after", "kept", "cookie", "b=" + longValue, "cookie", "c=3")));
        peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, block(":method", "GET", ":scheme", "http", ":path", "/cookie",
                ":authority", "localhost", "cookie", "only=1")));
        assertThat(peer.response(1).body()).as("RFC 9113 8.2.3: joined with \"; \" in order, the other fields kept")
                .isEqualTo("a=1; b=" + longValue + "; c=3 | kept | 3 | 1");
        assertThat(peer.response(3).body()).isEqualTo("only=1 | null | 2 | 1");
    }

    @Test
    void expectContinueGetsAnInterimResponseBeforeTheBodyIsSent() throws Exception {
        H2Peer peer = peer();
        peer.send(post(1, "/echo", "expect", "100-Continue"));
        H2Peer.Response interim = peer.response(1);
        assertThat(interim.status()).as("a HEADERS frame with :status 100, before any DATA").isEqualTo("100");
        assertThat(interim.ended()).isFalse();
        peer.send(frame(DATA, END_STREAM, 1, "body".getBytes(StandardCharsets.US_ASCII)));
        H2Peer.Response r = peer.response(1);
        assertThat(r.status()).isEqualTo("200");
        assertThat(r.body()).isEqualTo("body");

        peer.send(post(3, "/nowhere", "expect", "100-continue"));
        assertThat(peer.response(3).status()).as("answered at once: the client need not send the body").isEqualTo("404");
        peer.send(post(5, "/echo", "expect", "something-else"));
        assertThat(peer.response(5).status()).isEqualTo("417");
    }

    @Test
    void aMalformedRequestResetsItsStreamOnly() throws Exception {
        H2Peer peer = peer();
        peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1,
                block(":method", "GET", ":scheme", "http", ":path", "/plaintext", "Bad", "upper case")));
        peer.send(get(3, "/plaintext"));
        assertThat(peer.read()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1 && f.errorCode() == 0x1);
        assertThat(peer.response(3).body()).isEqualTo("Hello, World!");
    }

    @Test
    void rapidResetEndsTheConnectionWithEnhanceYourCalm() {
        H2Peer peer = peer();
        for (int id = 1; id < 1000; id += 2) {
            peer.send(concat(frame(HEADERS, END_HEADERS, id,
                    block(":method", "POST", ":scheme", "http", ":path", "/echo")), rst(id, 0x8)));
        }
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0xb);
    }

    /**
     * A browser leaving a page: it cancels the page's 128 requests (their handlers still running)
     * and asks for the next page's; three times in a row, so within one reset window. Every new
     * request is answered: a cancelled stream frees the client's concurrency slot at once, and
     * streams answered make up for streams cancelled.
     */
    @Test
    void aClientThatCancelsAPageOfRequestsAndAsksAgainIsServed() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        int id = 1;
        for (int page = 0; page < 3; page++) {
            for (int i = 0; i < 128; i++) {
                peer.send(get(id + 2 * i, "/slow"));
            }
            for (int i = 0; i < 128; i++) {
                peer.send(rst(id + 2 * i, 0x8));
            }
            id += 256;
            for (int i = 0; i < 128; i++) {
                peer.send(get(id + 2 * i, "/plaintext"));
            }
            for (int i = 0; i < 128; i++) {
                assertThat(peer.response(id + 2 * i).status()).as("page %d, request %d: %s", page, i, peer.frames().getLast())
                        .isEqualTo("200");
            }
            id += 256;
            // the cancelled requests' handlers end later
            for (CompletableFuture<Void> answer; (answer = slow.poll()) != null; ) {
                answer.complete(null);
            }
            c.resume();
        }
        assertThat(peer.frames()).noneMatch(f -> f.type() == GOAWAY)
                .noneMatch(f -> f.type() == RST_STREAM && f.errorCode() == 0x7);
    }

    /** Streams past the concurrency limit are refused, and those refusals are the server's, not resets the client made. */
    @Test
    void refusedStreamsDoNotCountAsTheClientsResets() throws Exception {
        H2Peer peer = peer();
        for (int i = 0; i < 128; i++) {
            peer.send(get(1 + 2 * i, "/hang"));
        }
        for (int i = 128; i < 228; i++) {
            peer.send(get(1 + 2 * i, "/plaintext"));
        }
        assertThat(peer.read()).filteredOn(f -> f.type() == RST_STREAM && f.errorCode() == 0x7).hasSize(100);
        for (int i = 0; i < 128; i++) {
            peer.send(rst(1 + 2 * i, 0x8));
        }
        peer.send(get(1001, "/plaintext"));
        assertThat(peer.response(1001).body()).isEqualTo("Hello, World!");
        assertThat(peer.frames()).noneMatch(f -> f.type() == GOAWAY);
    }

    /**
     * Handlers of cancelled streams that never end are bounded apart from the client's concurrency
     * limit (128): past 512 of them new streams are refused, even with streams answered in between.
     */
    @Test
    void abandonedHandlersAreBoundedApartFromTheConcurrencyLimit() throws Exception {
        H2Peer peer = peer();
        int id = 1;
        for (int i = 0; i < 512; i++, id += 4) {
            peer.send(concat(get(id, "/plaintext"), get(id + 2, "/hang"), rst(id + 2, 0x8)));
            assertThat(peer.response(id).status()).as("request %d", i).isEqualTo("200");
        }
        peer.send(get(id, "/plaintext"));
        int refused = id;
        assertThat(peer.read()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == refused && f.errorCode() == 0x7);
    }

    @Test
    void aWindowUpdatePastTheMaximumIsAFlowControlError() {
        H2Peer peer = peer();
        peer.send(windowUpdate(0, Integer.MAX_VALUE));
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0x3);
    }

    @Test
    void aPingIsAnsweredWithTheSamePayload() {
        H2Peer peer = peer();
        peer.send(ping(0x0102030405060708L));
        assertThat(peer.read()).anyMatch(f -> f.type() == PING && f.has(ACK)
                && ByteBuffer.wrap(f.payload()).getLong() == 0x0102030405060708L);
    }

    @Test
    void aPingFloodEndsTheConnection() {
        H2Peer peer = peer();
        for (int i = 0; i < 2000; i++) {
            peer.send(ping(i));
        }
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0xb);
    }

    @Test
    void aContinuationFloodEndsTheConnection() {
        H2Peer peer = peer();
        peer.send(frame(HEADERS, 0, 1, block(":method", "GET")));
        for (int i = 0; i < 100; i++) {
            peer.send(frame(CONTINUATION, 0, 1, new byte[0]));
        }
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0xb);
    }

    @Test
    void headerFieldsPastTheListLimitAreAnswered431() throws Exception {
        H2Peer peer = new H2Peer(connection(ServerConfig.defaults().maxHeaderSize(4096))).start();
        peer.send(frame(HEADERS, END_HEADERS | END_STREAM, 1,
                block(":method", "GET", ":scheme", "http", ":path", "/plaintext", "x-big", "v".repeat(5000))));
        assertThat(peer.response(1).status()).isEqualTo("431");
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).status()).isEqualTo("200");
    }

    @Test
    void aRequestWhoseBodyStopsArrivingIsAnswered408() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults().headerTimeout(java.time.Duration.ofMillis(100)));
        H2Peer peer = new H2Peer(c).start();
        peer.send(post(1, "/echo"));
        peer.send(data(1, "part", false));
        long start = System.nanoTime();
        c.tick(start);
        c.tick(start + 200_000_000L);
        assertThat(peer.response(1).status()).isEqualTo("408");
        assertThat(peer.frames()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1);
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).status()).isEqualTo("200");
    }

    @Test
    void aConnectionIdleForTheIdleTimeoutGoesAway() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults().idleTimeout(java.time.Duration.ofMillis(200)));
        H2Peer peer = new H2Peer(c).start();
        peer.send(get(1, "/plaintext"));
        assertThat(peer.response(1).status()).isEqualTo("200");
        long start = System.nanoTime();
        c.tick(start);
        c.tick(start + 100_000_000L);
        assertThat(peer.read()).as("within the idle timeout").noneMatch(f -> f.type() == GOAWAY);
        c.tick(start + 250_000_000L);
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0);
    }

    /**
     * A body dribbled a byte at a time, each well within the header timeout of the last: the
     * request must still be whole within the header timeout of its start, as on HTTP/1.1.
     */
    @Test
    void aRequestBodyDribbledPastTheHeaderTimeoutIsAnswered408() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults().headerTimeout(java.time.Duration.ofMillis(100)));
        H2Peer peer = new H2Peer(c).start();
        long start = System.nanoTime();
        c.tick(start);
        peer.send(post(1, "/echo", "content-length", "1000"));
        for (int i = 1; i <= 10 && peer.response(1).status() == null; i++) {
            peer.send(data(1, "x", false));
            c.tick(start + i * 20_000_000L);
        }
        assertThat(peer.response(1).status()).isEqualTo("408");
        assertThat(peer.frames()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1);
        peer.send(data(1, "x", false));
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).status()).isEqualTo("200");
        assertThat(peer.frames()).noneMatch(f -> f.type() == GOAWAY);
    }

    /** A request still arriving when its answer has begun (held back by the peer's window) is reset at the header timeout. */
    @Test
    void aRequestStillArrivingAfterItsAnswerBeganIsResetAtTheHeaderTimeout() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults().headerTimeout(java.time.Duration.ofMillis(100)));
        H2Peer peer = new H2Peer(c);
        peer.send(concat(PREFACE, settings(0x4, 0)));
        long start = System.nanoTime();
        c.tick(start);
        peer.send(post(1, "/early", "content-length", "1000"));
        for (int i = 0; i < 50 && peer.response(1).status() == null; i++) {
            woken.tryAcquire(100, TimeUnit.MILLISECONDS);
            c.resume();
        }
        assertThat(peer.response(1).status()).as("answered before the body came").isEqualTo("200");
        for (int i = 1; i <= 10 && peer.read().stream().noneMatch(f -> f.type() == RST_STREAM); i++) {
            peer.send(data(1, "x", false));
            c.tick(start + i * 20_000_000L);
        }
        assertThat(peer.frames()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1 && f.errorCode() == 0x8);
        peer.send(windowUpdate(0, 100_000));
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).headers()).containsEntry(":status", "200");
    }

    @Test
    void aHeaderBlockThatNeverEndsEndsTheConnection() {
        Http2Connection c = connection(ServerConfig.defaults().headerTimeout(java.time.Duration.ofMillis(100)));
        H2Peer peer = new H2Peer(c).start();
        long start = System.nanoTime();
        c.tick(start);
        peer.send(frame(HEADERS, 0, 1, block(":method", "GET")));
        c.tick(start + 200_000_000L);
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0x1);
    }

    @Test
    void theHighestStreamIdStillWorksAndALowerOneAfterItIsAProtocolError() throws Exception {
        H2Peer peer = peer();
        peer.send(get(Integer.MAX_VALUE, "/plaintext"));
        assertThat(peer.response(Integer.MAX_VALUE).body()).isEqualTo("Hello, World!");
        peer.send(get(5, "/plaintext"));
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY);
    }

    @Test
    void concurrentResponsesInterleaveFrameByFrame() throws Exception {
        H2Peer peer = peer();
        peer.send(windowUpdate(0, 10_000_000));
        peer.send(concat(get(1, "/big"), get(3, "/big")));
        List<Integer> order = peer.read().stream().filter(f -> f.type() == DATA).map(H2Peer.Frame::stream).toList();
        assertThat(order).hasSizeGreaterThan(4);
        // round robin: neither stream sends two frames in a row while the other still has data
        for (int i = 0; i + 1 < order.size() - 1; i++) {
            assertThat(order.get(i)).as("frame %d of %s", i, order).isNotEqualTo(order.get(i + 1));
        }
    }

    @Test
    void aDrainSendsGoAwayWithTheLastStreamAndFinishesTheStreamsInFlight() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        peer.send(get(1, "/blocking"));
        c.drain();
        c.tick(System.nanoTime());
        H2Peer.Frame goAway = peer.read().stream().filter(f -> f.type() == GOAWAY).findFirst().orElseThrow();
        assertThat(goAway.int32(0)).as("last stream id").isEqualTo(1);
        assertThat(goAway.errorCode()).isZero();
        // a stream opened after the GOAWAY is not served
        peer.send(get(3, "/plaintext"));
        assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        c.resume();
        assertThat(peer.response(1).body()).isEqualTo("from a worker");
        assertThat(peer.response(3).headers()).isEmpty();
        assertThat(c.next()).isIn(Next.LINGER, Next.CLOSE);
    }

    /**
     * A strategy shedding load says closeAfterResponse just before it hands over the bytes it read
     * (ThreadPoolServer, its pool full): the stream those bytes open is served, and the GOAWAY names it.
     */
    @Test
    void closeAfterResponseServesTheStreamsOfTheInputBeingReceivedThenGoesAway() throws Exception {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        c.closeAfterResponse();
        peer.send(get(1, "/plaintext"));
        assertThat(peer.response(1).body()).isEqualTo("Hello, World!");
        H2Peer.Frame goAway = peer.frames().stream().filter(f -> f.type() == GOAWAY).findFirst().orElseThrow();
        assertThat(goAway.int32(0)).as("last stream id").isEqualTo(1);
        assertThat(goAway.errorCode()).isZero();
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).headers()).as("a stream opened after the GOAWAY").isEmpty();
    }

    @Test
    void closeAfterResponseWithNoInputGoesAwayAtTheNextTick() {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c).start();
        c.closeAfterResponse();
        c.tick(System.nanoTime());
        H2Peer.Frame goAway = peer.read().stream().filter(f -> f.type() == GOAWAY).findFirst().orElseThrow();
        assertThat(goAway.int32(0)).as("last stream id").isZero();
        assertThat(c.next()).isIn(Next.LINGER, Next.CLOSE);
    }

    @Test
    void aBadPrefaceIsAConnectionError() {
        Http2Connection c = connection(ServerConfig.defaults());
        H2Peer peer = new H2Peer(c);
        peer.send("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(peer.read()).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == 0x1);
        assertThat(c.next()).isIn(Next.LINGER, Next.CLOSE);
    }
}
