// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Next;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each HTTP/2 attack fed to one connection frame after frame, as fast as it takes them, with the
 * output read as a peer would: the connection must end the attack (GOAWAY with the expected code)
 * within a bounded number of frames, and the memory it holds (its buffers and its streams') must
 * stay under a bound that does not grow with the attack.
 */
class Http2AttackMemoryTest {
    /** What one connection may hold at any point of an attack: its buffers plus 128 streams' arrays. */
    private static final long BOUND = 512 * 1024;
    private static final int MAX_FRAMES = 20_000;

    private static final Router ROUTES = Router.builder()
            .get("/plaintext", (req, res) -> res.text("Hello, World!"))
            .get("/hang", Handler.async((req, res) -> new CompletableFuture<Void>()))
            .post("/echo", (req, res) -> res.body(req.body()))
            .build();

    private static byte[] hang(int stream) {
        return frame(HEADERS, END_HEADERS | END_STREAM, stream, block(":method", "GET", ":scheme", "http", ":path", "/hang"));
    }

    static Stream<Arguments> attacks() {
        byte[] bomb = bomb();
        return Stream.of(
                Arguments.of("Rapid Reset", (IntFunction<byte[]>) i -> concat(hang(1 + 2 * i), rst(1 + 2 * i, 8)), 0xb),
                Arguments.of("MadeYouReset", (IntFunction<byte[]>) i -> concat(hang(1 + 2 * i),
                        frame(WINDOW_UPDATE, 0, 1 + 2 * i, int32(0))), 0xb),
                Arguments.of("empty CONTINUATION flood", (IntFunction<byte[]>) i -> i == 0
                        ? frame(HEADERS, END_STREAM, 1, block(":method", "GET")) : frame(CONTINUATION, 0, 1, new byte[0]), 0xb),
                Arguments.of("CONTINUATION flood", (IntFunction<byte[]>) i -> i == 0
                        ? frame(HEADERS, END_STREAM, 1, block(":method", "GET"))
                        : frame(CONTINUATION, 0, 1, block("x-flood", "v".repeat(16_000))), 0xb),
                Arguments.of("SETTINGS flood", (IntFunction<byte[]>) i -> settings(0x4, 65_535), 0xb),
                Arguments.of("PING flood", (IntFunction<byte[]>) i -> ping(i), 0xb),
                Arguments.of("empty DATA flood", (IntFunction<byte[]>) i -> i == 0
                        ? post(1, "/echo") : frame(DATA, 0, 1, new byte[0]), 0xb),
                Arguments.of("streams that never finish", (IntFunction<byte[]>) i -> hang(1 + 2 * i), -1),
                Arguments.of("HPACK bomb per stream", (IntFunction<byte[]>) i -> frame(HEADERS, END_HEADERS | END_STREAM, 1 + 2 * i, bomb), -1),
                Arguments.of("window overflow", (IntFunction<byte[]>) i -> windowUpdate(0, Integer.MAX_VALUE), 0x3));
    }

    /** A request whose header list is 4 MiB: one 4 KiB field indexed, then referenced a thousand times. */
    private static byte[] bomb() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(block(":method", "GET", ":scheme", "http", ":path", "/plaintext"));
        b.write(0x40);
        integer(b, 6, 7, 0);
        b.writeBytes("x-bomb".getBytes(StandardCharsets.US_ASCII));
        integer(b, 4000, 7, 0);
        b.writeBytes("b".repeat(4000).getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 1000; i++) {
            b.write(0x80 | 62);
        }
        return b.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attacks")
    void theAttackEndsAndMemoryStaysBounded(String name, IntFunction<byte[]> frames, int goAwayCode) {
        Http2Connection c = new Http2Connection(ROUTES, ServerConfig.defaults(), null, () -> { }, null);
        H2Peer peer = new H2Peer(c).start();
        long most = 0;
        int sent = 0;
        for (; sent < MAX_FRAMES && c.next() != Next.LINGER && c.next() != Next.CLOSE; sent++) {
            c.received(ByteBuffer.wrap(frames.apply(sent)));
            peer.read();
            most = Math.max(most, c.retainedBytes());
        }
        assertThat(most).as("%s: the most the connection held", name).isLessThan(BOUND);
        if (goAwayCode >= 0) {
            assertThat(sent).as("%s: frames taken before the connection ended it", name).isLessThan(MAX_FRAMES);
            assertThat(peer.frames()).as(name).anyMatch(f -> f.type() == GOAWAY && f.errorCode() == goAwayCode);
        }
    }
}
