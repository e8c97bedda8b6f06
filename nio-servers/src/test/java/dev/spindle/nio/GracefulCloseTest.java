// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code close()} stops accepting, closes idle connections at once, lets in-flight requests
 * finish (bounded by the drain timeout) and then closes everything, whatever the topology.
 */
@Timeout(60)
class GracefulCloseTest {
    private final CountDownLatch started = new CountDownLatch(1);

    /** {@code /blocking/{ms}} as in the benchmark app, but telling the test when it has started. */
    private Router routes() {
        return Router.builder()
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/blocking/{ms}", Handler.blocking((req, res) -> {
                    int ms = Integer.parseInt(req.pathParam("ms"));
                    started.countDown();
                    Thread.sleep(ms);
                    res.jsonText("{\"slept\":" + ms + "}");
                }))
                .build();
    }

    static Stream<Arguments> servers() {
        return Stream.of(
                Arguments.of("SingleLoopServer", (BiFunction<ServerConfig, Router, HttpServer>) SingleLoopServer::new),
                Arguments.of("MultiLoopServer", (BiFunction<ServerConfig, Router, HttpServer>) MultiLoopServer::new),
                Arguments.of("BossWorkerServer", (BiFunction<ServerConfig, Router, HttpServer>) BossWorkerServer::new),
                Arguments.of("ReusePortServer", (BiFunction<ServerConfig, Router, HttpServer>) ReusePortServer::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void inFlightBlockingRequestFinishesAndIdleConnectionsClose(String name, BiFunction<ServerConfig, Router, HttpServer> factory) throws Exception {
        HttpServer server = factory.apply(ServerConfig.defaults().port(0).workers(2), routes()).start();
        int port = server.port();
        try (RawConnection idle = new RawConnection(port); RawConnection busy = new RawConnection(port)) {
            assertThat(idle.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            busy.send("GET /blocking/500 HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            Thread closer = Thread.ofPlatform().start(server::close);
            assertThat(idle.closedByPeer()).as("idle connection closed by shutdown").isTrue();

            RawResponse r = busy.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("{\"slept\":500}");
            // The response was dispatched before shutdown began, so the core encoded it keep-alive
            // (Connection decides keep-alive at dispatch); the server closes right after it.
            assertThat(busy.closedByPeer()).as("closed after its response").isTrue();

            closer.join(10_000);
            assertThat(closer.isAlive()).isFalse();
            server.awaitTermination();
            assertThatThrownBy(() -> connect(port)).isInstanceOf(IOException.class);
        } finally {
            server.close();
        }
    }

    @Test
    void drainIsBoundedByTheDrainTimeout() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(1).drainTimeout(Duration.ofMillis(300));
        HttpServer server = new MultiLoopServer(config, routes()).start();
        try (RawConnection busy = new RawConnection(server.port())) {
            busy.send("GET /blocking/10000 HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            long begin = System.nanoTime();
            server.close();
            assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
            assertThat(busy.closedByPeer()).isTrue();
        } finally {
            server.close();
        }
    }

    @Test
    void closeIsIdempotentAndWorksBeforeStart() {
        HttpServer never = new SingleLoopServer(ServerConfig.defaults().port(0), routes());
        never.close();
        HttpServer server;
        try {
            server = new SingleLoopServer(ServerConfig.defaults().port(0), routes()).start();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        server.close();
        server.close();
    }

    private static void connect(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        }
    }
}
