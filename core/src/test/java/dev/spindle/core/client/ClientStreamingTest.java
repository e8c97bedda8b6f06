// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Next;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Streamed response bodies on a {@link ClientConnection}, driven by hand: the request completes at
 * the head, the body reaches its reader at the reader's pace while the connection keeps what it
 * read and stops reading, the connection is freed only at the body's end, and a reader that gives
 * up, a server that goes away or one that stalls ends the body with a clear failure.
 */
class ClientStreamingTest {
    private static final long START = 1_000_000_000L;
    private static final ClientSettings SETTINGS = ClientSettings.defaults().responseTimeout(Duration.ofSeconds(5));
    /** More than the reader's window (64 KiB), so the connection must hold some back. */
    private static final int LARGE = 300_000;

    private long now = START;

    /** Drives a connection as a loop does: a reader's wakeup is noted, and the test thread resumes the connection. */
    private static class Driver implements ResponseStream.Driver {
        final AtomicBoolean woken = new AtomicBoolean();
        final AtomicInteger wakeups = new AtomicInteger();
        int ended;

        @Override
        public void wakeup() {
            wakeups.incrementAndGet();
            woken.set(true);
        }

        @Override
        public void ended(ResponseStream body) {
            ended++;
            body.end();
        }
    }

    /**
     * Reads {@code n} bytes of {@code in} (all, when negative) on a virtual thread, while this
     * thread, as the connection's loop, resumes the connection whenever the reader wakes it.
     */
    private static byte[] read(InputStream in, int n, Driver driver, ClientConnection c) throws IOException {
        CompletableFuture<byte[]> got = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                got.complete(n < 0 ? in.readAllBytes() : in.readNBytes(n));
            } catch (IOException | RuntimeException e) {
                got.completeExceptionally(e);
            }
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!got.isDone()) {
            if (driver.woken.getAndSet(false)) {
                c.resume();
            } else {
                LockSupport.parkNanos(100_000);
            }
            assertThat(System.nanoTime() - deadline).as("the reader finished").isNegative();
        }
        try {
            return got.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    private ClientConnection open(Driver driver) {
        ClientConnection c = new ClientConnection("example.test:80", SETTINGS, () -> now);
        c.driver(driver);
        assertThat(c.connected()).isEqualTo(Next.READ);
        return c;
    }

    private static void writeAll(ClientConnection c) {
        for (ByteBuffer out = c.outbound(); out.hasRemaining(); out = c.outbound()) {
            int n = out.remaining();
            out.position(out.limit());
            c.written(n);
        }
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    private static byte[] concat(String head, byte[] body) {
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    private static byte[] chunked(byte[] body, int chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += chunk) {
            int n = Math.min(chunk, body.length - i);
            out.writeBytes((Integer.toHexString(n) + ";ext=1\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, i, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\nTrailer-Field: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private CompletableFuture<ClientResponse> stream(ClientConnection c, String target) {
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get(target).streamResponse());
        writeAll(c);
        return f;
    }

    @Test
    void theRequestCompletesAtTheHeadAndTheBodyFlowsAtTheReadersPace() throws IOException {
        Driver driver = new Driver();
        ClientConnection c = open(driver);
        byte[] body = pattern(LARGE);
        CompletableFuture<ClientResponse> f = stream(c, "/large");
        Next next = c.received(ByteBuffer.wrap(concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\nX-A: 1\r\n\r\n", body)));
        assertThat(f).as("complete at the head").isCompleted();
        ClientResponse r = f.join();
        assertThat(r.isStreamed()).isTrue();
        assertThat(r.header("x-a")).isEqualTo("1");
        assertThatThrownBy(r::bodyText).isInstanceOf(IllegalStateException.class).hasMessageContaining("streamed");
        assertThat(next.reads()).as("the reader's window is full: the socket is not read").isFalse();
        assertThat(c.isIdle()).isFalse();
        try (InputStream in = r.bodyStream()) {
            assertThat(read(in, -1, driver, c)).isEqualTo(body);
        }
        assertThat(driver.ended).as("the connection was freed once, at the body's end").isEqualTo(1);
        assertThat(c.isIdle()).isTrue();
        assertThat(c.next()).isEqualTo(Next.READ);
    }

    /** Every framing, each fed in small pieces, some arriving while the reader is behind. */
    @Test
    void chunkedAndCloseDelimitedBodiesStreamWhole() throws IOException {
        byte[] body = pattern(LARGE);
        List<byte[]> responses = List.of(
                concat("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunked(body, 10_000)),
                concat("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", body));
        for (byte[] raw : responses) {
            Driver driver = new Driver();
            ClientConnection c = open(driver);
            CompletableFuture<ClientResponse> f = stream(c, "/x");
            for (int at = 0; at < raw.length; at += 7_000) {
                c.received(ByteBuffer.wrap(raw, at, Math.min(7_000, raw.length - at)));
            }
            c.endOfInput();
            try (InputStream in = f.join().bodyStream()) {
                assertThat(read(in, -1, driver, c)).isEqualTo(body);
            }
        }
    }

    /** A publisher reader asks for chunks; nothing more is read from the socket than it has room for. */
    @Test
    void aPublisherGetsTheBodyAsFarAsItsDemandGoes() {
        Driver driver = new Driver();
        ClientConnection c = open(driver);
        byte[] body = pattern(LARGE);
        CompletableFuture<ClientResponse> f = stream(c, "/large");
        c.received(ByteBuffer.wrap(concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n", body)));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        boolean[] complete = {false};
        Flow.Subscription[] subscription = {null};
        f.join().bodyPublisher().subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription[0] = s;
            }

            @Override
            public void onNext(ByteBuffer item) {
                got.write(item.array(), item.position(), item.remaining());
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onComplete() {
                complete[0] = true;
            }
        });
        int rounds = 0;
        while (!complete[0] && rounds++ < 100) {
            subscription[0].request(1);
            if (driver.woken.getAndSet(false)) {
                c.resume();
            }
        }
        assertThat(complete[0]).isTrue();
        assertThat(got.toByteArray()).isEqualTo(body);
        assertThat(driver.ended).isEqualTo(1);
        assertThat(c.isIdle()).isTrue();
    }

    @Test
    void aReaderThatStopsEarlyEndsTheConnection() throws IOException {
        Driver driver = new Driver();
        ClientConnection c = open(driver);
        CompletableFuture<ClientResponse> f = stream(c, "/large");
        c.received(ByteBuffer.wrap(concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n", pattern(100_000))));
        InputStream in = f.join().bodyStream();
        assertThat(in.readNBytes(1000)).hasSize(1000);
        in.close();
        c.resume();
        assertThat(c.isClosed()).isTrue();
        assertThat(c.next()).isEqualTo(Next.CLOSE);
        assertThat(driver.ended).as("not freed for another request").isZero();
    }

    @Test
    void aServerGoneMidBodyFailsTheReadWithTheReason() throws IOException {
        Driver driver = new Driver();
        ClientConnection c = open(driver);
        CompletableFuture<ClientResponse> f = stream(c, "/large");
        c.received(ByteBuffer.wrap(concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n", pattern(1000))));
        c.endOfInput();
        InputStream in = f.join().bodyStream();
        assertThat(in.readNBytes(1000)).hasSize(1000);
        assertThatThrownBy(in::read).isInstanceOf(IOException.class)
                .hasCauseInstanceOf(ClientException.class)
                .satisfies(e -> assertThat(((ClientException) e.getCause()).reason()).isEqualTo(Reason.CONNECTION_CLOSED));
        assertThat(c.isClosed()).isTrue();
    }

    /** The response timeout bounds each wait for more of the body while the reader has room, never the reader's own pace. */
    @Test
    void aStalledBodyTimesOutButASlowReaderDoesNot() throws IOException {
        Driver driver = new Driver();
        ClientConnection c = open(driver);
        CompletableFuture<ClientResponse> f = stream(c, "/large");
        c.received(ByteBuffer.wrap(concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n", pattern(LARGE - 10))));
        // the reader is behind (its window full): however long it takes, nothing times out
        now += Duration.ofMinutes(5).toNanos();
        assertThat(c.nanosToTick(now)).isEqualTo(Long.MAX_VALUE);
        c.tick(now);
        assertThat(c.isClosed()).isFalse();
        InputStream in = f.join().bodyStream();
        assertThat(read(in, LARGE - 10, driver, c)).hasSize(LARGE - 10);
        // now it waits for the last 10 bytes, which never come
        assertThat(c.nanosToTick(now)).isEqualTo(SETTINGS.responseTimeout().toNanos());
        now += SETTINGS.responseTimeout().toNanos();
        c.tick(now);
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(in::read).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(((ClientException) e.getCause()).reason()).isEqualTo(Reason.RESPONSE_TIMEOUT));
    }

    /** Pipelined behind a streamed response, the next one is parsed once the streamed body was read. */
    @Test
    void aResponsePipelinedBehindAStreamedOneCompletesAfterIt() throws IOException {
        Driver driver = new Driver();
        ClientConnection c = new ClientConnection("example.test:80", SETTINGS.maxPipelined(2), () -> now);
        c.driver(driver);
        c.connected();
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/large").streamResponse());
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/small"));
        writeAll(c);
        byte[] body = pattern(LARGE);
        byte[] both = concat("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n", concat("", body));
        byte[] next = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsmall".getBytes(StandardCharsets.ISO_8859_1);
        List<ByteBuffer> pieces = new ArrayList<>(List.of(ByteBuffer.wrap(both), ByteBuffer.wrap(next)));
        for (ByteBuffer piece : pieces) {
            c.received(piece);
        }
        assertThat(second).as("behind the body not yet read").isNotDone();
        try (InputStream in = first.join().bodyStream()) {
            assertThat(read(in, -1, driver, c)).isEqualTo(body);
        }
        assertThat(second.join().bodyText()).isEqualTo("small");
    }

    /** A source the test feeds by hand: it records the demand, and gives buffers when told. */
    private static final class HandSource implements Flow.Publisher<ByteBuffer>, Flow.Subscription {
        Flow.Subscriber<? super ByteBuffer> subscriber;
        long demand;
        boolean cancelled;
        int subscriptions;

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> s) {
            subscriptions++;
            subscriber = s;
            s.onSubscribe(this);
        }

        @Override
        public void request(long n) {
            demand += n;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        void give(String text) {
            assertThat(demand).as("asked for before it is given").isPositive();
            demand--;
            subscriber.onNext(ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1)));
        }
    }

    private static ClientException failureOf(CompletableFuture<ClientResponse> f) {
        assertThat(f).isCompletedExceptionally();
        return (ClientException) f.handle((r, t) -> t).join();
    }

    @Test
    void aBodyOfUnknownLengthIsSentChunkedAsItsSourceGivesItAndNothingGoesBehindItUntilItEnds() {
        Driver driver = new Driver();
        ClientConnection c = new ClientConnection("example.test:80", SETTINGS.maxPipelined(4), () -> now);
        c.driver(driver);
        c.connected();
        HandSource source = new HandSource();
        CompletableFuture<ClientResponse> upload = c.send(new ClientRequest("POST", "/up").body(source, -1));
        CompletableFuture<ClientResponse> after = c.send(ClientRequest.get("/after"));
        assertThat(ClientConnectionTest.drain(c)).isEqualTo("POST /up HTTP/1.1\r\nHost: example.test:80\r\nTransfer-Encoding: chunked\r\n\r\n");
        assertThat(source.demand).as("one buffer asked for").isEqualTo(1);
        source.give("hello");
        c.resume();
        assertThat(ClientConnectionTest.drain(c)).isEqualTo("5\r\nhello\r\n");
        source.give(" world, and more");
        c.resume();
        assertThat(ClientConnectionTest.drain(c)).isEqualTo("10\r\n world, and more\r\n");
        source.subscriber.onComplete();
        c.resume();
        assertThat(ClientConnectionTest.drain(c)).as("the last chunk; a POST has nothing pipelined behind it").isEqualTo("0\r\n\r\n");
        c.received(ByteBuffer.wrap("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(upload.join().status()).isEqualTo(201);
        assertThat(ClientConnectionTest.drain(c)).isEqualTo("GET /after HTTP/1.1\r\nHost: example.test:80\r\n\r\n");
        c.received(ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(after.join().bodyText()).isEqualTo("x");
        assertThat(source.subscriptions).isEqualTo(1);
        assertThat(driver.wakeups.get()).as("each buffer and the end woke the connection").isGreaterThanOrEqualTo(3);
    }

    @Test
    void anIdempotentRequestWithAStreamedBodyHasNothingPipelinedBehindItUntilTheBodyEnds() {
        ClientConnection c = new ClientConnection("example.test:80", SETTINGS.maxPipelined(4), () -> now);
        c.driver(new Driver());
        c.connected();
        HandSource source = new HandSource();
        c.send(new ClientRequest("PUT", "/up").body(source, 2));
        c.send(ClientRequest.get("/after"));
        assertThat(ClientConnectionTest.drain(c)).endsWith("Content-Length: 2\r\n\r\n").doesNotContain("/after");
        source.give("ab");
        source.subscriber.onComplete();
        c.resume();
        assertThat(ClientConnectionTest.drain(c)).isEqualTo("abGET /after HTTP/1.1\r\nHost: example.test:80\r\n\r\n");
    }

    @Test
    void aKnownLengthIsSentAsIsAndTheSourceIsAskedForMoreOnlyWhileTheOutputHasRoom() {
        ClientConnection c = open(new Driver());
        HandSource source = new HandSource();
        c.send(new ClientRequest("PUT", "/up").body(source, 200_000));
        assertThat(ClientConnectionTest.drain(c)).endsWith("Content-Length: 200000\r\n\r\n");
        String big = "x".repeat(100_000);
        source.give(big);
        c.resume();
        assertThat(source.demand).as("100,000 bytes wait to be written: no more is asked for").isZero();
        assertThat(ClientConnectionTest.drain(c)).isEqualTo(big);
        assertThat(source.demand).as("written: the next buffer is asked for").isEqualTo(1);
        source.give(big);
        source.subscriber.onComplete();
        c.resume();
        assertThat(ClientConnectionTest.drain(c)).isEqualTo(big);
        assertThat(c.isClosed()).isFalse();
    }

    @Test
    void aSourceThatFailsOrGivesAnotherLengthFailsTheRequestAndClosesTheConnection() {
        for (String how : List.of("fails", "gives more", "gives less")) {
            ClientConnection c = open(new Driver());
            HandSource source = new HandSource();
            CompletableFuture<ClientResponse> f = c.send(new ClientRequest("POST", "/up").body(source, 5));
            ClientConnectionTest.drain(c);
            switch (how) {
                case "fails" -> source.subscriber.onError(new IOException("disk gone"));
                case "gives more" -> source.give("123456");
                default -> {
                    source.give("123");
                    source.subscriber.onComplete();
                }
            }
            c.resume();
            ClientException e = failureOf(f);
            assertThat(e.reason()).as(how).isEqualTo(Reason.REQUEST_BODY_FAILED);
            assertThat(e.getMessage()).as(how).containsAnyOf("disk gone", "more than the 5 bytes", "3 of the 5 bytes");
            assertThat(c.isClosed()).as(how).isTrue();
            assertThat(source.cancelled || how.equals("fails")).as(how + ": the source is cancelled").isTrue();
        }
    }

    /** While a body goes out, the response timeout waits: it runs from the body's end. */
    @Test
    void theResponseTimeoutRunsFromTheEndOfAStreamedBody() {
        ClientConnection c = open(new Driver());
        HandSource source = new HandSource();
        CompletableFuture<ClientResponse> f = c.send(new ClientRequest("POST", "/up").body(source, -1));
        ClientConnectionTest.drain(c);
        long step = SETTINGS.responseTimeout().toNanos() / 2;
        for (int i = 0; i < 5; i++) {
            now += step;
            c.tick(now);
            source.give("part");
            c.resume();
            ClientConnectionTest.drain(c);
        }
        assertThat(f).as("a slow but steady body does not time out").isNotDone();
        source.subscriber.onComplete();
        c.resume();
        ClientConnectionTest.drain(c);
        now += SETTINGS.responseTimeout().toNanos();
        c.tick(now);
        assertThat(failureOf(f).reason()).isEqualTo(Reason.RESPONSE_TIMEOUT);
    }
}
