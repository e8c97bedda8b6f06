// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The blocking servers' drain, beyond the conformance suite's cases. */
@Timeout(30)
class BlockingServerDrainTest {
    static Stream<Arguments> servers() {
        return Stream.of(
                Arguments.of("SingleThreadServer", (BiFunction<ServerConfig, Router, HttpServer>) SingleThreadServer::new),
                Arguments.of("ThreadPerConnectionServer", (BiFunction<ServerConfig, Router, HttpServer>) ThreadPerConnectionServer::new),
                Arguments.of("ThreadPoolServer", (BiFunction<ServerConfig, Router, HttpServer>) ThreadPoolServer::new),
                Arguments.of("VirtualThreadServer", (BiFunction<ServerConfig, Router, HttpServer>) VirtualThreadServer::new));
    }

    /**
     * Clients connecting as fast as they can while the server closes: every connection whose
     * handshake completed before {@code close()} began (queued on the listening socket, or on its
     * way to a thread) is answered, none reset with the listening socket. Later ones may be refused.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void noConnectionCompletedBeforeTheCloseIsLostToIt(String name, BiFunction<ServerConfig, Router, HttpServer> factory)
            throws Exception {
        HttpServer server = factory.apply(ServerConfig.defaults().port(0).drainTimeout(Duration.ofSeconds(8)), BenchmarkApp.routes())
                .start();
        int port = server.port();
        byte[] request = "GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        AtomicLong closeBegan = new AtomicLong(Long.MAX_VALUE);
        AtomicInteger answered = new AtomicInteger();
        List<String> lost = Collections.synchronizedList(new ArrayList<>());
        List<Thread> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                clients.add(Thread.ofPlatform().start(() -> {
                    while (true) {
                        try (Socket s = new Socket()) {
                            try {
                                s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                            } catch (IOException refused) {
                                return;
                            }
                            long connected = System.nanoTime();
                            s.setSoTimeout(10_000);
                            String answer;
                            try {
                                s.getOutputStream().write(request);
                                answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                            } catch (IOException e) {
                                answer = e.toString();
                            }
                            if (answer.startsWith("HTTP/1.1 200")) {
                                answered.incrementAndGet();
                            } else if (connected - closeBegan.get() < 0) {
                                lost.add(answer);
                            }
                        } catch (IOException e) {
                            lost.add(e.toString());
                        }
                    }
                }));
            }
            Thread.sleep(500);
            closeBegan.set(System.nanoTime());
            server.close();
            for (Thread client : clients) {
                client.join(Duration.ofSeconds(15));
            }
        } finally {
            server.close();
        }
        assertThat(answered.get()).as("answered").isPositive();
        assertThat(lost).as("connections completed before the close began, not answered").isEmpty();
    }

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
