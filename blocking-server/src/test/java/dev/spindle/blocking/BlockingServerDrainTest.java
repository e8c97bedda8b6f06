package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.testing.RawResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The blocking servers' drain, beyond the conformance suite's cases. */
@Timeout(30)
class BlockingServerDrainTest {
    /** Servers whose one thread is held by a handler, so that a connection waits to be served until it is released. */
    static Stream<Arguments> heldServers() {
        return Stream.of(
                Arguments.of("SingleThreadServer", (BiFunction<ServerConfig, Router, HttpServer>) SingleThreadServer::new),
                Arguments.of("ThreadPoolServer", (BiFunction<ServerConfig, Router, HttpServer>) ThreadPoolServer::new));
    }

    /**
     * A connection that waited (queued on the listening socket, or for a pool thread) until after
     * the drain's idle grace is served with its own grace from when its loop starts: its request,
     * sent a little later, is answered with a close, not lost to a socket closed as "idle".
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("heldServers")
    void aConnectionServedAfterTheIdleGraceStillGetsOne(String name, BiFunction<ServerConfig, Router, HttpServer> factory)
            throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Router routes = Router.builder()
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/hold", (req, res) -> {
                    started.countDown();
                    release.await(10, TimeUnit.SECONDS);
                    res.text("held");
                })
                .build();
        HttpServer server = factory.apply(ServerConfig.defaults().port(0).workers(1).drainTimeout(Duration.ofSeconds(8)), routes)
                .start();
        try (RawConnection holding = new RawConnection(server.port()); RawConnection waiting = new RawConnection(server.port())) {
            holding.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(started.await(5, TimeUnit.SECONDS)).as("the handler holds the server's one thread").isTrue();
            Thread closer = Thread.ofPlatform().start(server::close);
            Thread.sleep(Connection.DRAIN_IDLE_GRACE_MILLIS + 200);
            release.countDown();
            // the waiting connection's loop has started by now, reading: its grace runs from there
            Thread.sleep(300);
            RawResponse r = waiting.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.closes()).as("Connection: close on the answer during the drain").isTrue();
            assertThat(waiting.closedCleanly()).isTrue();
            assertThat(holding.read().bodyText()).isEqualTo("held");
            closer.join(Duration.ofSeconds(13));
            assertThat(closer.isAlive()).as("close() returned").isFalse();
        } finally {
            release.countDown();
            server.close();
        }
    }
}
