// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ThreadPoolSheddingTest {
    private static final String SLOW = "GET /blocking/1500 HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final String FAST = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    @Test
    void fullPoolAndQueueAnswer503AndWaitingConnectionsGetTheirTurn() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(1);
        try (HttpServer server = new ThreadPoolServer(config, BenchmarkApp.routes(), BlockingSettings.defaults().queueCapacity(1)).start();
             RawConnection busy = new RawConnection(server.port())) {
            busy.send(SLOW);
            Thread.sleep(300);
            try (RawConnection queued = new RawConnection(server.port())) {
                Thread.sleep(300);
                try (RawConnection rejected = new RawConnection(server.port())) {
                    RawResponse answer = rejected.send(FAST).read();
                    assertThat(answer.status()).isEqualTo(503);
                    assertThat(answer.closes()).isTrue();
                    assertThat(rejected.closedByPeer()).isTrue();
                }
                RawResponse slow = busy.read();
                assertThat(slow.status()).isEqualTo(200);
                // the idle keep-alive connection parks and gives the one thread to the queued connection
                RawResponse served = queued.send(FAST).read();
                assertThat(served.status()).isEqualTo(200);
                assertThat(served.bodyText()).isEqualTo("Hello, World!");
                RawResponse again = busy.send(FAST).read();
                assertThat(again.status()).as("the parked connection is served again").isEqualTo(200);
            }
        }
    }
}
