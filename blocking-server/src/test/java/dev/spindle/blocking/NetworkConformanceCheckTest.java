// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.ConformanceCheck.CaseResult;
import dev.spindle.conformance.ConformanceCheck.Status;
import dev.spindle.conformance.ConformanceCheck;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.TestTls;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The network conformance check ({@link ConformanceCheck}, what scripts/conformance-check.sh runs)
 * passes a real server: {@link VirtualThreadServer} serving the benchmark app, as the matrix starts
 * it, plain and over TLS, HTTP/2 sections included ({@code --h2}). (That it fails a wrong server is core's ConformanceCheckTest.)
 */
class NetworkConformanceCheckTest {
    @ParameterizedTest(name = "over TLS: {0}")
    @ValueSource(booleans = {false, true})
    void aConformingServerFailsNoCase(boolean tls) throws Exception {
        ServerConfig config = ServerConfig.defaults().port(0).workers(2);
        try (HttpServer server = new VirtualThreadServer(tls ? config.tls(TestTls.serverTls()) : config, BenchmarkApp.routes()).start()) {
            List<CaseResult> results = ConformanceCheck.check("127.0.0.1:" + server.port(), tls, true, Duration.ofMinutes(2));
            assertThat(results).filteredOn(r -> r.status() == Status.FAILED).isEmpty();
            assertThat(results).filteredOn(r -> r.status() == Status.PASSED).hasSizeGreaterThan(tls ? 95 : 85);
            assertThat(results).filteredOn(r -> r.status() == Status.SKIPPED)
                    .allSatisfy(r -> assertThat(r.message()).isNotBlank().doesNotContain("time budget"));
        }
    }
}
