// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.Client;
import dev.spindle.core.ClientException;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.client.SocketDriver;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client ({@link Client#webSocket}) against Spindle's own server connection, served over real
 * loopback sockets by {@link SocketDriver}, and against raw sockets that answer the handshake
 * wrongly.
 */
class WebSocketClientTest {
    private final List<String> serverEvents = new CopyOnWriteArrayList<>();
    private final WebSocket.Endpoint echo = new WebSocket.Endpoint() {
        @Override
        public void onText(WebSocket s, String message) {
            if (message.startsWith("close ")) {
                s.close(Integer.parseInt(message.substring(6)), "server says");
            } else {
                s.sendText(message);
            }
        }

        @Override
        public void onBinary(WebSocket s, ByteBuffer message) {
            s.sendBinary(message);
        }

        @Override
        public void onClose(WebSocket s, int code, String reason) {
            serverEvents.add("close " + code + " " + reason);
        }
    };

    private ServerSocket server;
    private final Client client = Client.create();

    @BeforeEach
    void start() throws IOException {
        Router router = Router.builder()
                .websocket("/echo", echo, WebSocket.Options.defaults().maxMessageSize(2 << 20))
                .websocket("/deflate", echo, WebSocket.Options.defaults().compression(true))
                .websocket("/hello", new WebSocket.Endpoint() {
                    @Override
                    public void onOpen(WebSocket s) {
                        s.sendText("token " + s.request().header("X-Token"));
                    }
                })
                .websocket("/proto", echo, WebSocket.Options.defaults().subprotocols("chat.v2", "chat.v1"))
                .build();
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    SocketDriver driver = new SocketDriver(s);
                    Connection c = Connection.open(router, ServerConfig.defaults(), null, driver::wake);
                    driver.start(c, () -> Next.READ);
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        client.close();
    }

    private String url(String path) {
        return "ws://127.0.0.1:" + server.getLocalPort() + path;
    }

    /** Records what the client's socket hears. */
    static final class Recorder implements WebSocket.Endpoint {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> closed = new CompletableFuture<>();

        @Override
        public void onText(WebSocket s, String message) {
            messages.add(message);
        }

        @Override
        public void onBinary(WebSocket s, ByteBuffer message) {
            byte[] b = new byte[message.remaining()];
            message.get(b);
            messages.add(b);
        }

        @Override
        public void onPong(WebSocket s, ByteBuffer payload) {
            messages.add("pong " + StandardCharsets.UTF_8.decode(payload));
        }

        @Override
        public void onClose(WebSocket s, int code, String reason) {
            closed.complete(code + " " + reason);
        }

        Object next() throws InterruptedException {
            Object m = messages.poll(10, TimeUnit.SECONDS);
            assertThat(m).as("a message within 10 s").isNotNull();
            return m;
        }
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 125, 126, 65_535, 65_536, 1 << 20})
    void echoesTextAndBinaryOfEverySize(int size) throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket(url("/echo")).maxMessageSize(2 << 20).connect(r));
        byte[] data = new byte[size];
        new java.util.Random(size).nextBytes(data);
        await(ws.sendBinary(ByteBuffer.wrap(data)));
        assertThat((byte[]) r.next()).isEqualTo(data);
        String text = "é€".repeat(size / 5 + 1);
        await(ws.sendText(text));
        assertThat(r.next()).isEqualTo(text);
        await(ws.close(1000, "done"));
        assertThat(r.closed.get(10, TimeUnit.SECONDS)).isEqualTo("1000 ");
    }

    @Test
    void theHandshakeCarriesTheCallersHeaders() throws Exception {
        Recorder r = new Recorder();
        await(client.webSocket(url("/hello")).header("X-Token", "t-42").connect(r));
        assertThat(r.next()).isEqualTo("token t-42");
    }

    @Test
    void aBlockingEndpointMayWaitForItsSends() throws Exception {
        Recorder r = new Recorder();
        WebSocket.Endpoint waiting = new WebSocket.Endpoint() {
            @Override
            public void onText(WebSocket s, String message) throws Exception {
                if (message.equals("one")) {
                    s.sendText("two").toCompletableFuture().get(5, TimeUnit.SECONDS);
                } else {
                    r.onText(s, message);
                }
            }
        };
        WebSocket ws = await(client.webSocket(url("/echo"), WebSocket.Endpoint.blocking(waiting)));
        await(ws.sendText("one"));
        assertThat(r.next()).isEqualTo("two");
    }

    @Test
    void aPingIsAnsweredWithAPong() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket(url("/echo"), r));
        await(ws.ping(ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8))));
        assertThat(r.next()).isEqualTo("pong hi");
    }

    @Test
    void theClientsCloseCodeReachesTheServerAndIsEchoed() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket(url("/echo"), r));
        await(ws.close(4000, "bye"));
        assertThat(r.closed.get(10, TimeUnit.SECONDS)).isEqualTo("4000 ");
        assertThat(ws.isOpen()).isFalse();
        awaitCondition(() -> serverEvents.contains("close 4000 bye"));
    }

    @Test
    void closingTheClientClosesItsSocketsWith1001() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket(url("/echo"), r));
        client.close();
        assertThat(r.closed.get(10, TimeUnit.SECONDS)).startsWith("1001");
        awaitCondition(() -> serverEvents.stream().anyMatch(e -> e.startsWith("close 1001")));
        assertThat(ws.isOpen()).isFalse();
    }

    @Test
    void theServersCloseCodeReachesTheClient() throws Exception {
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket(url("/echo"), r));
        ws.sendText("close 4001");
        assertThat(r.closed.get(10, TimeUnit.SECONDS)).isEqualTo("4001 server says");
        await(ws.closed());
    }

    @Test
    void theAgreedSubprotocolIsTheServersChoice() throws Exception {
        WebSocket ws = await(client.webSocket(url("/proto")).subprotocols("chat.v1", "chat.v2").connect(new Recorder()));
        assertThat(ws.subprotocol()).isEqualTo("chat.v2");
        WebSocket none = await(client.webSocket(url("/echo")).subprotocols("chat.v1").connect(new Recorder()));
        assertThat(none.subprotocol()).isNull();
    }

    @Test
    void permessageDeflateIsAgreedAndCompressesBothWays() throws Exception {
        AtomicLong toServer = new AtomicLong();
        AtomicLong toClient = new AtomicLong();
        int port = countingProxy(server.getLocalPort(), toServer, toClient);
        Recorder r = new Recorder();
        WebSocket ws = await(client.webSocket("ws://127.0.0.1:" + port + "/deflate").compression(true).connect(r));
        String text = "compress me, compress me again. ".repeat(10_000);
        await(ws.sendText(text));
        assertThat(r.next()).isEqualTo(text);
        await(ws.sendBinary(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8))));
        assertThat(new String((byte[]) r.next(), StandardCharsets.UTF_8)).isEqualTo(text);
        // two 320,000-byte messages each way, plus the handshake
        assertThat(toServer.get()).as("client to server bytes").isLessThan(20_000);
        assertThat(toClient.get()).as("server to client bytes").isLessThan(20_000);
    }

    @Test
    void aRefusedHandshakeFailsWithItsStatus() throws Exception {
        assertThatThrownBy(() -> await(client.webSocket(url("/nowhere"), new Recorder())))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ClientException.class)
                .hasMessageContaining("status 404")
                .satisfies(e -> assertThat(((ClientException) e).reason()).isEqualTo(ClientException.Reason.HANDSHAKE_FAILED));
    }

    static Stream<Arguments> badAnswers() {
        Function<String, String> good = accept -> "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + accept + "\r\n";
        return Stream.of(
                Arguments.of("426", (Function<String, String>) a -> "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\n"
                        + "Content-Length: 0\r\n", "status 426 Upgrade Required"),
                Arguments.of("200", (Function<String, String>) a -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n", "status 200"),
                Arguments.of("wrong accept", (Function<String, String>) a -> good.apply("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
                        "Sec-WebSocket-Accept is [s3pPLMBiTxaQ9kYGzzhZRbK+xOo=]"),
                Arguments.of("no accept", (Function<String, String>) a -> "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                        + "Connection: Upgrade\r\n", "Sec-WebSocket-Accept is missing"),
                Arguments.of("no upgrade", (Function<String, String>) a -> "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + a + "\r\n", "no Upgrade: websocket"),
                Arguments.of("subprotocol not offered", (Function<String, String>) a -> good.apply(a) + "Sec-WebSocket-Protocol: mqtt\r\n",
                        "the sub-protocol [mqtt] was not offered"),
                Arguments.of("extension not offered", (Function<String, String>) a -> good.apply(a)
                        + "Sec-WebSocket-Extensions: permessage-deflate\r\n", "were not offered"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badAnswers")
    void aBadHandshakeAnswerFails(String name, Function<String, String> answer, String expected) throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            rawServer(raw, key -> (answer.apply(WebSocketHandshake.accept(key)) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            assertThatThrownBy(() -> await(client.webSocket("ws://127.0.0.1:" + raw.getLocalPort() + "/x", new Recorder())))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ClientException.class)
                    .hasMessageContaining(expected);
        }
    }

    @Test
    void aMaskedServerFrameFailsTheSocketWith1002() throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            rawServer(raw, key -> {
                byte[] head = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                        + WebSocketHandshake.accept(key) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                byte[] frame = WebSocketFrames.frame(true, false, WebSocketFrames.TEXT, "masked".getBytes(StandardCharsets.UTF_8),
                        new java.util.Random(1));
                byte[] all = Arrays.copyOf(head, head.length + frame.length);
                System.arraycopy(frame, 0, all, head.length, frame.length);
                return all;
            });
            Recorder r = new Recorder();
            await(client.webSocket("ws://127.0.0.1:" + raw.getLocalPort() + "/x", r));
            assertThat(r.closed.get(10, TimeUnit.SECONDS)).startsWith("1002 ");
            assertThat(r.messages).isEmpty();
        }
    }

    @Test
    void clientFramesAreMaskedWithAFreshKeyEach() throws Exception {
        try (ServerSocket raw = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> received = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try (Socket s = raw.accept()) {
                    String key = readKey(s.getInputStream());
                    s.getOutputStream().write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Accept: " + WebSocketHandshake.accept(key) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    received.complete(s.getInputStream().readNBytes(2 * (2 + 4 + 3)));
                } catch (IOException e) {
                    received.completeExceptionally(e);
                }
            });
            WebSocket ws = await(client.webSocket("ws://127.0.0.1:" + raw.getLocalPort() + "/x", new Recorder()));
            ws.sendText("abc");
            ws.sendText("abc");
            byte[] b = received.get(10, TimeUnit.SECONDS);
            assertThat(b[1] & 0x80).as("mask bit").isEqualTo(0x80);
            assertThat(b[10] & 0x80).as("mask bit").isEqualTo(0x80);
            assertThat(Arrays.copyOfRange(b, 2, 6)).as("a key per frame").isNotEqualTo(Arrays.copyOfRange(b, 11, 15));
            for (int f = 0; f < 2; f++) {
                int at = f * 9;
                byte[] text = new byte[3];
                for (int i = 0; i < 3; i++) {
                    text[i] = (byte) (b[at + 6 + i] ^ b[at + 2 + i]);
                }
                assertThat(new String(text, StandardCharsets.UTF_8)).isEqualTo("abc");
            }
        }
    }

    @Test
    void anUnsupportedSchemeIsRefusedBeforeConnecting() {
        assertThatThrownBy(() -> await(client.webSocket("ftp://127.0.0.1:1/x", new Recorder())))
                .cause().isInstanceOf(ClientException.class).hasMessageContaining("only ws: and wss:");
    }

    /** Answers one handshake with {@code answer} applied to the request's key, then holds the socket open. */
    private static void rawServer(ServerSocket raw, Function<String, byte[]> answer) {
        Thread.ofVirtual().start(() -> {
            try (Socket s = raw.accept()) {
                String key = readKey(s.getInputStream());
                s.getOutputStream().write(answer.apply(key));
                s.getInputStream().read(new byte[1024]);
                Thread.sleep(500);
            } catch (IOException | InterruptedException e) {
                // the test is over
            }
        });
    }

    private static String readKey(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("no request");
            }
            head.write(b);
        }
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("sec-websocket-key:")) {
                return line.substring(18).trim();
            }
        }
        throw new IOException("no key");
    }

    /** A proxy to {@code port} counting the bytes each way. */
    private static int countingProxy(int port, AtomicLong up, AtomicLong down) throws IOException {
        ServerSocket proxy = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try (proxy; Socket a = proxy.accept(); Socket b = new Socket(InetAddress.getLoopbackAddress(), port)) {
                Thread t = Thread.ofVirtual().start(() -> pipe(a, b, up));
                pipe(b, a, down);
                t.join();
            } catch (IOException | InterruptedException e) {
                // the test is over
            }
        });
        return proxy.getLocalPort();
    }

    private static void pipe(Socket from, Socket to, AtomicLong count) {
        byte[] buf = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
                count.addAndGet(n);
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // one side closed
        }
    }

    private static void awaitCondition(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(end);
            Thread.sleep(5);
        }
    }
}
