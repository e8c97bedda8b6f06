// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A connection's deadlines come on time after it slept: the strategies tick a quiet connection
 * only when its next deadline is due (an event loop skips it, a blocking one parks until then), so
 * these check that the deadline that follows a sleep is kept: a request begun on a long-idle
 * connection gets its 408 at the header timeout, a keep-alive connection closes at its idle timeout
 * and not before, and an idle WebSocket is pinged each interval, answers a send from another thread
 * at once and closes at its idle timeout. Each case starts a server of its own, with short timeouts.
 */
@org.junit.jupiter.api.Tag("deadlines")
@org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class DeadlineCases extends SuiteSection {
    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    /** The cases, run against servers of {@code suite}, the suite that runs them. */
    protected DeadlineCases(SuiteTarget suite) {
        super(suite);
    }

    @Override
    protected Router router() {
        return Router.builder().get("/plaintext", (req, res) -> res.text("Hello, World!")).build();
    }

    private static long millisSince(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    @Test
    void aRequestBegunOnALongIdleConnectionGets408AtTheHeaderTimeout() throws Exception {
        ServerConfig config = suite.config().idleTimeout(Duration.ofSeconds(30)).headerTimeout(Duration.ofMillis(500));
        try (HttpServer server = suite.start(config, router()); RawConnection c = suite.connect(server.port())) {
            // ticked by now, and asleep until its idle timeout
            assertThat(c.staysOpen(1000)).isTrue();
            long started = System.nanoTime();
            assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n").read().status()).isEqualTo(408);
            assertThat(millisSince(started)).isBetween(400L, 2500L);
        }
    }

    @Test
    void aKeepAliveConnectionClosesAtItsIdleTimeoutAndNotBefore() throws Exception {
        Assumptions.assumeTrue(suite.keepsConnectionsOpen(), "the server closes after each response");
        ServerConfig config = suite.config().idleTimeout(Duration.ofMillis(1500));
        try (HttpServer server = suite.start(config, router()); RawConnection c = suite.connect(server.port())) {
            // a request after the first sleep moves the deadline on
            assertThat(c.staysOpen(700)).isTrue();
            assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long answered = System.nanoTime();
            assertThat(c.staysOpen(1200)).isTrue();
            assertThat(c.closedByPeer(5000)).isTrue();
            assertThat(millisSince(answered)).isBetween(1400L, 3000L);
        }
    }

    @Test
    void anIdleWebSocketIsPingedAndClosedOnTime() throws Exception {
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
        try (HttpServer server = suite.start(suite.config(), router); RawConnection c = suite.connect(server.port())) {
            c.socket().setSoTimeout(10_000);
            c.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n\r\n");
            InputStream in = c.input();
            assertThat(WebSocketCases.readHead(in)).startsWith("HTTP/1.1 101 ");
            long upgraded = System.nanoTime();
            // unanswered pings, one per interval
            assertThat(frame(in)).isEqualTo("9:");
            assertThat(millisSince(upgraded)).isBetween(700L, 1600L);
            assertThat(frame(in)).isEqualTo("9:");
            assertThat(millisSince(upgraded)).isBetween(1500L, 2600L);
            // input moves both deadlines on
            c.send(WebSocketCases.frame(true, 0x1, "hi".getBytes(StandardCharsets.UTF_8)));
            long sent = System.nanoTime();
            assertThat(frame(in)).isEqualTo("1:hi");
            // a send from another thread on a connection left asleep goes out at once
            Thread.sleep(300);
            long sending = System.nanoTime();
            opened.get(5, TimeUnit.SECONDS).sendText("from elsewhere");
            assertThat(frame(in)).isEqualTo("1:from elsewhere");
            assertThat(millisSince(sending)).isLessThan(500L);
            assertThat(frame(in)).isEqualTo("9:");
            assertThat(millisSince(sent)).isBetween(700L, 1600L);
            String frame;
            do {
                frame = frame(in);
            } while (frame.equals("9:"));
            assertThat(frame).startsWith("8:").endsWith("idle timeout");
            assertThat(millisSince(sent)).isBetween(2900L, 4000L);
        }
    }

    /** The server's next frame as "opcode:payload" (a close's payload after its code). */
    private static String frame(InputStream in) throws IOException {
        WebSocketCases.Frame f = WebSocketCases.readFrame(in);
        int from = f.opcode() == 8 && f.payload().length >= 2 ? 2 : 0;
        return f.opcode() + ":" + new String(f.payload(), from, f.payload().length - from, StandardCharsets.UTF_8);
    }
}
