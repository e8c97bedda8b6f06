// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ClientException;
import dev.spindle.core.WebSocket;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The client's handshake connection fed by hand, as a strategy drives it: no socket, no thread. */
class WebSocketClientConnectionTest {
    private final List<String> texts = new ArrayList<>();
    private final CompletableFuture<WebSocket> result = new CompletableFuture<>();
    private int wakeups;

    private WebSocketClientConnection connection(Duration connectTimeout) throws ClientException {
        WebSocketClient.Request request = new WebSocketClient.Request(URI.create("ws://127.0.0.1:9/chat?room=1"), List.of("X-Trace", "7"),
                WebSocket.Options.defaults(), connectTimeout);
        return new WebSocketClientConnection(WebSocketClient.target(request.uri()), request, new WebSocket.Endpoint() {
            @Override
            public void onText(WebSocket s, String message) {
                texts.add(message);
            }
        }, result, () -> wakeups++);
    }

    /** Takes all of the handshake request as a strategy would (its write moves the buffer), in two writes. */
    private static String takeRequest(Connection c) {
        ByteBuffer out = c.outbound();
        int half = out.remaining() / 2;
        byte[] first = new byte[half];
        out.get(first);
        assertThat(c.written(half)).isEqualTo(Next.READ_WRITE);
        ByteBuffer rest = c.outbound();
        byte[] second = new byte[rest.remaining()];
        rest.get(second);
        assertThat(c.written(second.length)).isEqualTo(Next.READ);
        assertThat(c.outbound().hasRemaining()).isFalse();
        return new String(first, StandardCharsets.ISO_8859_1) + new String(second, StandardCharsets.ISO_8859_1);
    }

    private static String accept(String request) {
        int at = request.indexOf("Sec-WebSocket-Key: ") + 19;
        return WebSocketHandshake.accept(request.substring(at, request.indexOf('\r', at)));
    }

    /** Where the answer is cut in two: bytes into it, or (negative) bytes into the frame after the head. */
    @ParameterizedTest(name = "split at {0}")
    @ValueSource(ints = {1, 3, 17, 60, 120, -1, -4})
    void theAnswerInPiecesWithAFrameBehindItOpensTheSocket(int split) throws Exception {
        WebSocketClientConnection c = connection(Duration.ofSeconds(5));
        assertThat(c.next()).as("nothing before the connect").isEqualTo(Next.WAIT);
        assertThat(c.outbound().hasRemaining()).isFalse();
        assertThat(c.connected()).isEqualTo(Next.READ_WRITE);
        String request = takeRequest(c);
        assertThat(request).startsWith("GET /chat?room=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n")
                .contains("Upgrade: websocket\r\n", "Sec-WebSocket-Version: 13\r\n", "X-Trace: 7\r\n").endsWith("\r\n\r\n");
        byte[] head = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + accept(request) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] frame = WebSocketFrames.frame(true, false, WebSocketFrames.TEXT, "hello".getBytes(StandardCharsets.UTF_8), null);
        byte[] all = new byte[head.length + frame.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(frame, 0, all, head.length, frame.length);
        // a cut past the head splits the frame behind it instead
        int cut = split < 0 ? head.length - split : split;
        c.received(ByteBuffer.wrap(all, 0, cut));
        if (cut < head.length) {
            assertThat(result).isNotDone();
            assertThat(c.state()).isEqualTo(Connection.State.READING_REQUEST);
        } else {
            assertThat(result).isCompleted();
            assertThat(texts).isEmpty();
        }
        c.received(ByteBuffer.wrap(all, cut, all.length - cut));
        assertThat(result).isCompleted();
        assertThat(texts).as("the frame that came with the 101").containsExactly("hello");
        assertThat(c.state()).isEqualTo(Connection.State.DUPLEX);

        result.join().sendText("hi");
        assertThat(wakeups).as("a send from outside the connection's calls wakes it").isEqualTo(1);
        c.resume();
        ByteBuffer out = c.outbound();
        assertThat(out.remaining()).as("a masked frame: 2 + 4 + 2 bytes").isEqualTo(8);
        assertThat(out.get(out.position() + 1) & 0x80).as("the mask bit").isEqualTo(0x80);
    }

    /** A driver writing outside its lock reports the handshake written only after the 101 came (the socket reader was quicker). */
    @Test
    void theHandshakeReportedWrittenAfterTheAnswerCountsAsTheHandshakes() throws Exception {
        WebSocketClientConnection c = connection(Duration.ofSeconds(5));
        c.connected();
        ByteBuffer out = c.outbound();
        byte[] sent = new byte[out.remaining()];
        out.get(out.position(), sent);
        String request = new String(sent, StandardCharsets.ISO_8859_1);
        c.received(ByteBuffer.wrap(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + accept(request) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(result).isCompleted();
        result.join().sendText("hi");
        c.resume();
        assertThat(c.written(sent.length)).as("the late report changes nothing of the engine's").isEqualTo(Next.READ_WRITE);
        assertThat(c.outbound().remaining()).as("the frame still to write").isEqualTo(8);
        assertThat(c.written(8)).isEqualTo(Next.READ);
    }

    @Test
    void noAnswerWithinTheConnectTimeoutFailsAsAResponseTimeout() throws Exception {
        WebSocketClientConnection c = connection(Duration.ofMillis(200));
        c.connected();
        takeRequest(c);
        long now = System.nanoTime();
        assertThat(c.nanosToTick(now)).isBetween(1L, TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(c.tick(now)).isEqualTo(Next.READ);
        assertThat(c.tick(now + TimeUnit.MILLISECONDS.toNanos(250))).isEqualTo(Next.CLOSE);
        assertThat(result).isCompletedExceptionally();
        assertThat(reason()).isEqualTo(ClientException.Reason.RESPONSE_TIMEOUT);
    }

    @Test
    void aConnectThatNeverCompletesFailsAsAConnectTimeout() throws Exception {
        WebSocketClientConnection c = connection(Duration.ofMillis(100));
        assertThat(c.tick(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150))).isEqualTo(Next.CLOSE);
        assertThat(reason()).isEqualTo(ClientException.Reason.CONNECT_TIMEOUT);
        c.closed();
        assertThat(reason()).as("the first failure stands").isEqualTo(ClientException.Reason.CONNECT_TIMEOUT);
    }

    @Test
    void aHeadThatNeverEndsIsCutOffAt16KiB() throws Exception {
        WebSocketClientConnection c = connection(Duration.ZERO);
        c.connected();
        takeRequest(c);
        c.received(ByteBuffer.wrap("HTTP/1.1 101 Switching Protocols\r\n".getBytes(StandardCharsets.ISO_8859_1)));
        byte[] field = "X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".getBytes(StandardCharsets.ISO_8859_1);
        Next next = Next.READ;
        for (int i = 0; i < 300 && next != Next.CLOSE; i++) {
            next = c.received(ByteBuffer.wrap(field));
        }
        assertThat(next).isEqualTo(Next.CLOSE);
        assertThat(reason()).isEqualTo(ClientException.Reason.MALFORMED_RESPONSE);
    }

    private ClientException.Reason reason() {
        return result.handle((s, e) -> ((ClientException) e).reason()).join();
    }
}
