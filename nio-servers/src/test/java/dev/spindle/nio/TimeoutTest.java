// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Idle keep-alive, half-sent requests and unread responses are cut off by the configured timeouts. */
@Timeout(60)
class TimeoutTest {
    private NioServer server;

    @BeforeEach
    void start() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(2)
                .idleTimeout(Duration.ofMillis(500))
                .headerTimeout(Duration.ofMillis(500))
                .writeTimeout(Duration.ofSeconds(1));
        server = new MultiLoopServer(config, BenchmarkApp.routes());
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void idleKeepAliveConnectionIsClosed() throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.closes()).isFalse();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void connectionThatNeverSendsIsClosed() throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void busyConnectionIsNotClosedForIdleness() throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            long end = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            while (System.nanoTime() < end) {
                assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
                Thread.sleep(100);
            }
        }
    }

    @Test
    void stalledHeaderGets408AndAClose() throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n").read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void stalledBodyGets408AndAClose() throws Exception {
        try (RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b").read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void responseThePeerDoesNotReadIsDroppedAfterTheWriteTimeout() throws Exception {
        int size = 8 * 1024 * 1024;
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(16 * 1024);
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[size]);
            out.flush();
            // never read: the server must give up on this connection
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (server.connectionCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(server.connectionCount()).isZero();
        }
    }
}
