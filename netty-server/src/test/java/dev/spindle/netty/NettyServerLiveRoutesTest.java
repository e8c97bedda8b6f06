// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.WebSocketWire;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The WebSocket and server-sent-event routes, on both HTTP/1.1 pipelines the server builds: with
 * h2c (the default: a request with an Upgrade header reaches the app aggregated by the h2c upgrade
 * handler) and without ({@code -Dspindle.h2c=false}: the app sees the handshake's head and its
 * empty last content apart).
 */
class NettyServerLiveRoutesTest {
    private static final long WAIT_SECONDS = 10;
    private static final Map<Boolean, NettyServer> servers = new HashMap<>();
    private static HttpClient client;

    @BeforeAll
    static void start() throws IOException {
        servers.put(true, new NettyServer("127.0.0.1", 0, 2).start());
        System.setProperty("spindle.h2c", "false");
        try {
            servers.put(false, new NettyServer("127.0.0.1", 0, 2).start());
        } finally {
            System.clearProperty("spindle.h2c");
        }
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The servers first: their close ends any WebSocket a failed case left open, which the client's close would wait for. */
    @AfterAll
    static void stop() {
        servers.values().forEach(NettyServer::close);
        if (client != null) {
            client.close();
        }
    }

    private static int port(boolean h2c) {
        return servers.get(h2c).address().getPort();
    }

    private static URI uri(String scheme, boolean h2c, String path) {
        return URI.create(scheme + "://127.0.0.1:" + port(h2c) + path);
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void echoSendsBackTextAndBinaryWholeAndTheCloseCode(boolean h2c) throws Exception {
        Messages got = new Messages();
        WebSocket ws = client.newWebSocketBuilder().buildAsync(uri("ws", h2c, "/ws/echo"), got)
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            ws.sendText("héllo, wörld", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.next()).isEqualTo("héllo, wörld");

            // two fragments come back as one message
            ws.sendText("frag", false).get(WAIT_SECONDS, TimeUnit.SECONDS);
            ws.sendText("mented", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.next()).isEqualTo("fragmented");

            // 1 MiB in one frame: past Netty's default 64 KiB frame limit, within the route's 16 MiB
            byte[] big = new byte[1024 * 1024];
            new Random(7).nextBytes(big);
            ws.sendBinary(ByteBuffer.wrap(big), true).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.next()).isEqualTo(big);

            ws.sendClose(4001, "done").get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.closed.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(4001);
        } finally {
            ws.abort();
        }
    }

    /** The JDK's client offers no extensions, so permessage-deflate is checked on the wire. */
    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void echoTakesPermessageDeflateWhenOffered(boolean h2c) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port(h2c))) {
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            Map<String, String> head = handshake(s, "/ws/echo", "permessage-deflate");
            assertThat(head.get("sec-websocket-extensions")).startsWith("permessage-deflate");

            byte[] text = "compress me, compress me, compress me".getBytes(StandardCharsets.UTF_8);
            Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            deflater.setInput(text);
            byte[] out = new byte[256];
            int n = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
            deflater.end();
            // RFC 7692 7.2.1: the sync flush's trailing 00 00 ff ff is left off
            s.getOutputStream().write(WebSocketWire.clientFrame(0xC1, Arrays.copyOf(out, n - 4)));

            WebSocketWire.ServerFrame frame = WebSocketWire.readServerFrame(s.getInputStream());
            assertThat(frame.first()).as("FIN, RSV1 (compressed), text").isEqualTo(0xC1);
            byte[] payload = frame.payload();
            Inflater inflater = new Inflater(true);
            inflater.setInput(concat(payload, new byte[] {0, 0, (byte) 0xff, (byte) 0xff}));
            byte[] inflated = new byte[256];
            int m = inflater.inflate(inflated);
            inflater.end();
            assertThat(Arrays.copyOf(inflated, m)).isEqualTo(text);
        }
    }

    /** A handshake pipelined behind an answer that waits (queued in the app) still upgrades, after that answer. */
    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void aHandshakePipelinedBehindAWaitingAnswer(boolean h2c) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port(h2c))) {
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            OutputStream out = s.getOutputStream();
            out.write(("GET /delay/20 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            Map<String, String> delayed = readHead(in);
            assertThat(delayed.get(":status")).isEqualTo("200");
            assertThat(new String(in.readNBytes(Integer.parseInt(delayed.get("content-length"))), StandardCharsets.US_ASCII))
                    .isEqualTo("{\"delayed\":20}");
            assertThat(readHead(in).get(":status")).isEqualTo("101");
            out.write(WebSocketWire.clientFrame(0x81, "after the wait".getBytes(StandardCharsets.UTF_8)));
            WebSocketWire.ServerFrame echo = WebSocketWire.readServerFrame(in);
            assertThat(echo.first()).as("FIN, text").isEqualTo(0x81);
            assertThat(echo.text()).isEqualTo("after the wait");
        }
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void broadcastNegotiatesNoCompression(boolean h2c) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port(h2c))) {
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(handshake(s, "/ws/broadcast", "permessage-deflate")).doesNotContainKey("sec-websocket-extensions");
        }
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void broadcastIsHeardByEveryMemberIncludingTheSender(boolean h2c) throws Exception {
        List<Messages> got = new ArrayList<>();
        List<WebSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Messages messages = new Messages();
                got.add(messages);
                sockets.add(client.newWebSocketBuilder().buildAsync(uri("ws", h2c, "/ws/broadcast"), messages)
                        .get(WAIT_SECONDS, TimeUnit.SECONDS));
            }
            // one sender at a time: two senders' messages may reach a member in either order (each
            // sender's event loop writes at once to the members it serves, and hands the others' writes over)
            for (int sender : new int[] {0, 2}) {
                String message = "from socket " + sender;
                sockets.get(sender).sendText(message, true).get(WAIT_SECONDS, TimeUnit.SECONDS);
                for (int i = 0; i < 3; i++) {
                    assertThat(got.get(i).next()).as("socket %d", i).isEqualTo(message);
                }
            }
            // a member that left hears nothing more, and the others still hear each other
            sockets.get(1).sendClose(WebSocket.NORMAL_CLOSURE, "").get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.get(1).closed.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
            sockets.get(0).sendText("after one left", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(got.get(0).next()).isEqualTo("after one left");
            assertThat(got.get(2).next()).isEqualTo("after one left");
            assertThat(got.get(1).messages).isEmpty();
        } finally {
            sockets.forEach(WebSocket::abort);
        }
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void aWebSocketRouteAsksForAnUpgrade(boolean h2c) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("http", h2c, "/ws/echo")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(426);
        assertThat(response.headers().firstValue("upgrade")).hasValue("websocket");
        // the connection is still HTTP: the same client's next request is answered
        assertThat(client.send(HttpRequest.newBuilder(uri("http", h2c, "/plaintext")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("Hello, World!");
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void aStreamGetsEveryPublishedEventInOrderOneChunkEach(boolean h2c) throws Exception {
        try (EventStream first = new EventStream(h2c, ""); EventStream second = new EventStream(h2c, "")) {
            for (EventStream stream : List.of(first, second)) {
                assertThat(stream.head.get(":status")).isEqualTo("200");
                assertThat(stream.head.get("content-type")).isEqualTo("text/event-stream");
                assertThat(stream.head.get("cache-control")).isEqualTo("no-cache");
                assertThat(stream.head.get("transfer-encoding")).isEqualTo("chunked");
            }
            assertThat(publish(h2c, "one")).isEqualTo(204);
            assertThat(publish(h2c, "twö")).isEqualTo(204);
            for (EventStream stream : List.of(first, second)) {
                assertThat(stream.nextChunk()).isEqualTo("data: one\n\n");
                assertThat(stream.nextChunk()).isEqualTo("data: twö\n\n");
            }
        }
    }

    /** A connection that had the compressor put in for {@code /users-list}, and accepts gzip, still gets its events plain. */
    @Test
    void aStreamAfterUsersListIsNotCompressed() throws Exception {
        try (EventStream stream = new EventStream(true, "GET /users-list HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")) {
            assertThat(stream.head.get(":status")).isEqualTo("200");
            assertThat(stream.head).doesNotContainKey("content-encoding");
            assertThat(publish(true, "plain")).isEqualTo(204);
            assertThat(stream.nextChunk()).isEqualTo("data: plain\n\n");
        }
    }

    @ParameterizedTest(name = "h2c {0}")
    @ValueSource(booleans = {true, false})
    void publishRefusesALineBreakOrMoreThan1KiB(boolean h2c) throws Exception {
        try (EventStream stream = new EventStream(h2c, "")) {
            assertThat(publish(h2c, "two\nlines")).isEqualTo(400);
            assertThat(publish(h2c, "a\rreturn")).isEqualTo(400);
            assertThat(publish(h2c, "x".repeat(1025))).isEqualTo(400);
            String most = "y".repeat(1024);
            assertThat(publish(h2c, most)).isEqualTo(204);
            // none of the refused bodies reached the stream
            assertThat(stream.nextChunk()).isEqualTo("data: " + most + "\n\n");
        }
    }

    /** HTTP/2 has none of these routes: the h2c upgrade answers it 404 on stream 1. */
    @Test
    void http2DoesNotServeThem() throws Exception {
        try (HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            HttpResponse<String> response = h2.send(HttpRequest.newBuilder(uri("http", true, "/sse/broadcast")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(response.statusCode()).isEqualTo(404);
        }
    }

    private static int publish(boolean h2c, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(uri("http", h2c, "/sse/publish"))
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** A client's WebSocket listener: whole messages (a String or a byte[]) in order, and the close code it got. */
    private static final class Messages implements WebSocket.Listener {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        Object next() throws InterruptedException {
            Object message = messages.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(message).as("a message within %d s", WAIT_SECONDS).isNotNull();
            return message;
        }
    }

    /** {@code GET /sse/broadcast} on a raw connection, after whatever {@code before} asks (its answer read and skipped). */
    private static final class EventStream implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        final Map<String, String> head;

        EventStream(boolean h2c, String before) throws IOException {
            socket = new Socket("127.0.0.1", port(h2c));
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            if (!before.isEmpty()) {
                out.write(before.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                Map<String, String> answer = readHead(in);
                assertThat(answer.get("content-encoding")).as("the earlier answer, compressed").isEqualTo("gzip");
                if (answer.containsKey("content-length")) {
                    in.readNBytes(Integer.parseInt(answer.get("content-length")));
                } else {
                    for (int n; (n = Integer.parseInt(line(in), 16)) > 0; line(in)) {
                        in.readNBytes(n);
                    }
                    line(in);
                }
            }
            out.write("GET /sse/broadcast HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            head = readHead(in);
        }

        /** The next chunk of the body, whole, as UTF-8. */
        String nextChunk() throws IOException {
            int size = Integer.parseInt(line(in), 16);
            String chunk = new String(in.readNBytes(size), StandardCharsets.UTF_8);
            assertThat(line(in)).as("the chunk's CRLF").isEmpty();
            return chunk;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** A client handshake offering {@code extensions}; the 101's head, names lower-cased. */
    private static Map<String, String> handshake(Socket s, String path, String extensions) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: " + extensions + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Map<String, String> head = readHead(s.getInputStream());
        assertThat(head.get(":status")).isEqualTo("101");
        // RFC 6455's own example key and its accept value
        assertThat(head.get("sec-websocket-accept")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        return head;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** A response's head: {@code :status}, then each header, names lower-cased. */
    private static Map<String, String> readHead(InputStream in) throws IOException {
        Map<String, String> head = new HashMap<>();
        String status = line(in);
        assertThat(status).startsWith("HTTP/1.1 ");
        head.put(":status", status.substring(9, 12));
        for (String h; !(h = line(in)).isEmpty(); ) {
            int colon = h.indexOf(':');
            head.put(h.substring(0, colon).toLowerCase(Locale.ROOT), h.substring(colon + 1).strip());
        }
        return head;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("connection closed after " + b);
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }
}
