// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.feed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An event stream on the sans-I/O HTTP/1.1 connection, driven as a strategy drives it: no thread
 * holds an open stream (what is sent is taken by the connection at its wakeup), the heartbeat is
 * the connection's own deadline, the client's end of input ends the stream, and a draining server
 * ends it cleanly.
 */
@Timeout(20)
class EventStreamConnectionTest {
    private static final String GET = "GET /events HTTP/1.1\r\nHost: test\r\n\r\n";

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);
    private final BlockingQueue<EventStream> opened = new LinkedBlockingQueue<>();
    private final AtomicInteger threadsInOpened = new AtomicInteger();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private HttpConnection open(Duration heartbeat) throws InterruptedException {
        EventStream.Options options = new EventStream.Options(8, EventStream.Overflow.CLOSE, heartbeat);
        Router router = Router.builder()
                .get("/events", (req, res) -> res.eventStream(options, stream -> {
                    threadsInOpened.incrementAndGet();
                    opened.add(stream);
                }))
                .build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, GET);
        String head = text(drain(c));
        assertThat(head).startsWith("http/1.1 200 ").contains("content-type: text/event-stream", "transfer-encoding: chunked");
        return c;
    }

    private EventStream stream() throws InterruptedException {
        EventStream s = opened.poll(5, TimeUnit.SECONDS);
        assertThat(s).as("opened ran").isNotNull();
        return s;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1).toLowerCase(java.util.Locale.ROOT);
    }

    /** Waits for the connection's wakeup and resumes it, as a strategy does. */
    private String resumed(HttpConnection c) throws InterruptedException {
        assertThat(wakeups.tryAcquire(5, TimeUnit.SECONDS)).as("the send woke the connection").isTrue();
        c.resume();
        return text(drain(c));
    }

    @Test
    void eventsAreTakenAtTheWakeupAndTheStreamKeepsReadingForItsEnd() throws Exception {
        HttpConnection c = open(Duration.ZERO);
        EventStream s = stream();
        assertThat(c.state()).as("the client may send (its close) while events go out").isEqualTo(Connection.State.DUPLEX);
        assertThat(c.next()).isEqualTo(Next.READ);
        CompletableFuture<Void> first = s.send(ServerSentEvent.data("one")).toCompletableFuture();
        assertThat(resumed(c)).isEqualTo("000b\r\ndata: one\n\n\r\n");
        assertThat(first).isCompleted();
        s.send(ServerSentEvent.data("two").id("2"));
        assertThat(resumed(c)).isEqualTo("0011\r\ndata: two\nid: 2\n\n\r\n");
        assertThat(c.next()).isEqualTo(Next.READ);
        long now = System.nanoTime();
        c.tick(now);
        assertThat(c.nanosToTick(now)).as("no heartbeat: the next tick lets the quiet stream's buffers go")
                .isBetween(TimeUnit.SECONDS.toNanos(4), TimeUnit.SECONDS.toNanos(5));
        long later = now + TimeUnit.SECONDS.toNanos(6);
        c.tick(later);
        assertThat(c.bufferCapacity()).as("input array let go").isZero();
        assertThat(c.outputCapacity()).as("output array let go").isZero();
        assertThat(c.nanosToTick(later)).as("then nothing to tick for soon").isGreaterThan(TimeUnit.SECONDS.toNanos(5));
        s.send(ServerSentEvent.data("three"));
        assertThat(resumed(c)).as("an event after the buffers went").isEqualTo("000d\r\ndata: three\n\n\r\n");

        assertThat(c.endOfInput()).as("the client closed: the stream ends with its connection").isEqualTo(Next.CLOSE);
        s.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(s.isOpen()).isFalse();
        assertThat(s.send(ServerSentEvent.data("late")).toCompletableFuture()).isCompletedExceptionally();
        assertThat(threadsInOpened).hasValue(1);
    }

    @Test
    void aStreamOnAConnectionThatClosesAfterItStillSeesTheClientsClose() throws Exception {
        Router router = Router.builder().get("/events", (req, res) -> res.eventStream(opened::add)).build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, "GET /events HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        assertThat(text(drain(c))).startsWith("http/1.1 200 ").contains("connection: close");
        EventStream s = stream();
        assertThat(c.state()).as("events still go out at any time").isEqualTo(Connection.State.DUPLEX);
        assertThat(c.next()).as("reading, for the client's close").isEqualTo(Next.READ);
        s.send(ServerSentEvent.data("one"));
        assertThat(resumed(c)).isEqualTo("000b\r\ndata: one\n\n\r\n");
        assertThat(c.endOfInput()).isEqualTo(Next.CLOSE);
        s.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void closeEndsTheBodyAndTheConnectionServesTheNextRequest() throws Exception {
        HttpConnection c = open(Duration.ZERO);
        EventStream s = stream();
        s.send(ServerSentEvent.data("last"));
        s.close();
        assertThat(resumed(c)).isEqualTo("000c\r\ndata: last\n\n\r\n0\r\n\r\n");
        s.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
        feed(c, GET);
        assertThat(text(drain(c))).startsWith("http/1.1 200 ");
        stream().close();
    }

    @Test
    void theHeartbeatIsTheConnectionsOwnDeadline() throws Exception {
        HttpConnection c = open(Duration.ofMillis(200));
        stream();
        long now = System.nanoTime();
        long nanos = c.nanosToTick(now);
        assertThat(nanos).as("the next tick is the heartbeat's").isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        c.tick(now);
        assertThat(drain(c)).as("not due yet").isEmpty();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos) + 20);
        c.tick(System.nanoTime());
        assertThat(text(drain(c))).isEqualTo("0003\r\n:\n\n\r\n");
        assertThat(c.nanosToTick(System.nanoTime())).as("the next heartbeat")
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aDrainingServerEndsTheStreamOnceItsEventsWent() throws Exception {
        HttpConnection c = open(Duration.ZERO);
        EventStream s = stream();
        s.send(ServerSentEvent.data("bye"));
        c.drain();
        c.tick(System.nanoTime());
        assertThat(text(drain(c))).isEqualTo("000b\r\ndata: bye\n\n\r\n0\r\n\r\n");
        s.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void anOverflowEndsTheConnectionWhileTheClientHoldsItsOutputFull() throws Exception {
        HttpConnection c = open(Duration.ZERO);
        EventStream s = stream();
        String big = "x".repeat(64 * 1024);
        CompletableFuture<Void> refused = null;
        for (int i = 0; i < 100 && refused == null; i++) {
            CompletableFuture<Void> sent = s.send(ServerSentEvent.data(big)).toCompletableFuture();
            if (sent.isCompletedExceptionally()) {
                refused = sent;
            }
            if (wakeups.tryAcquire()) {
                c.resume();
            }
        }
        assertThat(refused).as("the eight-event queue overflowed").isNotNull();
        assertThat(refused.handle((v, e) -> e).get().getMessage()).contains("reads more slowly");
        s.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
        while (wakeups.tryAcquire()) {
            c.resume();
        }
        assertThat(c.resume()).as("the connection ends without the client reading").isEqualTo(Next.CLOSE);
    }

    @Test
    void aStreamThatIsNeverSentIsClosed() throws Exception {
        Router router = Router.builder()
                .get("/events", (req, res) -> res.eventStream(opened::add))
                .build();
        HttpConnection c = new HttpConnection(router, ServerConfig.defaults(), executor, wakeups::release);
        feed(c, "HEAD /events HTTP/1.1\r\nHost: test\r\n\r\n");
        assertThat(text(drain(c))).startsWith("http/1.1 200 ");
        assertThat(opened.poll(200, TimeUnit.MILLISECONDS)).as("opened runs only for a body that is sent").isNull();
    }
}
