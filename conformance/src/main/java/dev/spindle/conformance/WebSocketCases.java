// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.conformance.h2.H2Response;
import dev.spindle.conformance.h2.Header;
import dev.spindle.core.Router;
import dev.spindle.core.WebSocket;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * WebSocket routes (RFC 6455) on a server of the suite's strategy, over HTTP/1.1 with and without
 * TLS: the JDK's {@code java.net.http.WebSocket} as a client (echo of text and binary messages of
 * every size, sub-protocols, messages pushed from another thread to several sockets, the server's
 * close), and frames written by hand for what a well-behaved client never sends (an unmasked frame,
 * invalid UTF-8, a message over the limit, a ping over 125 bytes, fragments with pings between
 * them, the closing handshake byte by byte, a client that never reads), the families of the
 * Autobahn testsuite's sections 1 to 7, 9, 12 and 13 as table rows (reserved bits and opcodes,
 * fragmented control frames, UTF-8 across fragments, every class of close code, permessage-deflate
 * messages whole and fragmented, a decompression bomb), and sockets over HTTP/2 (RFC 8441). Run by
 * {@link HttpConformanceSuite} against every server; tagged, to run alone ({@code -Dgroups=websocket}).
 */
@org.junit.jupiter.api.Tag("websocket")
@org.junit.jupiter.api.Timeout(value = 30, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class WebSocketCases extends SuiteSection {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_MESSAGE = 1 << 20;
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";
    private final Random random = new Random(42);
    /** The sockets open on /ws/feed, for the cases to push to. */
    private final Set<WebSocket> feed = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<String> closes = new LinkedBlockingQueue<>();

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected WebSocketCases(SuiteTarget suite) {
        super(suite);
    }

    @Override
    protected Router router() {
        WebSocket.Endpoint echo = new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket socket) {
                String room = socket.request().pathParam("room");
                if (!room.equals("quiet")) {
                    socket.sendText("welcome to " + room + " (" + socket.subprotocol() + ")");
                }
            }

            @Override
            public void onText(WebSocket socket, String message) {
                if (message.startsWith("close ")) {
                    socket.close(Integer.parseInt(message.substring(6)), "as asked");
                } else {
                    socket.sendText(message);
                }
            }

            @Override
            public void onBinary(WebSocket socket, ByteBuffer message) {
                socket.sendBinary(message);
            }

            @Override
            public void onClose(WebSocket socket, int code, String reason) {
                closes.add(code + " " + reason);
            }
        };
        WebSocket.Endpoint subscribe = new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket socket) {
                feed.add(socket);
            }

            @Override
            public void onClose(WebSocket socket, int code, String reason) {
                feed.remove(socket);
            }
        };
        WebSocket.Options options = WebSocket.Options.defaults().maxMessageSize(MAX_MESSAGE).subprotocols("v2.echo", "v1.echo")
                .closeTimeout(Duration.ofSeconds(2));
        WebSocket.Endpoint blocking = WebSocket.Endpoint.blocking(new WebSocket.Endpoint() {
            @Override
            public void onText(WebSocket socket, String message) throws Exception {
                // what a blocking endpoint may do: sleep (a slow call), and wait for its own send to be written
                Thread.sleep(5);
                socket.sendText(Thread.currentThread().isVirtual() + " " + message).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
        });
        return Router.builder()
                .websocket("/blocking", blocking)
                .websocket("/ws/{room}", echo, options)
                .websocket("/deflate/{room}", echo, options.compression(true))
                .websocket("/feed", subscribe, WebSocket.Options.defaults().maxQueuedBytes(64 * 1024))
                .get("/plain", (req, res) -> res.text("plain"))
                .build();
    }

    private URI uri(String path) throws IOException {
        return URI.create((suite.overTls() ? "wss" : "ws") + "://" + suite.host() + ":" + server().port() + path);
    }

    private HttpClient client() {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(TIMEOUT);
        return (suite.overTls() ? builder.sslContext(suite.clientTls()) : builder).build();
    }

    /** What a JDK client received: whole messages (text as strings, binary as byte arrays) and its close. */
    static final class Received implements java.net.http.WebSocket.Listener {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(java.net.http.WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(java.net.http.WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.writeBytes(b);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(java.net.http.WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode + " " + reason);
            return null;
        }

        @Override
        public void onError(java.net.http.WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        Object next() throws InterruptedException {
            Object m = messages.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(m).as("a message arrived").isNotNull();
            return m;
        }
    }

    /** Text and binary messages of every size, up to the limit, come back byte-exact through the JDK client. */
    @Test
    void theJdkClientsMessagesOfEverySizeAreEchoed() throws Exception {
        closes.clear();
        try (HttpClient client = client()) {
            Received got = new Received();
            java.net.http.WebSocket ws = client.newWebSocketBuilder().subprotocols("v1.echo", "v2.echo")
                    .buildAsync(uri("/ws/lobby"), got).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(ws.getSubprotocol()).as("the server's preference among those offered").isEqualTo("v2.echo");
            assertThat(got.next()).isEqualTo("welcome to lobby (v2.echo)");
            for (int size : new int[] {0, 1, 125, 126, 65535, 65536, 300_000, MAX_MESSAGE}) {
                String text = "é".repeat(size / 2) + "x".repeat(size % 2);
                ws.sendText(text, true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(got.next()).as("a text message of %d bytes", size).isEqualTo(text);
                byte[] bytes = new byte[size];
                random.nextBytes(bytes);
                ws.sendBinary(ByteBuffer.wrap(bytes), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat((byte[]) got.next()).as("a binary message of %d bytes", size).isEqualTo(bytes);
            }
            ws.sendClose(1000, "done").get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(got.closed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).as("the server echoes the code").startsWith("1000");
            assertThat(closes.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("1000 done");
        }
    }

    /** Messages pushed from a thread of the application's reach every socket, each send completing once written. */
    @Test
    void messagesPushedFromAnotherThreadReachEverySubscriber() throws Exception {
        feed.clear();
        try (HttpClient client = client()) {
            List<Received> clients = new ArrayList<>();
            List<java.net.http.WebSocket> sockets = new ArrayList<>();
            // each socket holds a connection for good: as many as the server serves at once (a pool's workers), up to 3
            int subscribers = Math.min(3, suite.concurrentConnections());
            for (int i = 0; i < subscribers; i++) {
                Received got = new Received();
                clients.add(got);
                sockets.add(client.newWebSocketBuilder().buildAsync(uri("/feed"), got).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
            }
            for (long end = System.nanoTime() + TIMEOUT.toNanos(); feed.size() < subscribers && System.nanoTime() < end; ) {
                Thread.sleep(5);
            }
            assertThat(feed).hasSize(subscribers);
            for (int n = 0; n < 20; n++) {
                String news = "news " + n;
                List<CompletableFuture<Void>> sent = new ArrayList<>();
                Thread publisher = Thread.ofPlatform().start(() -> feed.forEach(s -> sent.add(s.sendText(news).toCompletableFuture())));
                publisher.join();
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                for (Received got : clients) {
                    assertThat(got.next()).isEqualTo(news);
                }
            }
            for (java.net.http.WebSocket ws : sockets) {
                ws.sendClose(1001, "").get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    /** A blocking endpoint sleeps and waits for its sends on a thread of its own: every message is answered, in order. */
    @Test
    void aBlockingEndpointAnswersEveryMessageInOrder() throws Exception {
        try (HttpClient client = client()) {
            Received got = new Received();
            java.net.http.WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("/blocking"), got)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            for (int i = 0; i < 20; i++) {
                ws.sendText("m" + i, true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            for (int i = 0; i < 20; i++) {
                assertThat(got.next()).isEqualTo("true m" + i);
            }
            ws.sendClose(1000, "").get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(got.closed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).startsWith("1000");
        }
    }

    /** The application's close reaches the JDK client with its code and reason, after what it sent before. */
    @Test
    void theServersCloseReachesTheClientWithItsCode() throws Exception {
        try (HttpClient client = client()) {
            Received got = new Received();
            java.net.http.WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("/ws/quiet"), got)
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            ws.sendText("first", true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            ws.sendText("close 4001", true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(got.next()).isEqualTo("first");
            assertThat(got.closed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("4001 as asked");
        }
    }

    /** The opening handshake byte by byte: the accept key of RFC 6455 1.3, then frames written here. */
    private RawConnection handshake(String path) throws IOException {
        return handshake(server().port(), path);
    }

    private RawConnection handshake(int port, String path) throws IOException {
        RawConnection c = suite.connect(port);
        c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n\r\n");
        String head = readHead(c.input());
        assertThat(head).startsWith("HTTP/1.1 101 ").contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n");
        return c;
    }

    /** A handshake to {@code path} that offers permessage-deflate (RFC 7692), which the answer must agree to. */
    private RawConnection deflateHandshake(String path) throws IOException {
        RawConnection c = suite.connect(server().port());
        c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover\r\n\r\n");
        String head = readHead(c.input());
        assertThat(head).startsWith("HTTP/1.1 101 ").containsPattern("(?i)\r\nSec-WebSocket-Extensions: permessage-deflate");
        return c;
    }

    /** {@code data} compressed as one permessage-deflate message (RFC 7692 7.2.1: the flush's empty block's tail removed). */
    private static byte[] deflated(byte[] data) {
        java.util.zip.Deflater d = new java.util.zip.Deflater(java.util.zip.Deflater.DEFAULT_COMPRESSION, true);
        d.setInput(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = d.deflate(buf, 0, buf.length, java.util.zip.Deflater.SYNC_FLUSH)) > 0) {
            out.write(buf, 0, n);
        }
        d.end();
        byte[] all = out.toByteArray();
        return java.util.Arrays.copyOf(all, all.length - 4);
    }

    private static String inflated(byte[] payload) throws java.util.zip.DataFormatException {
        java.util.zip.Inflater i = new java.util.zip.Inflater(true);
        i.setInput(concat(payload, new byte[] {0, 0, (byte) 0xFF, (byte) 0xFF}));
        byte[] buf = new byte[1 << 16];
        int n = i.inflate(buf);
        i.end();
        return new String(buf, 0, n, StandardCharsets.UTF_8);
    }

    /** permessage-deflate on the wire (Autobahn sections 12 and 13): a compressed message, whole or in fragments, comes back compressed. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(booleans = {false, true})
    void aCompressedMessageIsEchoedCompressed(boolean fragmented) throws Exception {
        String text = "compressed, compressed, compressed: " + "ü".repeat(40);
        byte[] payload = deflated(bytes(text));
        try (RawConnection c = deflateHandshake("/deflate/quiet")) {
            if (fragmented) {
                int half = payload.length / 2;
                c.send(concat(withFirstByte(frame(false, 0x1, java.util.Arrays.copyOf(payload, half)), 0x41),
                        frame(true, 0x0, java.util.Arrays.copyOfRange(payload, half, payload.length))));
            } else {
                c.send(withFirstByte(frame(true, 0x1, payload), 0xC1));
            }
            int first = c.input().read();
            assertThat(first).as("a final text frame with RSV1: compressed").isEqualTo(0xC1);
            int length = c.input().read();
            assertThat(length & 0x80).isZero();
            assertThat(length & 0x7F).isLessThan(126);
            assertThat(inflated(c.input().readNBytes(length & 0x7F))).isEqualTo(text);
        }
    }

    static Stream<Arguments> deflateErrors() {
        return Stream.of(
                Arguments.of("a message that inflates past the limit", withFirstByte(frame(true, 0x2, deflated(new byte[2 * MAX_MESSAGE])), 0xC2), 1009),
                Arguments.of("RSV1 on a continuation", concat(withFirstByte(frame(false, 0x1, deflated(bytes("a"))), 0x41),
                        withFirstByte(frame(true, 0x0, new byte[0]), 0xC0)), 1002),
                Arguments.of("RSV1 on a ping", withFirstByte(frame(true, 0x9, bytes("p")), 0xC9), 1002),
                Arguments.of("compressed bytes that do not inflate", withFirstByte(frame(true, 0x1, new byte[] {(byte) 0xFF, (byte) 0xFF, 0x00}), 0xC1), 1007));
    }

    /** Bad compressed input closes with its code, and a decompression bomb is stopped at the message limit (1009). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("deflateErrors")
    void badCompressedInputGetsTheCloseCodeForIt(String name, byte[] bad, int code) throws Exception {
        try (RawConnection c = deflateHandshake("/deflate/quiet")) {
            c.send(bad);
            Frame close = readFrame(c.input());
            assertThat(close.opcode()).as("a close frame").isEqualTo(0x8);
            assertThat(close.code()).isEqualTo(code);
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    static String readHead(InputStream in) throws IOException {
        return WebSocketWire.readHead(in);
    }

    /** The ping is answered with its payload, between the fragments of a message, which arrives whole. */
    @Test
    void aPingBetweenFragmentsIsAnsweredAndTheMessageArrivesWhole() throws Exception {
        try (RawConnection c = handshake("/ws/quiet")) {
            c.send(concat(frame(false, 0x1, bytes("frag")), frame(true, 0x9, bytes("hello?")), frame(true, 0x0, bytes("mented"))));
            assertThat(readFrame(c.input())).isEqualTo(new Frame(0xA, bytes("hello?")));
            assertThat(readFrame(c.input())).isEqualTo(new Frame(0x1, bytes("fragmented")));
            c.send(frame(true, 0x8, closePayload(1000, "bye")));
            Frame close = readFrame(c.input());
            assertThat(close.opcode()).isEqualTo(0x8);
            assertThat(close.code()).isEqualTo(1000);
            assertThat(c.closedByPeer()).as("the server closes the TCP connection first").isTrue();
        }
    }

    static Stream<Arguments> protocolErrors() {
        return Stream.of(
                Arguments.of("an unmasked frame", unmasked(0x1, bytes("hi")), 1002),
                Arguments.of("invalid UTF-8 in a text message", frame(true, 0x1, new byte[] {'o', 'k', (byte) 0xFF}), 1007),
                Arguments.of("UTF-8 cut in the middle of a character", frame(true, 0x1, new byte[] {(byte) 0xC3}), 1007),
                Arguments.of("a message over the limit", frame(true, 0x2, new byte[MAX_MESSAGE + 1]), 1009),
                Arguments.of("a ping over 125 bytes", frame(true, 0x9, new byte[126]), 1002),
                Arguments.of("a fragmented ping", frame(false, 0x9, new byte[1]), 1002),
                Arguments.of("a reserved opcode", frame(true, 0x3, new byte[0]), 1002),
                Arguments.of("RSV2 set", withFirstByte(frame(true, 0x1, bytes("x")), 0xA1), 1002),
                Arguments.of("a continuation with nothing to continue", frame(true, 0x0, bytes("x")), 1002),
                Arguments.of("a new message inside a fragmented one", concat(frame(false, 0x1, bytes("a")), frame(true, 0x1, bytes("b"))), 1002),
                Arguments.of("a close code no peer may send", frame(true, 0x8, new byte[] {0x03, (byte) 0xED}), 1002),
                Arguments.of("a length of 2^63 announced", announcing(Long.MIN_VALUE), 1002),
                Arguments.of("a length of 2^62 announced", announcing(1L << 62), 1009),
                // the families of the Autobahn testsuite's sections 3 to 7, in frames of our own
                Arguments.of("RSV1 on a socket without permessage-deflate", withFirstByte(frame(true, 0x1, bytes("x")), 0xC1), 1002),
                Arguments.of("RSV3 set", withFirstByte(frame(true, 0x2, bytes("x")), 0x92), 1002),
                Arguments.of("reserved data opcode 7", frame(true, 0x7, bytes("x")), 1002),
                Arguments.of("reserved control opcode 11", frame(true, 0xB, new byte[0]), 1002),
                Arguments.of("reserved control opcode 15", frame(true, 0xF, bytes("x")), 1002),
                Arguments.of("a fragmented close", frame(false, 0x8, new byte[] {0x03, (byte) 0xE8}), 1002),
                Arguments.of("a fragmented pong", frame(false, 0xA, bytes("p")), 1002),
                Arguments.of("a close of one byte", frame(true, 0x8, new byte[] {0x03}), 1002),
                Arguments.of("a close reason of invalid UTF-8", frame(true, 0x8, new byte[] {0x03, (byte) 0xE8, 'o', (byte) 0xFF}), 1007),
                Arguments.of("invalid UTF-8 split across fragments", concat(frame(false, 0x1, new byte[] {'a', (byte) 0xCE}),
                        frame(true, 0x0, new byte[] {(byte) 0x28})), 1007),
                Arguments.of("a continuation after a whole message", concat(frame(true, 0x1, bytes("a")), frame(true, 0x0, bytes("b"))), 1002),
                Arguments.of("an overlong UTF-8 encoding", frame(true, 0x1, new byte[] {(byte) 0xC0, (byte) 0xAF}), 1007),
                Arguments.of("a UTF-16 surrogate in UTF-8", frame(true, 0x1, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}), 1007),
                Arguments.of("a code point past U+10FFFF", frame(true, 0x1, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}), 1007));
    }

    static Stream<Arguments> closeCodes() {
        Stream<Arguments> refused = Stream.of(0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535)
                .map(code -> Arguments.of(code, 1002));
        Stream<Arguments> echoed = Stream.of(1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999)
                .map(code -> Arguments.of(code, code));
        return Stream.concat(refused, echoed);
    }

    /** Autobahn section 7.7 and 7.9: a close with a code a peer may send is answered with that code, any other with 1002. */
    @ParameterizedTest(name = "close code {0} answered with {1}")
    @MethodSource("closeCodes")
    void aClientsCloseCodeIsEchoedWhenValidAndRefusedWith1002Otherwise(int code, int answer) throws Exception {
        try (RawConnection c = handshake("/ws/quiet")) {
            c.send(frame(true, 0x8, closePayload(code, "")));
            Frame close = readFrame(c.input());
            assertThat(close.opcode()).as("a close frame").isEqualTo(0x8);
            assertThat(close.code()).isEqualTo(answer);
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    /** Input that breaks RFC 6455 is answered with the close code for it, the connection then closed by the server. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("protocolErrors")
    void aClientThatBreaksTheProtocolGetsTheCloseCodeForIt(String name, byte[] bad, int code) throws Exception {
        try (RawConnection c = handshake("/ws/quiet")) {
            c.send(bad);
            Frame close = readFrame(c.input());
            assertThat(close.opcode()).as("a close frame").isEqualTo(0x8);
            assertThat(close.code()).isEqualTo(code);
            assertThat(c.closedByPeer()).isTrue();
        }
        assertThat(fetchPlain()).as("the server serves on").isEqualTo("plain");
    }

    /** A request to a WebSocket route that is not a handshake is 426 with {@code Upgrade: websocket}, not a socket. */
    @Test
    void aPlainRequestToAWebSocketRouteIs426() throws Exception {
        try (RawConnection c = suite.connect(server().port())) {
            RawResponse r = c.send("GET /ws/lobby HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(426);
            assertThat(r.header("Upgrade")).isEqualTo("websocket");
        }
        try (RawConnection c = suite.connect(server().port())) {
            RawResponse wrongVersion = c.send("GET /ws/lobby HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 8\r\n\r\n").read();
            assertThat(wrongVersion.status()).isEqualTo(426);
            assertThat(wrongVersion.header("Sec-WebSocket-Version")).isEqualTo("13");
        }
    }

    /**
     * A client that sends and never reads: the server's sends queue up to the route's bound, then
     * the socket is closed, its memory let go, and the server serves others meanwhile.
     */
    @Test
    void aClientThatNeverReadsIsClosedOnceItsQueueIsFull() throws Exception {
        feed.clear();
        // a blocking server's thread waits in its write until the write timeout: a short one here
        try (dev.spindle.core.HttpServer own = suite.start(suite.config().writeTimeout(Duration.ofSeconds(2)), router());
                RawConnection c = handshake(own.port(), "/feed")) {
            for (long end = System.nanoTime() + TIMEOUT.toNanos(); feed.isEmpty() && System.nanoTime() < end; ) {
                Thread.sleep(5);
            }
            WebSocket socket = feed.iterator().next();
            byte[] chunk = new byte[16 * 1024];
            CompletableFuture<Void> last = null;
            int sent = 0;
            while (sent < 4096) {
                last = socket.sendBinary(ByteBuffer.wrap(chunk)).toCompletableFuture();
                sent++;
                if (last.isCompletedExceptionally()) {
                    break;
                }
            }
            assertThat(last).as("a send refused once the queue was full, after %d", sent).isCompletedExceptionally();
            assertThat(socket.closed().toCompletableFuture().get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)).isNull();
            assertThat(feed).as("the socket reported closed").doesNotContain(socket);
            assertThat(fetchPlain()).as("the server serves on").isEqualTo("plain");
        }
    }

    /**
     * A client that floods pings and never reads the pongs: the pongs fill the server's output to
     * its high-water mark, the server stops reading (so the client's own sends block, not the
     * server's memory grow), and the write timeout ends the connection.
     */
    @Test
    void aPingFloodFromAClientThatNeverReadsIsHeldBackThenDropped() throws Exception {
        try (dev.spindle.core.HttpServer own = suite.start(suite.config().writeTimeout(Duration.ofSeconds(2)), router());
                RawConnection c = handshake(own.port(), "/ws/quiet")) {
            byte[] ping = frame(true, 0x9, new byte[125]);
            byte[] burst = new byte[ping.length * 512];
            for (int i = 0; i < 512; i++) {
                System.arraycopy(ping, 0, burst, i * ping.length, ping.length);
            }
            java.util.concurrent.atomic.AtomicBoolean cut = new java.util.concurrent.atomic.AtomicBoolean();
            Thread flooder = Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int i = 0; i < 4096; i++) {
                        c.send(burst);
                    }
                } catch (IOException e) {
                    cut.set(true);
                }
            });
            flooder.join(TIMEOUT.toMillis() * 2);
            assertThat(flooder.isAlive()).as("the flood ended").isFalse();
            assertThat(cut).as("by the server closing the connection, 256 MiB of pings before the end").isTrue();
        }
        assertThat(fetchPlain()).as("the server serves on").isEqualTo("plain");
    }

    /** Ten thousand empty fragments and a last one make one message, which arrives whole. */
    @Test
    void aMessageInTenThousandEmptyFragmentsArrivesWhole() throws Exception {
        try (RawConnection c = handshake("/ws/quiet")) {
            ByteArrayOutputStream flood = new ByteArrayOutputStream();
            flood.writeBytes(frame(false, 0x1, bytes("a")));
            byte[] empty = frame(false, 0x0, new byte[0]);
            for (int i = 0; i < 10_000; i++) {
                flood.writeBytes(empty);
            }
            flood.writeBytes(frame(true, 0x0, bytes("z")));
            c.send(flood.toByteArray());
            assertThat(readFrame(c.input())).isEqualTo(new Frame(0x1, bytes("az")));
        }
    }

    private String fetchPlain() throws IOException {
        try (RawConnection c = suite.connect(server().port())) {
            return c.send("GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read().bodyText();
        }
    }

    record Frame(int opcode, byte[] payload) {
        int code() {
            return payload.length < 2 ? 1005 : ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Frame f && f.opcode == opcode && java.util.Arrays.equals(f.payload, payload);
        }

        @Override
        public int hashCode() {
            return opcode;
        }

        @Override
        public String toString() {
            return "Frame[" + opcode + " " + new String(payload, StandardCharsets.UTF_8) + "]";
        }
    }

    /**
     * Over HTTP/2 (RFC 8441): the server offers extended CONNECT; sockets open on two streams of
     * one connection answer with the agreed sub-protocol and echo, a third takes a message pushed
     * from another thread, a closing handshake ends its stream alone, and the connection serves on.
     */
    @Test
    void overHttp2SocketsOpenOnStreamsOfOneConnection() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        try (H2Connection c = suite.openH2(server().port())) {
            c.handshake();
            assertThat(c.serverSetting(SETTINGS_ENABLE_CONNECT_PROTOCOL)).as("SETTINGS_ENABLE_CONNECT_PROTOCOL").isEqualTo(1L);
            for (int stream : new int[] {1, 3}) {
                assertThat(openOverHttp2(c, stream, "/ws/h2-" + stream).header("sec-websocket-protocol")).isEqualTo("v1.echo");
                InputStream in = streamInput(c, stream);
                assertThat(text(readFrame(in))).isEqualTo("welcome to h2-" + stream + " (v1.echo)");
                c.data(stream, frame(true, 0x1, bytes("hello " + stream)), false);
                assertThat(text(readFrame(in))).isEqualTo("hello " + stream);
            }
            openOverHttp2(c, 5, "/feed");
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (feed.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            WebSocket.broadcast(feed, "news");
            assertThat(text(readFrame(streamInput(c, 5)))).isEqualTo("news");

            c.data(1, frame(true, 0x8, closePayload(1000, "bye")), false);
            InputStream in = streamInput(c, 1);
            assertThat(readFrame(in).code()).isEqualTo(1000);
            assertThat(in.read()).as("the closing handshake ends the stream").isEqualTo(-1);
            // sockets of earlier cases may report their closes meanwhile
            String close;
            do {
                close = closes.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } while (close != null && !close.equals("1000 bye"));
            assertThat(close).as("the endpoint heard the close").isEqualTo("1000 bye");

            c.data(3, frame(true, 0x1, bytes("still here")), false);
            assertThat(text(readFrame(streamInput(c, 3)))).isEqualTo("still here");
            c.request(7, "GET", "/plain", true);
            assertThat(c.response(7).bodyText()).isEqualTo("plain");
        }
    }

    private static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;

    private static String text(Frame f) {
        return new String(f.payload, StandardCharsets.UTF_8);
    }

    /** Sends an extended CONNECT for a WebSocket on {@code path} and reads its answer, which must be 200 with the stream open. */
    private static H2Response openOverHttp2(H2Connection c, int stream, String path) throws IOException {
        List<Header> fields = c.requestFields("CONNECT", path);
        fields.add(1, new Header(":protocol", "websocket"));
        fields.add(new Header("sec-websocket-version", "13"));
        fields.add(new Header("sec-websocket-protocol", "v1.echo"));
        c.headers(stream, false, fields);
        for (int i = 0; i < 1000; i++) {
            dev.spindle.conformance.h2.Frame f = c.readFrame();
            assertThat(f).as("the server answers the extended CONNECT").isNotNull();
            assertThat(f.type() == dev.spindle.conformance.h2.Frame.RST_STREAM && f.streamId() == stream
                    || f.type() == dev.spindle.conformance.h2.Frame.GOAWAY).as("refused: %s", f).isFalse();
            if (f.type() == dev.spindle.conformance.h2.Frame.HEADERS && f.streamId() == stream) {
                H2Response head = new H2Response(stream, f.fields(), new byte[0], List.of());
                assertThat(head.status()).isEqualTo(200);
                assertThat(f.has(dev.spindle.conformance.h2.Frame.END_STREAM)).as("the stream stays open").isFalse();
                return head;
            }
        }
        throw new AssertionError("no answer on stream " + stream);
    }

    /** The DATA of {@code stream} as a byte stream, ending at END_STREAM. */
    private static InputStream streamInput(H2Connection c, int stream) {
        return new InputStream() {
            private byte[] chunk = new byte[0];
            private int at;
            private boolean ended;

            @Override
            public int read() {
                while (at == chunk.length) {
                    if (ended) {
                        return -1;
                    }
                    dev.spindle.conformance.h2.Frame f = c.nextData(stream);
                    chunk = f.payload();
                    at = 0;
                    ended = f.has(dev.spindle.conformance.h2.Frame.END_STREAM);
                }
                return chunk[at++] & 0xFF;
            }
        };
    }

    /** One whole frame of the server's (RFC 6455 5.2), which must be unmasked and final. */
    static Frame readFrame(InputStream in) throws IOException {
        WebSocketWire.ServerFrame f = WebSocketWire.readServerFrame(in);
        assertThat(f.first() & 0x80).as("the server sends whole messages").isNotZero();
        return new Frame(f.opcode(), f.payload());
    }

    /** A client's frame, masked with a fixed key as RFC 6455 5.3 requires of clients. */
    static byte[] frame(boolean fin, int opcode, byte[] payload) {
        return WebSocketWire.clientFrame((fin ? 0x80 : 0) | opcode, payload);
    }

    private static byte[] unmasked(int opcode, byte[] payload) {
        return WebSocketWire.frame(0x80 | opcode, payload, false);
    }

    /** The header of a masked binary frame announcing {@code length} bytes, and none of them. */
    private static byte[] announcing(long length) {
        ByteBuffer b = ByteBuffer.allocate(14);
        b.put((byte) 0x82).put((byte) (0x80 | 127)).putLong(length).putInt(0x01020304);
        return b.array();
    }

    private static byte[] withFirstByte(byte[] frame, int first) {
        frame[0] = (byte) first;
        return frame;
    }

    private static byte[] closePayload(int code, String reason) {
        byte[] r = bytes(reason);
        byte[] p = new byte[2 + r.length];
        p[0] = (byte) (code >>> 8);
        p[1] = (byte) code;
        System.arraycopy(r, 0, p, 2, r.length);
        return p;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
