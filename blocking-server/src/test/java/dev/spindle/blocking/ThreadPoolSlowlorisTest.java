// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slowloris against a pool: more connections than threads stall inside a request (a request line
 * and part of a header, then nothing, or a byte every few hundred milliseconds) while many idle
 * keep-alive connections stay open. A stalled request gives its thread back as an idle connection
 * does, so a new client is answered at once, and every stalled one is answered 408 at the header
 * timeout.
 */
@Timeout(120)
class ThreadPoolSlowlorisTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final String PARTIAL = "GET /plaintext HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(4);
    private static final long TRICKLE_MILLIS = 300;

    static Stream<Arguments> pools() {
        return Stream.of(
                Arguments.of(4, 40, 200),
                // the bar: the matrix's 200 threads
                Arguments.of(200, 200, 2000));
    }

    @ParameterizedTest(name = "{0} threads, {1} stalled requests, {2} idle connections")
    @MethodSource("pools")
    void stalledRequestsLeaveThePoolFreeForANewClientAndGet408AtTheHeaderTimeout(int threads, int stalledCount, int idleCount)
            throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(threads).maxConnections(4000)
                .headerTimeout(HEADER_TIMEOUT);
        List<RawConnection> idle = new ArrayList<>();
        List<RawConnection> stalled = new ArrayList<>();
        Thread trickler = null;
        try (HttpServer server = new ThreadPoolServer(config, BenchmarkApp.routes(), BlockingSettings.defaults().queueCapacity(1024)).start()) {
            try {
                for (int i = 0; i < idleCount; i++) {
                    RawConnection c = new RawConnection(server.port());
                    idle.add(c);
                    assertThat(c.send(GET).read().status()).isEqualTo(200);
                }
                long stallStart = System.nanoTime();
                for (int i = 0; i < stalledCount; i++) {
                    stalled.add(new RawConnection(server.port()).send(PARTIAL));
                }
                // every other stalled client sends one more header byte now and then
                trickler = Thread.ofVirtual().start(() -> trickle(stalled));
                for (int round = 0; round < 3; round++) {
                    Thread.sleep(500);
                    long start = System.nanoTime();
                    try (RawConnection fresh = new RawConnection(server.port())) {
                        assertThat(fresh.send(GET).read().bodyText()).isEqualTo("Hello, World!");
                    }
                    // not a speed bound: with every thread held, a new client would wait for a stalled request's 408
                    assertThat((System.nanoTime() - start) / 1_000_000).as("ms until a new client is answered, round %d", round)
                            .isLessThan(HEADER_TIMEOUT.toMillis() / 2);
                }
                for (int i = 0; i < stalled.size(); i++) {
                    RawResponse r = stalled.get(i).read();
                    assertThat(r.status()).as("stalled request %d", i).isEqualTo(408);
                    assertThat(r.closes()).as("stalled request %d", i).isTrue();
                    assertThat(stalled.get(i).closedByPeer()).as("stalled connection %d closed", i).isTrue();
                }
                assertThat(Duration.ofNanos(System.nanoTime() - stallStart)).as("the 408s came at the header timeout")
                        .isGreaterThanOrEqualTo(HEADER_TIMEOUT);
                for (int i = 0; i < idle.size(); i += Math.max(1, idle.size() / 20)) {
                    assertThat(idle.get(i).send(GET).read().status()).as("idle connection %d still served", i).isEqualTo(200);
                }
            } finally {
                if (trickler != null) {
                    trickler.interrupt();
                    trickler.join();
                }
                for (RawConnection c : stalled) {
                    c.close();
                }
                for (RawConnection c : idle) {
                    c.close();
                }
            }
        }
    }

    private static void trickle(List<RawConnection> stalled) {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(TRICKLE_MILLIS);
                for (int i = 1; i < stalled.size(); i += 2) {
                    try {
                        stalled.get(i).send("a");
                    } catch (IOException e) {
                        // answered 408 and closed: nothing more to send
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
