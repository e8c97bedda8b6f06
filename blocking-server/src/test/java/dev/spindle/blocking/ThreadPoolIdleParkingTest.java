// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pool as people run one (200 threads, Tomcat's default maximum): idle keep-alive connections
 * give their threads back, so ten times as many of them as threads do not keep a new client waiting.
 */
@Timeout(60)
class ThreadPoolIdleParkingTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    @Test
    void twoThousandIdleKeepAliveConnectionsLeaveTwoHundredThreadsFreeForANewClient() throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(200).maxConnections(4000);
        List<RawConnection> idle = new ArrayList<>();
        try (HttpServer server = new ThreadPoolServer(config, BenchmarkApp.routes(), BlockingSettings.defaults().queueCapacity(1024)).start()) {
            try {
                for (int i = 0; i < 2000; i++) {
                    RawConnection c = new RawConnection(server.port());
                    idle.add(c);
                    assertThat(c.send(GET).read().status()).isEqualTo(200);
                }
                Thread.sleep(200);
                long start = System.nanoTime();
                try (RawConnection fresh = new RawConnection(server.port())) {
                    assertThat(fresh.send(GET).read().bodyText()).isEqualTo("Hello, World!");
                }
                assertThat((System.nanoTime() - start) / 1_000_000).as("ms until the new client is answered").isLessThan(2000);
                for (int i = 0; i < idle.size(); i += 97) {
                    assertThat(idle.get(i).send(GET).read().status()).as("idle connection %d still served", i).isEqualTo(200);
                }
            } finally {
                for (RawConnection c : idle) {
                    c.close();
                }
            }
        }
    }
}
