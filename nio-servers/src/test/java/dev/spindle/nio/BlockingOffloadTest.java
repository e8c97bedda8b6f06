// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Blocking routes run on virtual threads, never on the loop: while one is held, the single loop
 * goes on serving other connections, and the held connection's pipelined requests are answered
 * in request order once it finishes.
 */
@Timeout(60)
class BlockingOffloadTest {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    private final AtomicReference<Thread> gateThread = new AtomicReference<>();

    private Router routes() {
        return Router.builder()
                .get("/gate", Handler.blocking((req, res) -> {
                    gateThread.set(Thread.currentThread());
                    entered.countDown();
                    if (!gate.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("gate never opened");
                    }
                    res.text("gate");
                }))
                .get("/fast", (req, res) -> res.text("fast " + req.queryParam("n")))
                .get("/where", Handler.blocking((req, res) -> res.text(Thread.currentThread().isVirtual() ? "virtual" : "platform")))
                .build();
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @Test
    void pipelinedRequestsBehindABlockingOneWaitTheirTurnWhileTheLoopServesOthers() throws Exception {
        try (HttpServer server = new SingleLoopServer(ServerConfig.defaults().port(0), routes()).start();
                RawConnection held = new RawConnection(server.port());
                RawConnection other = new RawConnection(server.port())) {
            held.send(get("/gate") + get("/fast?n=1") + get("/where") + get("/fast?n=2") + get("/gate"));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

            // The only loop is free: another connection is served while the handler is held.
            for (int i = 0; i < 5; i++) {
                assertThat(other.send(get("/fast?n=" + i)).read().bodyText()).isEqualTo("fast " + i);
            }
            // Nothing for the held connection may overtake its first request.
            assertThat(held.staysOpen(300)).isTrue();

            gate.countDown();
            assertThat(held.read().bodyText()).isEqualTo("gate");
            assertThat(held.read().bodyText()).isEqualTo("fast 1");
            assertThat(held.read().bodyText()).isEqualTo("virtual");
            assertThat(held.read().bodyText()).isEqualTo("fast 2");
            assertThat(held.read().bodyText()).isEqualTo("gate");
            assertThat(gateThread.get().isVirtual()).isTrue();
            assertThat(gateThread.get().getName()).doesNotContain("-loop-");

            // and the connection stays usable
            assertThat(held.send(get("/fast?n=3")).read().bodyText()).isEqualTo("fast 3");
        }
    }

    @Test
    void manyConcurrentBlockingRequestsDoNotHoldTheLoop() throws Exception {
        int clients = 50;
        try (HttpServer server = new MultiLoopServer(ServerConfig.defaults().port(0).workers(2), routes()).start()) {
            RawConnection[] connections = new RawConnection[clients];
            try {
                for (int i = 0; i < clients; i++) {
                    connections[i] = new RawConnection(server.port());
                    connections[i].send(get("/gate") + get("/fast?n=" + i));
                }
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                try (RawConnection other = new RawConnection(server.port())) {
                    assertThat(other.send(get("/fast?n=x")).read().bodyText()).isEqualTo("fast x");
                }
                gate.countDown();
                for (int i = 0; i < clients; i++) {
                    assertThat(connections[i].read().bodyText()).isEqualTo("gate");
                    assertThat(connections[i].read().bodyText()).isEqualTo("fast " + i);
                }
            } finally {
                for (RawConnection c : connections) {
                    if (c != null) {
                        c.close();
                    }
                }
            }
        }
    }
}
