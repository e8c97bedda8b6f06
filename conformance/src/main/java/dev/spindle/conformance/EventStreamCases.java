// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.core.EventStream;
import dev.spindle.core.Router;
import dev.spindle.core.ServerSentEvent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Server-sent events ({@code Response.eventStream}) on a server of the suite's strategy, over
 * HTTP/1.1 and HTTP/2, read by the JDK's {@code HttpClient} line by line as they arrive: each event
 * reaches the client before the next is sent, a reconnecting client's {@code Last-Event-ID} reaches
 * the handler, an idle stream carries heartbeat comments, a client that goes away closes its
 * stream (at once when it closes its connection), and one that stops reading meets the overflow
 * policy with the server's memory bounded. Run by {@link HttpConformanceSuite} against every
 * server; tagged, to run alone ({@code -Dgroups=sse}).
 */
@org.junit.jupiter.api.Tag("sse")
@org.junit.jupiter.api.Timeout(value = 30, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class EventStreamCases extends SuiteSection {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** The streams the /sse routes opened, in order, for the cases to send to. */
    private final BlockingQueue<EventStream> opened = new LinkedBlockingQueue<>();

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected EventStreamCases(SuiteTarget suite) {
        super(suite);
    }

    @Override
    protected Router router() {
        EventStream.Options quiet = new EventStream.Options(16, EventStream.Overflow.CLOSE, Duration.ZERO);
        return Router.builder()
                .get("/sse/live", (req, res) -> res.eventStream(quiet, opened::add))
                .get("/sse/resume", (req, res) -> {
                    String last = req.header("Last-Event-ID");
                    int from = last == null ? 0 : Integer.parseInt(last) + 1;
                    res.eventStream(stream -> {
                        for (int id = from; id < from + 2; id++) {
                            stream.send(ServerSentEvent.data("event " + id).id(Integer.toString(id)));
                        }
                        stream.close();
                    });
                })
                .get("/sse/heartbeat", (req, res) -> res.eventStream(
                        new EventStream.Options(16, EventStream.Overflow.CLOSE, Duration.ofMillis(100)), opened::add))
                .get("/sse/small-queue", (req, res) -> res.eventStream(
                        new EventStream.Options(4, EventStream.Overflow.CLOSE, Duration.ZERO), opened::add))
                .build();
    }

    private HttpClient client(HttpClient.Version version) {
        if (version == HttpClient.Version.HTTP_2) {
            Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        }
        HttpClient.Builder builder = HttpClient.newBuilder().version(version).connectTimeout(TIMEOUT);
        return (suite.overTls() ? builder.sslContext(suite.clientTls()) : builder).build();
    }

    private HttpResponse<Stream<String>> open(HttpClient client, String path, String lastEventId) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create((suite.overTls() ? "https" : "http") + "://"
                + suite.host() + ":" + server().port() + path)).header("Accept", "text/event-stream");
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<Stream<String>> r = client.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(r.headers().firstValue("cache-control")).hasValue("no-cache");
        return r;
    }

    /** The lines of one event (up to the blank line that ends it), or null when the body ended first. */
    private static List<String> nextEvent(Iterator<String> lines) {
        List<String> event = new ArrayList<>();
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.isEmpty()) {
                return event;
            }
            event.add(line);
        }
        return event.isEmpty() ? null : event;
    }

    private EventStream awaitOpened() throws InterruptedException {
        EventStream stream = opened.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(stream).as("the route opened a stream").isNotNull();
        return stream;
    }

    /** Each event reaches the client before the next is sent (a flush per event), and close() ends the body. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(HttpClient.Version.class)
    void eachEventReachesTheClientBeforeTheNextIsSent(HttpClient.Version version) throws Exception {
        opened.clear();
        try (HttpClient client = client(version)) {
            HttpResponse<Stream<String>> r = open(client, "/sse/live", null);
            assertThat(r.version()).isEqualTo(version);
            Iterator<String> lines = r.body().iterator();
            EventStream stream = awaitOpened();
            CompletionStage<Void> first = stream.send(ServerSentEvent.data("first\nline two").event("note"));
            assertThat(nextEvent(lines)).containsExactly("event: note", "data: first", "data: line two");
            first.toCompletableFuture().get(5, TimeUnit.SECONDS);
            stream.send(ServerSentEvent.data("second").id("2"));
            assertThat(nextEvent(lines)).containsExactly("data: second", "id: 2");
            stream.close();
            assertThat(nextEvent(lines)).as("the body ended").isNull();
            stream.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(stream.isOpen()).isFalse();
            assertThat(stream.send(ServerSentEvent.data("late")).toCompletableFuture()).isCompletedExceptionally();
        }
    }

    /** A reconnecting client's Last-Event-ID reaches the handler, which resumes after it. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(HttpClient.Version.class)
    void aReconnectingClientResumesAfterItsLastEventId(HttpClient.Version version) throws Exception {
        try (HttpClient client = client(version)) {
            Iterator<String> fresh = open(client, "/sse/resume", null).body().iterator();
            assertThat(nextEvent(fresh)).containsExactly("data: event 0", "id: 0");
            assertThat(nextEvent(fresh)).containsExactly("data: event 1", "id: 1");
            assertThat(nextEvent(fresh)).isNull();
            Iterator<String> resumed = open(client, "/sse/resume", "1").body().iterator();
            assertThat(nextEvent(resumed)).containsExactly("data: event 2", "id: 2");
            assertThat(nextEvent(resumed)).containsExactly("data: event 3", "id: 3");
            assertThat(nextEvent(resumed)).isNull();
        }
    }

    /** An idle stream carries comment lines; once the client has gone, they fail and the stream closes. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(HttpClient.Version.class)
    void heartbeatsKeepAnIdleStreamAndNoticeAClientThatLeft(HttpClient.Version version) throws Exception {
        opened.clear();
        EventStream stream;
        try (HttpClient client = client(version)) {
            HttpResponse<Stream<String>> r = open(client, "/sse/heartbeat", null);
            Iterator<String> lines = r.body().iterator();
            stream = awaitOpened();
            assertThat(lines.next()).as("a heartbeat, no event sent").isEqualTo(":");
            assertThat(lines.next()).isEmpty();
            r.body().close();
        }
        stream.closed().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(stream.isOpen()).isFalse();
    }

    /**
     * A client that closes its connection ends its stream at once, with no heartbeat to find out
     * (the server reads while it sends, as a browser's {@code EventSource} closes to stop), so a
     * server does not hold the streams of clients that left until its next event to them.
     */
    @Test
    void aClientThatClosesItsConnectionEndsItsStreamAtOnce() throws Exception {
        opened.clear();
        EventStream stream;
        try (RawConnection c = suite.connect(server().port())) {
            c.send("GET /sse/live HTTP/1.1\r\nHost: x\r\n\r\n");
            stream = awaitOpened();
            stream.send(ServerSentEvent.data("seen"));
            byte[] head = new byte[16];
            assertThat(c.input().readNBytes(head, 0, head.length)).as("the response began").isEqualTo(head.length);
        }
        stream.closed().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(stream.isOpen()).isFalse();
        assertThat(stream.send(ServerSentEvent.data("late")).toCompletableFuture()).isCompletedExceptionally();
    }

    /**
     * A client that stops reading: sends pile up in the queue of four until one does not fit; the
     * overflow policy closes the stream and fails the send, so the server never holds more.
     */
    @Test
    void aClientThatStopsReadingMeetsTheOverflowPolicy() throws Exception {
        opened.clear();
        try (RawConnection c = suite.connect(server().port())) {
            c.send("GET /sse/small-queue HTTP/1.1\r\nHost: x\r\n\r\n");
            overflow(awaitOpened());
        }
    }

    /** The same over HTTP/2, where the client stops returning flow-control window. */
    @Test
    void anHttp2ClientThatStopsReadingMeetsTheOverflowPolicy() throws Exception {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        opened.clear();
        try (H2Connection c = suite.openH2(server().port())) {
            c.replenishWindows(false).handshake();
            c.request(1, "GET", "/sse/small-queue", true);
            overflow(awaitOpened());
        }
    }

    private static void overflow(EventStream stream) throws Exception {
        String kilobytes = "x".repeat(16 * 1024);
        CompletionStage<Void> refused = null;
        // the socket buffers and the connection's own high-water mark take some; then the queue fills
        for (int i = 0; i < 100_000 && refused == null; i++) {
            CompletionStage<Void> sent = stream.send(ServerSentEvent.data(kilobytes));
            if (sent.toCompletableFuture().isCompletedExceptionally()) {
                refused = sent;
            }
        }
        assertThat(refused).as("a send the queue could not take").isNotNull();
        CompletableFuture<Void> failed = refused.toCompletableFuture();
        assertThat(failed.handle((v, e) -> e).get()).hasMessageContaining("reads more slowly");
        stream.closed().toCompletableFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(stream.isOpen()).isFalse();
    }
}
