// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.testing.RawResponse;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A loop ticks a connection only when its tick is due: an idle one sleeps until its next deadline.
 * Its deadlines still come on time, also when the connection wakes from such a sleep (bytes
 * arrive, another thread sends).
 */
@Timeout(60)
class TickScheduleTest {
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    static Stream<Arguments> servers() {
        BiFunction<ServerConfig, Router, NioServer> multi = MultiLoopServer::new;
        BiFunction<ServerConfig, Router, NioServer> single = SingleLoopServer::new;
        return Stream.of(Arguments.of("MultiLoopServer", multi), Arguments.of("SingleLoopServer", single));
    }

    private static long millisSince(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aRequestBegunOnALongIdleConnectionGets408AtTheHeaderTimeout(String name, BiFunction<ServerConfig, Router, NioServer> factory)
            throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(1)
                .idleTimeout(Duration.ofSeconds(30)).headerTimeout(Duration.ofMillis(500));
        try (NioServer server = factory.apply(config, BenchmarkApp.routes()); RawConnection c = start(server)) {
            // ticked by now, and asleep until its idle timeout
            assertThat(c.staysOpen(1000)).isTrue();
            long started = System.nanoTime();
            RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n").read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(millisSince(started)).isBetween(400L, 2500L);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aKeepAliveConnectionClosesAtItsIdleTimeoutAndNotBefore(String name, BiFunction<ServerConfig, Router, NioServer> factory)
            throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(1).idleTimeout(Duration.ofMillis(1500));
        try (NioServer server = factory.apply(config, BenchmarkApp.routes()); RawConnection c = start(server)) {
            // a request after the first sleep moves the deadline on
            assertThat(c.staysOpen(700)).isTrue();
            assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long answered = System.nanoTime();
            assertThat(c.staysOpen(1200)).isTrue();
            assertThat(c.closedByPeer(5000)).isTrue();
            assertThat(millisSince(answered)).isBetween(1400L, 3000L);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anIdleWebSocketIsPingedAndClosedOnTime(String name, BiFunction<ServerConfig, Router, NioServer> factory) throws Exception {
        CompletableFuture<WebSocket> opened = new CompletableFuture<>();
        WebSocket.Endpoint endpoint = new WebSocket.Endpoint() {
            @Override
            public void onOpen(WebSocket socket) {
                opened.complete(socket);
            }

            @Override
            public void onText(WebSocket socket, String message) {
                socket.sendText(message);
            }
        };
        Router router = Router.builder()
                .websocket("/ws", endpoint, WebSocket.Options.defaults().pingInterval(Duration.ofMillis(800)).idleTimeout(Duration.ofMillis(3000)))
                .build();
        ServerConfig config = ServerConfig.defaults().port(0).workers(1);
        try (NioServer server = factory.apply(config, router); RawConnection c = start(server)) {
            c.socket().setSoTimeout(10_000);
            c.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n\r\n");
            DataInputStream in = new DataInputStream(c.input());
            assertThat(readHead(in)).startsWith("HTTP/1.1 101 ");
            long upgraded = System.nanoTime();
            // unanswered pings, one per interval
            assertThat(readFrame(in)).isEqualTo("9:");
            assertThat(millisSince(upgraded)).isBetween(700L, 1600L);
            assertThat(readFrame(in)).isEqualTo("9:");
            assertThat(millisSince(upgraded)).isBetween(1500L, 2600L);
            // input moves both deadlines on
            c.send(maskedText("hi"));
            long sent = System.nanoTime();
            assertThat(readFrame(in)).isEqualTo("1:hi");
            // a send from another thread on a connection the loop left asleep goes out at once
            Thread.sleep(300);
            long sending = System.nanoTime();
            opened.get(5, TimeUnit.SECONDS).sendText("from elsewhere");
            assertThat(readFrame(in)).isEqualTo("1:from elsewhere");
            assertThat(millisSince(sending)).isLessThan(500L);
            assertThat(readFrame(in)).isEqualTo("9:");
            assertThat(millisSince(sent)).isBetween(700L, 1600L);
            String frame;
            do {
                frame = readFrame(in);
            } while (frame.equals("9:"));
            assertThat(frame).startsWith("8:").endsWith("idle timeout");
            assertThat(millisSince(sent)).isBetween(2900L, 4000L);
        }
    }

    private static RawConnection start(NioServer server) throws IOException {
        server.start();
        return new RawConnection(server.port());
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("end of stream in the response head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** One unmasked server frame of less than 126 bytes, as "opcode:payload" (a close's payload after its code). */
    private static String readFrame(DataInputStream in) throws IOException {
        int opcode = in.readUnsignedByte() & 0x0F;
        int length = in.readUnsignedByte() & 0x7F;
        byte[] payload = in.readNBytes(length);
        int from = opcode == 8 && length >= 2 ? 2 : 0;
        return opcode + ":" + new String(payload, from, payload.length - from, StandardCharsets.UTF_8);
    }

    private static byte[] maskedText(String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        byte[] mask = {1, 2, 3, 4};
        byte[] frame = new byte[6 + payload.length];
        frame[0] = (byte) 0x81;
        frame[1] = (byte) (0x80 | payload.length);
        System.arraycopy(mask, 0, frame, 2, 4);
        for (int i = 0; i < payload.length; i++) {
            frame[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
        }
        return frame;
    }
}
