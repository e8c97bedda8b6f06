// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.WebSocketWire;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The WebSocket and event-stream routes on a running {@link VertxServer} with two event loops, so
 * that connections land on different loops (Vert.x hands them out in turn) and the broadcasts cross
 * them.
 */
class VertxLiveRoutesTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static VertxServer server;
    private static HttpClient http;
    private final List<WebSocket> opened = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        server = new VertxServer("127.0.0.1", 0, 2).start();
        // HTTP/1.1 named: the JDK client would otherwise ask for h2c, which Vert.x grants
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(WAIT).build();
    }

    /** A failed case leaves its sockets open: aborted here, so that the next case and the shutdown do not wait on them. */
    @AfterEach
    void abortOpenSockets() {
        opened.forEach(WebSocket::abort);
        opened.clear();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (http != null) {
            // its kept-alive connections closed before the server's graceful shutdown, which would wait on them
            http.shutdownNow();
            http.awaitTermination(WAIT);
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void echoSendsTextAsTextAndBinaryAsBinary() throws Exception {
        Received in = new Received();
        WebSocket ws = open("/ws/echo", in);
        ws.sendText("héllo, wörld", true).get(10, TimeUnit.SECONDS);
        assertThat(in.next()).isEqualTo("text:héllo, wörld");

        byte[] bytes = new byte[70_000];
        new Random(7).nextBytes(bytes);
        ws.sendBinary(ByteBuffer.wrap(bytes), true).get(10, TimeUnit.SECONDS);
        assertThat(in.nextBinary()).isEqualTo(bytes);

        // two fragments, one message back
        ws.sendText("frag", false).get(10, TimeUnit.SECONDS);
        ws.sendText("mented", true).get(10, TimeUnit.SECONDS);
        assertThat(in.next()).isEqualTo("text:fragmented");

        // past Vert.x's default limits (64 KiB a frame, 256 KiB a message)
        String big = "x".repeat(1 << 20);
        ws.sendText(big, true).get(10, TimeUnit.SECONDS);
        assertThat(in.next()).isEqualTo("text:" + big);

        ws.sendClose(4321, "bye").get(10, TimeUnit.SECONDS);
        assertThat(in.next()).isEqualTo("close:4321");
    }

    @Test
    void echoDeclinesPermessageDeflateAndEchoesUncompressed() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            String head = WebSocketWire.readHead(in).toLowerCase(Locale.ROOT);
            assertThat(head).startsWith("http/1.1 101 ").doesNotContain("sec-websocket-extensions");

            String text = "not compressed ".repeat(20);
            out.write(WebSocketWire.clientFrame(0x81, text.getBytes(StandardCharsets.UTF_8)));
            WebSocketWire.ServerFrame echo = WebSocketWire.readServerFrame(in);
            assertThat(echo.first()).as("FIN and text, no RSV1").isEqualTo(0x81);
            assertThat(echo.text()).isEqualTo(text);
        }
    }

    @Test
    void broadcastReachesEveryMemberIncludingTheSender() throws Exception {
        List<Received> ins = new ArrayList<>();
        List<WebSocket> sockets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Received in = new Received();
            ins.add(in);
            sockets.add(open("/ws/broadcast", in));
        }
        // each member hears its own hello only once it is in the room: then all three are in
        for (int i = 0; i < 3; i++) {
            sockets.get(i).sendText("hello " + i, true).get(10, TimeUnit.SECONDS);
            ins.get(i).await("text:hello " + i);
        }
        sockets.get(1).sendText("to all", true).get(10, TimeUnit.SECONDS);
        for (Received in : ins) {
            in.await("text:to all");
        }
        assertThat(server.live().roomSize()).isEqualTo(3);
        for (WebSocket ws : sockets) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
        }
        awaitTrue(() -> server.live().roomSize() == 0, "members leave the room on close");
    }

    @Test
    void eventStreamGetsPublishedEventsInOrderEachAsOneChunk() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /sse/broadcast HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            // the head arrives with no event published: it was flushed at once
            String head = WebSocketWire.readHead(in).toLowerCase(Locale.ROOT);
            assertThat(head).startsWith("http/1.1 200 ")
                    .contains("\r\ncontent-type: text/event-stream\r\n")
                    .contains("\r\ncache-control: no-cache\r\n")
                    .contains("\r\ntransfer-encoding: chunked\r\n");

            assertThat(publish("first").statusCode()).isEqualTo(204);
            assertThat(publish("second, ünïcode").statusCode()).isEqualTo(204);
            assertThat(chunk(in)).isEqualTo("data: first\n\n");
            assertThat(chunk(in)).isEqualTo("data: second, ünïcode\n\n");
        }
        awaitTrue(() -> server.live().streamCount() == 0, "a closed stream leaves the set");
    }

    @Test
    void publishRefusesALineBreakOrMoreThanOneKibibyte() throws Exception {
        assertThat(publish("two\nlines").statusCode()).isEqualTo(400);
        assertThat(publish("carriage\rreturn").statusCode()).isEqualTo(400);
        assertThat(publish("y".repeat(LiveRoutes.MAX_EVENT_DATA + 1)).statusCode()).isEqualTo(400);
        assertThat(publish("y".repeat(LiveRoutes.MAX_EVENT_DATA)).statusCode()).isEqualTo(204);
    }

    private static HttpResponse<String> publish(String data) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/sse/publish"))
                .timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofString(data, StandardCharsets.UTF_8))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private WebSocket open(String path, Received in) throws Exception {
        WebSocket ws = http.newWebSocketBuilder()
                .connectTimeout(WAIT)
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + path), in)
                .get(10, TimeUnit.SECONDS);
        opened.add(ws);
        return ws;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out: " + what);
            }
            Thread.sleep(10);
        }
    }

    /** What a JDK WebSocket receives, whole messages as "text:...", binaries by themselves, and "close:code". */
    private static final class Received implements WebSocket.Listener {
        private final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add("text:" + text);
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
            messages.add("close:" + statusCode);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            messages.add("error:" + error);
        }

        Object take() throws InterruptedException {
            Object message = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (message == null) {
                throw new AssertionError("nothing received within " + WAIT);
            }
            return message;
        }

        String next() throws InterruptedException {
            Object message = take();
            assertThat(message).isInstanceOf(String.class);
            return (String) message;
        }

        byte[] nextBinary() throws InterruptedException {
            Object message = take();
            if (!(message instanceof byte[] bytes)) {
                // not the message itself: it may be a megabyte of text
                throw new AssertionError("a binary message expected, got a " + message.getClass().getSimpleName());
            }
            return bytes;
        }

        /** Skips other members' messages until {@code expected}. */
        void await(String expected) throws InterruptedException {
            while (!expected.equals(take())) {
                // another member's message, not the one awaited
            }
        }
    }

    /** One chunk of a chunked body, decoded as UTF-8. */
    private static String chunk(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (!line.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed before a chunk");
            }
            line.write(b);
        }
        int size = Integer.parseInt(line.toString(StandardCharsets.ISO_8859_1).trim(), 16);
        byte[] data = in.readNBytes(size);
        assertThat(in.readNBytes(2)).as("CRLF after the chunk").isEqualTo(new byte[] {'\r', '\n'});
        return new String(data, StandardCharsets.UTF_8);
    }
}
