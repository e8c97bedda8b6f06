// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * WebSockets over HTTP/2 (RFC 8441) on a sans-I/O {@link Http2Connection}: the setting, the
 * extended CONNECT answered 200 with the stream left open, frames both ways in DATA, the closing
 * handshake ending the stream, and the extended CONNECTs that are refused.
 */
class WebSocketOverHttp2Test {
    private static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;

    private final Semaphore woken = new Semaphore(0);
    private final List<String> events = new CopyOnWriteArrayList<>();
    private volatile WebSocket opened;

    private Router routes() {
        WebSocket.Endpoint echo = new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket socket) {
                opened = socket;
                events.add("open " + socket.request().path() + " " + socket.request().version());
            }

            @Override
            public void onText(WebSocket socket, String message) {
                events.add("text " + message);
                socket.sendText("echo " + message);
            }

            @Override
            public void onClose(WebSocket socket, int code, String reason) {
                events.add("close " + code);
            }
        };
        return Router.builder()
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .websocket("/ws", echo, WebSocket.Options.defaults().subprotocols("chat"))
                .websocket("/small", echo, WebSocket.Options.defaults().maxQueuedBytes(64 * 1024))
                .build();
    }

    private H2Peer peer(Router router) {
        return new H2Peer(new Http2Connection(router, ServerConfig.defaults(), Runnable::run, woken::release, null)).start();
    }

    private static byte[] connect(int stream, String protocol, String path, String... extra) {
        List<String> fields = new ArrayList<>(List.of(":method", "CONNECT", ":protocol", protocol, ":scheme", "http",
                ":path", path, ":authority", "localhost"));
        fields.addAll(List.of(extra));
        return frame(HEADERS, END_HEADERS, stream, block(fields.toArray(String[]::new)));
    }

    private static byte[] open(int stream) {
        return connect(stream, "websocket", "/ws", "sec-websocket-version", "13", "sec-websocket-protocol", "chat");
    }

    /** A client frame (masked, FIN) with a short payload, in a DATA frame. */
    private static byte[] wsData(int stream, int opcode, byte[] payload, boolean endStream) {
        byte[] mask = {0x11, 0x22, 0x33, 0x44};
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x80 | opcode);
        b.write(0x80 | payload.length);
        b.writeBytes(mask);
        for (int i = 0; i < payload.length; i++) {
            b.write(payload[i] ^ mask[i % 4]);
        }
        return frame(DATA, endStream ? END_STREAM : 0, stream, b.toByteArray());
    }

    private static byte[] text(int stream, String text) {
        return wsData(stream, 0x1, text.getBytes(StandardCharsets.UTF_8), false);
    }

    private static byte[] close(int stream, int code) {
        return wsData(stream, 0x8, new byte[] {(byte) (code >> 8), (byte) code}, false);
    }

    /** The WebSocket frames the server sent on {@code stream}, as "opcode:payload" (payloads under 126 bytes, unmasked). */
    private static List<String> serverFrames(H2Peer peer, int stream) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (H2Peer.Frame f : peer.frames()) {
            if (f.type() == DATA && f.stream() == stream) {
                all.writeBytes(f.payload());
            }
        }
        byte[] b = all.toByteArray();
        List<String> frames = new ArrayList<>();
        for (int p = 0; p + 2 <= b.length; ) {
            int opcode = b[p] & 0x0F;
            assertThat(b[p + 1] & 0x80).as("server frames are not masked").isZero();
            int length = b[p + 1] & 0x7F;
            byte[] payload = java.util.Arrays.copyOfRange(b, p + 2, p + 2 + length);
            frames.add(opcode == 0x8 ? "close:" + (((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF))
                    : opcode + ":" + new String(payload, StandardCharsets.UTF_8));
            p += 2 + length;
        }
        return frames;
    }

    private static boolean ended(H2Peer peer, int stream) {
        return peer.frames().stream().anyMatch(f -> f.stream() == stream && f.type() == DATA && f.has(END_STREAM));
    }

    private static boolean settingSent(H2Peer peer, int id, int value) {
        for (H2Peer.Frame f : peer.frames()) {
            if (f.type() == SETTINGS && !f.has(ACK)) {
                ByteBuffer p = ByteBuffer.wrap(f.payload());
                while (p.remaining() >= 6) {
                    if (p.getShort() == id && p.getInt() == value) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void theServerOffersExtendedConnectOnlyWhenItHasWebSocketRoutes() {
        H2Peer with = peer(routes());
        with.read();
        assertThat(settingSent(with, SETTINGS_ENABLE_CONNECT_PROTOCOL, 1)).isTrue();
        H2Peer without = peer(Router.builder().get("/", (req, res) -> res.text("x")).build());
        without.read();
        assertThat(settingSent(without, SETTINGS_ENABLE_CONNECT_PROTOCOL, 1)).isFalse();
    }

    @Test
    void anExtendedConnectOpensASocketThatEchoesAndClosesItsStream() throws Exception {
        H2Peer peer = peer(routes());
        peer.send(open(1));
        H2Peer.Response answer = peer.response(1);
        assertThat(answer.status()).isEqualTo("200");
        assertThat(answer.headers()).containsEntry("sec-websocket-protocol", "chat").doesNotContainKey("sec-websocket-accept")
                .doesNotContainKey("content-length");
        assertThat(answer.ended()).as("the stream stays open").isFalse();
        assertThat(events).containsExactly("open /ws HTTP/2");

        peer.send(text(1, "hello"));
        peer.read();
        assertThat(serverFrames(peer, 1)).containsExactly("1:echo hello");

        peer.send(close(1, 1000));
        peer.read();
        assertThat(serverFrames(peer, 1)).containsExactly("1:echo hello", "close:1000");
        assertThat(ended(peer, 1)).as("the closing handshake ends the stream").isTrue();
        assertThat(events).containsExactly("open /ws HTTP/2", "text hello", "close 1000");

        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).body()).as("the connection serves on").isEqualTo("Hello, World!");
    }

    @Test
    void aSendFromAnotherThreadGoesOutAfterTheWakeup() throws Exception {
        Http2Connection c = new Http2Connection(routes(), ServerConfig.defaults(), Runnable::run, woken::release, null);
        H2Peer peer = new H2Peer(c).start();
        peer.send(open(1));
        peer.read();
        Thread t = Thread.ofVirtual().start(() -> opened.sendText("pushed"));
        t.join();
        assertThat(woken.tryAcquire(5, TimeUnit.SECONDS)).as("the send wakes the connection").isTrue();
        c.resume();
        peer.read();
        assertThat(serverFrames(peer, 1)).containsExactly("1:pushed");
    }

    @Test
    void anUnmaskedClientFrameClosesTheSocketWith1002AndEndsTheStream() throws Exception {
        H2Peer peer = peer(routes());
        peer.send(open(1));
        peer.read();
        peer.send(frame(DATA, 0, 1, new byte[] {(byte) 0x81, 0x02, 'h', 'i'}));
        peer.read();
        assertThat(serverFrames(peer, 1)).containsExactly("close:1002");
        assertThat(ended(peer, 1)).isTrue();
        assertThat(events).contains("close 1002");
    }

    @Test
    void aResetStreamIsAnAbnormalClose() throws Exception {
        H2Peer peer = peer(routes());
        peer.send(open(1));
        peer.read();
        peer.send(rst(1, 0x8));
        peer.read();
        assertThat(events).contains("close 1006");
        assertThat(opened.isOpen()).isFalse();
    }

    @Test
    void theClientsEndOfStreamWithoutACloseFrameEndsTheSocket() throws Exception {
        H2Peer peer = peer(routes());
        peer.send(open(1));
        peer.read();
        peer.send(frame(DATA, END_STREAM, 1, new byte[0]));
        peer.read();
        assertThat(events).contains("close 1006");
        assertThat(ended(peer, 1)).isTrue();
    }

    @Test
    void aClientThatOpensNoWindowIsResetOnceTheSocketsQueueIsFullAndTheConnectionServesOn() throws Exception {
        Http2Connection c = new Http2Connection(routes(), ServerConfig.defaults(), Runnable::run, woken::release, null);
        H2Peer peer = new H2Peer(c).start();
        peer.send(settings(0x4, 1000));
        peer.send(connect(1, "websocket", "/small", "sec-websocket-version", "13"));
        peer.read();
        String chunk = "x".repeat(8 * 1024);
        boolean refused = false;
        for (int i = 0; i < 1000 && !refused; i++) {
            refused = opened.sendText(chunk).toCompletableFuture().isCompletedExceptionally();
            c.resume();
            peer.read();
        }
        assertThat(refused).as("a send is refused once 64 KiB wait").isTrue();
        c.resume();
        peer.read();
        assertThat(peer.frames()).as("the socket's stream is reset (CANCEL)")
                .anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1 && ByteBuffer.wrap(f.payload()).getInt() == 0x8);
        assertThat(events).contains("close 1008");
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).body()).isEqualTo("Hello, World!");
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("no version field", connect(1, "websocket", "/ws"), "426"),
                Arguments.of("another protocol", connect(1, "not-websocket", "/ws", "sec-websocket-version", "13"), "400"),
                Arguments.of("a path without a WebSocket route", connect(1, "websocket", "/nowhere", "sec-websocket-version", "13"), "404"),
                Arguments.of("a plain GET to the WebSocket route", frame(HEADERS, END_HEADERS | END_STREAM, 1,
                        block(":method", "GET", ":scheme", "http", ":path", "/ws", ":authority", "localhost")), "426"),
                Arguments.of(":protocol on a GET", frame(HEADERS, END_HEADERS | END_STREAM, 1,
                        block(":method", "GET", ":protocol", "websocket", ":scheme", "http", ":path", "/ws", ":authority", "localhost")),
                        "RST 1"),
                Arguments.of("an extended CONNECT without :path", frame(HEADERS, END_HEADERS, 1,
                        block(":method", "CONNECT", ":protocol", "websocket", ":scheme", "http", ":authority", "localhost")), "RST 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusedExtendedConnects(String name, byte[] request, String expected) throws Exception {
        H2Peer peer = peer(routes());
        peer.send(request);
        peer.read();
        H2Peer.Frame reset = peer.frames().stream().filter(f -> f.type() == RST_STREAM && f.stream() == 1).findFirst().orElse(null);
        // an answer before the request's end is followed by RST_STREAM NO_ERROR (RFC 9113 8.1)
        String status = peer.response(1).status();
        String outcome = status != null ? status : "RST " + ByteBuffer.wrap(reset.payload()).getInt();
        assertThat(outcome).isEqualTo(expected);
        assertThat(events).as("no socket opened").isEmpty();
        peer.send(get(3, "/plaintext"));
        assertThat(peer.response(3).body()).isEqualTo("Hello, World!");
    }

    @Test
    void withoutWebSocketRoutesProtocolIsAnUnknownPseudoHeader() throws Exception {
        H2Peer peer = peer(Router.builder().get("/", (req, res) -> res.text("x")).build());
        peer.send(open(1));
        peer.read();
        assertThat(peer.frames()).anyMatch(f -> f.type() == RST_STREAM && f.stream() == 1 && ByteBuffer.wrap(f.payload()).getInt() == 1);
    }
}
