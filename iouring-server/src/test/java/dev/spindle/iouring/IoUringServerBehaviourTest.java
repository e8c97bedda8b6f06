// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Timeouts, connection limits and graceful close, each on a server of its own. */
@Timeout(60)
class IoUringServerBehaviourTest {
    @BeforeEach
    void requireIoUring() {
        IoUringTests.assumeAvailable();
    }

    private static IoUringServer start(ServerConfig config) throws IOException {
        return (IoUringServer) new IoUringServer(config, BenchmarkApp.routes()).start();
    }

    @Test
    void aRequestThatDoesNotArriveInTimeGets408AndAClose() throws Exception {
        try (IoUringServer server = start(ServerConfig.defaults().port(0).workers(1).headerTimeout(Duration.ofMillis(400)));
                RawConnection c = new RawConnection(server.port())) {
            long started = System.nanoTime();
            RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n").read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(300L, 5000L);
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (IoUringServer server = start(ServerConfig.defaults().port(0).workers(1).idleTimeout(Duration.ofMillis(400)));
                RawConnection c = new RawConnection(server.port())) {
            assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long started = System.nanoTime();
            assertThat(c.closedByPeer()).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(200L, 5000L);
            waitFor(() -> server.connectionCount() == 0);
        }
    }

    @Test
    void connectionsBeyondTheLimitAreAnswered503() throws Exception {
        try (IoUringServer server = start(ServerConfig.defaults().port(0).workers(1).maxConnections(1));
                RawConnection first = new RawConnection(server.port())) {
            assertThat(first.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            try (RawConnection second = new RawConnection(server.port())) {
                RawResponse r = second.read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.closes()).isTrue();
                assertThat(second.closedByPeer()).isTrue();
            }
            assertThat(first.send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void outputThePeerDoesNotReadIsDroppedAfterTheWriteTimeout() throws Exception {
        try (IoUringServer server = start(ServerConfig.defaults().port(0).workers(1).writeTimeout(Duration.ofMillis(500)));
                Socket s = new Socket()) {
            s.setReceiveBufferSize(16 * 1024);
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            int size = 8 * 1024 * 1024;
            OutputStream out = s.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[size]);
            out.flush();
            // never read: the server's send stalls and the connection is dropped
            waitFor(() -> server.connectionCount() == 0);
        }
    }

    @Test
    void closeLetsAnInFlightBlockingRequestFinishAndStopsAccepting() throws Exception {
        IoUringServer server = start(ServerConfig.defaults().port(0).workers(2).drainTimeout(Duration.ofSeconds(10)));
        int port = server.port();
        try (RawConnection busy = new RawConnection(port); RawConnection idle = new RawConnection(port)) {
            assertThat(idle.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            busy.send("GET /blocking/600 HTTP/1.1\r\nHost: x\r\n\r\n");
            Thread.sleep(100);
            long started = System.nanoTime();
            CompletableFuture<Void> closed = CompletableFuture.runAsync(server::close);
            RawResponse r = busy.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("{\"slept\":600}");
            assertThat(r.closes()).as("the last response says Connection: close").isTrue();
            assertThat(busy.closedByPeer()).isTrue();
            assertThat(idle.closedByPeer()).as("an idle connection is closed at once").isTrue();
            closed.get(15, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5000L);
        }
        assertThatThrownBy(() -> new RawConnection(port).close()).isInstanceOf(IOException.class);
    }

    @Test
    void closeIsPromptWithOnlyIdleConnections() throws Exception {
        IoUringServer server = start(ServerConfig.defaults().port(0).workers(2));
        RawConnection[] clients = new RawConnection[20];
        try {
            for (int i = 0; i < clients.length; i++) {
                clients[i] = new RawConnection(server.port());
                assertThat(clients[i].send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            }
            long started = System.nanoTime();
            server.close();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2000L);
            for (RawConnection c : clients) {
                assertThat(c.closedByPeer()).isTrue();
            }
        } finally {
            for (RawConnection c : clients) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
