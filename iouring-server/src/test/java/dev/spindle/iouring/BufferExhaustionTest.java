// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A provided-buffer ring far too small for the load (4 buffers of 256 bytes per ring, 48
 * connections sending pipelined requests and 20 KiB bodies at once): multishot receives end with
 * {@code ENOBUFS}, the server recycles and re-arms them, and every response still arrives intact.
 */
@Timeout(120)
class BufferExhaustionTest {
    private static final int CLIENTS = 48;
    private static final int ROUNDS = 5;

    @BeforeEach
    void requireIoUring() {
        IoUringTests.assumeAvailable();
    }

    @Test
    void receivesAreReArmedAfterTheBufferRingRunsDry() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(2);
        Tuning tuning = Tuning.defaults(config).bufferRingEntries(4).bufferSize(256);
        try (IoUringServer server = (IoUringServer) new IoUringServer(config, BenchmarkApp.routes(), tuning).start()) {
            int port = server.port();
            List<Future<?>> clients = new ArrayList<>();
            try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < CLIENTS; i++) {
                    int id = i;
                    clients.add(executor.submit(() -> {
                        client(port, id);
                        return null;
                    }));
                }
            }
            for (Future<?> client : clients) {
                client.get();
            }
            long rearms = server.workers().stream().mapToLong(w -> w.transfers.noBufferRearms).sum();
            assertThat(rearms).as("multishot receives ended by ENOBUFS and re-armed").isPositive();
            try (RawConnection c = new RawConnection(port)) {
                assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().bodyText()).isEqualTo("Hello, World!");
            }
        }
    }

    private static void client(int port, int id) throws Exception {
        Random random = new Random(id);
        try (RawConnection c = new RawConnection(port)) {
            for (int round = 0; round < ROUNDS; round++) {
                StringBuilder pipelined = new StringBuilder();
                for (int i = 0; i < 8; i++) {
                    pipelined.append("GET /users/").append(id * 100 + i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
                }
                c.send(pipelined.toString());
                for (int i = 0; i < 8; i++) {
                    assertThat(c.read().bodyText()).isEqualTo("{\"id\":\"" + (id * 100 + i) + "\"}");
                }
                byte[] body = new byte[20 * 1024];
                random.nextBytes(body);
                c.send(("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                c.send(body);
                RawResponse r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo(body);
            }
        }
    }
}
