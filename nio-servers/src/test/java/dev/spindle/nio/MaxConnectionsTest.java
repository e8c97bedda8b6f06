// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Beyond maxConnections a new connection is answered 503 and closed; a freed slot is usable again. */
@Timeout(60)
class MaxConnectionsTest {
    static Stream<Arguments> servers() {
        return Stream.of(
                Arguments.of("MultiLoopServer", (BiFunction<ServerConfig, dev.spindle.core.Router, NioServer>) MultiLoopServer::new),
                Arguments.of("ReusePortServer", (BiFunction<ServerConfig, dev.spindle.core.Router, NioServer>) ReusePortServer::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void connectionsBeyondTheLimitGet503(String name, BiFunction<ServerConfig, dev.spindle.core.Router, NioServer> factory) throws Exception {
        NioServer server = factory.apply(ServerConfig.defaults().port(0).workers(2).maxConnections(2), BenchmarkApp.routes());
        server.start();
        try (RawConnection first = new RawConnection(server.port()); RawConnection second = new RawConnection(server.port())) {
            assertThat(first.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(second.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            try (RawConnection third = new RawConnection(server.port())) {
                third.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
                RawResponse r = third.read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.closes()).isTrue();
                assertThat(third.closedByPeer()).isTrue();
            }
            first.close();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (server.connectionCount() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            try (RawConnection again = new RawConnection(server.port())) {
                assertThat(again.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            }
            assertThat(second.send("GET /json HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        } finally {
            server.close();
        }
    }
}
