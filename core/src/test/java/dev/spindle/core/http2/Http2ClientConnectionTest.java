// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.ACK;
import static dev.spindle.core.http2.H2Peer.CONTINUATION;
import static dev.spindle.core.http2.H2Peer.DATA;
import static dev.spindle.core.http2.H2Peer.END_HEADERS;
import static dev.spindle.core.http2.H2Peer.END_STREAM;
import static dev.spindle.core.http2.H2Peer.GOAWAY;
import static dev.spindle.core.http2.H2Peer.HEADERS;
import static dev.spindle.core.http2.H2Peer.PING;
import static dev.spindle.core.http2.H2Peer.PREFACE;
import static dev.spindle.core.http2.H2Peer.PUSH_PROMISE;
import static dev.spindle.core.http2.H2Peer.RST_STREAM;
import static dev.spindle.core.http2.H2Peer.SETTINGS;
import static dev.spindle.core.http2.H2Peer.WINDOW_UPDATE;
import static dev.spindle.core.http2.H2Peer.block;
import static dev.spindle.core.http2.H2Peer.concat;
import static dev.spindle.core.http2.H2Peer.frame;
import static dev.spindle.core.http2.H2Peer.int32;
import static dev.spindle.core.http2.H2Peer.settings;
import static dev.spindle.core.http2.H2Peer.windowUpdate;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.client.ClientRequest;
import dev.spindle.core.client.ClientSettings;
import dev.spindle.core.client.Http2ClientConnection;
import dev.spindle.core.spi.Next;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Spindle's HTTP/2 client connection against a server played frame by frame: what it sends for a
 * request, how it keeps the server's limits (concurrent streams, windows, their changes), what it
 * makes of informational heads, CONTINUATION and trailers, and how it fails what it must.
 */
class Http2ClientConnectionTest {
    private long now = 1_000_000_000L;
    private Http2ClientConnection c;
    private H2Peer server;

    @BeforeEach
    void open() {
        c = new Http2ClientConnection("example.test:80", false, ClientSettings.defaults().idleTimeout(Duration.ofSeconds(5)), () -> now);
        server = new H2Peer(c);
    }

    /** Connects, checks the preface, and plays the server's SETTINGS. */
    private void connect(int... settings) {
        c.connected();
        ByteBuffer out = c.outbound();
        byte[] preface = new byte[PREFACE.length];
        out.get(out.position(), preface);
        assertThat(preface).isEqualTo(PREFACE);
        c.written(PREFACE.length);
        List<H2Peer.Frame> opening = server.read();
        assertThat(opening.getFirst().type()).as("the client's SETTINGS first").isEqualTo(SETTINGS);
        server.send(settings(settings));
        assertThat(server.read()).anyMatch(f -> f.type() == SETTINGS && f.has(ACK));
    }

    private static byte[] headers(int stream, boolean endStream, String... nameValues) {
        return frame(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), stream, block(nameValues));
    }

    private static byte[] data(int stream, byte[] bytes, boolean endStream) {
        return frame(DATA, endStream ? END_STREAM : 0, stream, bytes);
    }

    private List<H2Peer.Frame> sent(int type) {
        server.read();
        return server.frames().stream().filter(f -> f.type() == type).toList();
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            return (ClientException) e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("completed: " + f.join());
    }

    @Test
    void aRequestIsAStreamWithItsPseudoHeaders() throws Exception {
        connect();
        CompletableFuture<ClientResponse> f = c.send(new ClientRequest("GET", "/items?x=1").header("X-Trace", "t1").header("Host", "api.test"));
        server.read();
        Map<String, String> fields = server.response(1).headers();
        assertThat(fields).containsEntry(":method", "GET").containsEntry(":scheme", "http").containsEntry(":authority", "api.test")
                .containsEntry(":path", "/items?x=1").containsEntry("x-trace", "t1").doesNotContainKey("host");
        assertThat(sent(HEADERS).getFirst().has(END_STREAM)).as("no body").isTrue();
        server.send(concat(headers(1, false, ":status", "200", "content-length", "2"), data(1, "ok".getBytes(StandardCharsets.US_ASCII), true)));
        ClientResponse r = f.get();
        assertThat(r.version()).isEqualTo("HTTP/2");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("ok");
        assertThat(r.header("Content-Length")).isEqualTo("2");
        assertThat(c.isIdle()).isTrue();
        assertThat(sent(RST_STREAM)).as("a stream both sides ended needs no reset").isEmpty();
    }

    @Test
    void theServersLimitOnStreamsHoldsRequestsBack() throws Exception {
        connect(0x3, 1);
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/2"));
        assertThat(sent(HEADERS)).extracting(H2Peer.Frame::stream).containsExactly(1);
        assertThat(c.capacity()).isEqualTo(1);
        server.send(headers(1, true, ":status", "204"));
        assertThat(first.get().status()).isEqualTo(204);
        assertThat(sent(HEADERS)).extracting(H2Peer.Frame::stream).containsExactly(1, 3);
        server.send(headers(3, true, ":status", "200"));
        assertThat(second.get().status()).isEqualTo(200);
    }

    @Test
    void aBodyGoesOutAsTheWindowsAllowAndASettingsChangeMovesThem() throws Exception {
        connect(0x4, 10);
        byte[] body = new byte[25];
        Arrays.fill(body, (byte) 'b');
        c.send(new ClientRequest("POST", "/upload").body(body));
        assertThat(sent(DATA)).extracting(fr -> fr.payload().length).containsExactly(10);
        server.send(windowUpdate(1, 5));
        assertThat(sent(DATA)).extracting(fr -> fr.payload().length).containsExactly(10, 5);
        // the initial window grows by 20: the open stream's window with it (RFC 9113 6.9.2)
        server.send(settings(0x4, 30));
        List<H2Peer.Frame> data = sent(DATA);
        assertThat(data).extracting(fr -> fr.payload().length).containsExactly(10, 5, 10);
        assertThat(data.getLast().has(END_STREAM)).isTrue();
        assertThat(sent(HEADERS).getFirst().has(END_STREAM)).isFalse();
    }

    @Test
    void informationalHeadsAreSkippedAContinuedHeadIsJoinedAndTrailersKept() throws Exception {
        connect();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/"));
        byte[] head = block(":status", "200", "x-first", "a", "x-second", "b");
        int cut = head.length / 2;
        server.send(concat(headers(1, false, ":status", "103", "link", "</style.css>"),
                frame(HEADERS, 0, 1, Arrays.copyOfRange(head, 0, cut)),
                frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(head, cut, head.length)),
                data(1, "body".getBytes(StandardCharsets.US_ASCII), false),
                headers(1, true, "x-checksum", "c0ffee")));
        ClientResponse r = f.get();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("x-first")).isEqualTo("a");
        assertThat(r.header("x-second")).isEqualTo("b");
        assertThat(r.header("link")).as("the 103's field").isNull();
        assertThat(r.bodyText()).isEqualTo("body");
        assertThat(r.trailer("x-checksum")).isEqualTo("c0ffee");
    }

    @Test
    void aBodyShorterThanItsContentLengthResetsOnlyItsStream() throws Exception {
        connect();
        CompletableFuture<ClientResponse> bad = c.send(ClientRequest.get("/bad"));
        CompletableFuture<ClientResponse> good = c.send(ClientRequest.get("/good"));
        server.send(concat(headers(1, false, ":status", "200", "content-length", "5"), data(1, new byte[3], true)));
        assertThat(failure(bad).reason()).isEqualTo(ClientException.Reason.MALFORMED_RESPONSE);
        assertThat(failure(bad).getMessage()).contains("content-length");
        assertThat(sent(RST_STREAM)).as("both sides ended stream 1: it is closed, nothing to reset").isEmpty();
        server.send(headers(3, true, ":status", "200"));
        assertThat(good.get().status()).isEqualTo(200);
        assertThat(sent(GOAWAY)).isEmpty();
    }

    @Test
    void receivedBytesAreGivenBackOnceHalfAWindowIsConsumed() throws Exception {
        connect();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/large"));
        server.send(headers(1, false, ":status", "200"));
        byte[] chunk = new byte[16_384];
        for (int i = 0; i < 8; i++) {
            server.send(data(1, chunk, false));
        }
        assertThat(sent(WINDOW_UPDATE)).as("128 KiB consumed: half the stream's 256 KiB window")
                .anyMatch(fr -> fr.stream() == 1 && fr.int32(0) == 8 * 16_384);
        server.send(data(1, new byte[0], true));
        assertThat(f.get().bodyLength()).isEqualTo(8 * 16_384);
    }

    @Test
    void aPingIsAnsweredWithItsPayload() {
        connect();
        server.send(H2Peer.ping(0x1122334455667788L));
        assertThat(sent(PING)).anyMatch(fr -> fr.has(ACK) && fr.int32(0) == 0x11223344 && fr.int32(4) == 0x55667788);
    }

    @Test
    void aGoAwayFailsTheStreamsAboveItsLastAsNotSentAndTheOthersFinish() throws Exception {
        connect();
        CompletableFuture<ClientResponse> first = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> second = c.send(ClientRequest.get("/2"));
        server.send(frame(GOAWAY, 0, 0, concat(int32(1), int32(0))));
        assertThat(failure(second).reason()).as("stream 3, above last_stream_id 1").isEqualTo(ClientException.Reason.NOT_SENT);
        assertThat(c.isReusable()).isFalse();
        CompletableFuture<ClientResponse> later = c.send(ClientRequest.get("/3"));
        assertThat(failure(later).reason()).isEqualTo(ClientException.Reason.NOT_SENT);
        server.send(headers(1, true, ":status", "200"));
        assertThat(first.get().status()).isEqualTo(200);
        assertThat(sent(GOAWAY)).as("the client's own, once nothing is open").hasSize(1);
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void aResetFromTheServerFailsItsRequestWithItsCode() {
        connect();
        CompletableFuture<ClientResponse> refused = c.send(ClientRequest.get("/1"));
        CompletableFuture<ClientResponse> reset = c.send(ClientRequest.get("/2"));
        server.send(concat(H2Peer.rst(1, 7), H2Peer.rst(3, 8)));
        assertThat(failure(refused).reason()).as("REFUSED_STREAM: not processed").isEqualTo(ClientException.Reason.NOT_SENT);
        assertThat(failure(reset).reason()).isEqualTo(ClientException.Reason.STREAM_RESET);
        assertThat(failure(reset).getMessage()).contains("CANCEL");
        assertThat(c.isReusable()).isTrue();
    }

    @Test
    void aPushPromiseEndsTheConnection() {
        connect();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/"));
        server.send(frame(PUSH_PROMISE, END_HEADERS, 1, concat(int32(2), block(":method", "GET"))));
        assertThat(failure(f).reason()).isEqualTo(ClientException.Reason.MALFORMED_RESPONSE);
        assertThat(sent(GOAWAY)).anyMatch(fr -> fr.errorCode() == 1);
    }

    @Test
    void anIdleConnectionGoesAwayAtItsIdleTimeout() {
        connect();
        assertThat(c.nanosToTick(now)).isEqualTo(Duration.ofSeconds(5).toNanos());
        now += Duration.ofSeconds(5).toNanos();
        c.tick(now);
        assertThat(sent(GOAWAY)).anyMatch(fr -> fr.errorCode() == 0);
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void aResponseTimeoutResetsItsStreamAndTheConnectionGoesOn() throws Exception {
        connect();
        CompletableFuture<ClientResponse> slow = c.send(ClientRequest.get("/slow").responseTimeout(Duration.ofMillis(100)));
        now += Duration.ofMillis(100).toNanos();
        c.tick(now);
        assertThat(failure(slow).reason()).isEqualTo(ClientException.Reason.RESPONSE_TIMEOUT);
        assertThat(sent(RST_STREAM)).anyMatch(fr -> fr.stream() == 1 && fr.errorCode() == 8);
        CompletableFuture<ClientResponse> next = c.send(ClientRequest.get("/next"));
        server.send(concat(headers(1, true, ":status", "200"), headers(3, true, ":status", "200")));
        assertThat(next.get().status()).as("a late answer on the reset stream is ignored").isEqualTo(200);
    }

    @Test
    void aContinuationFloodEndsTheConnectionCalmly() {
        connect();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/"));
        byte[][] frames = new byte[66][];
        frames[0] = frame(HEADERS, 0, 1, new byte[0]);
        for (int i = 1; i < frames.length; i++) {
            frames[i] = frame(CONTINUATION, 0, 1, new byte[0]);
        }
        server.send(concat(frames));
        assertThat(failure(f).reason()).isEqualTo(ClientException.Reason.MALFORMED_RESPONSE);
        assertThat(failure(f).getMessage()).contains("ENHANCE_YOUR_CALM").contains("CONTINUATION");
        assertThat(sent(GOAWAY)).as("ENHANCE_YOUR_CALM").anyMatch(fr -> fr.errorCode() == 0xb);
    }

    @Test
    void aHeaderBlockHpackCannotDecodeIsACompressionError() {
        connect();
        CompletableFuture<ClientResponse> f = c.send(ClientRequest.get("/"));
        // an indexed field past the static table, with an empty dynamic table
        server.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, new byte[] {(byte) 0xff, 0x7f}));
        assertThat(failure(f).getMessage()).contains("COMPRESSION_ERROR");
        assertThat(sent(GOAWAY)).anyMatch(fr -> fr.errorCode() == 0x9);
    }
}
