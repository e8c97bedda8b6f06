package dev.spindle.references.helidon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.ReferenceConformanceSuite;
import dev.spindle.core.spi.BenchmarkApp;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared conformance suite against {@link HelidonSeServer}, with what it lacks and where it deviates, each with the reason. */
class HelidonSeServerConformanceTest extends ReferenceConformanceSuite {
    @Override
    protected Running startReference(String host, int port, int workers) {
        // workers has no counterpart: Helidon 4 serves every request on its own virtual thread
        HelidonSeServer server = new HelidonSeServer(host, port).start();
        return new Running() {
            @Override
            public int port() {
                return server.port();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        return lacks;
    }

    /** Where Helidon's HTTP/1 connection answers bad input differently from the Spindle contract. The suite holds it to exactly this. */
    private static final Map<String, Deviation> DEVIATIONS = Map.of();

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

    /** The app's caps and sizes are restated in the reference (its classpath has no Spindle); they must not drift. */
    @Test
    void restatesTheBenchmarkAppsConstants() {
        ServerConfig defaults = ServerConfig.defaults();
        assertThat(BenchmarkRoutes.MAX_BLOCKING_MS).isEqualTo(BenchmarkApp.MAX_BLOCKING_MS);
        assertThat(BenchmarkRoutes.MAX_DELAY_MS).isEqualTo(BenchmarkApp.MAX_DELAY_MS);
        assertThat(BenchmarkRoutes.DOWNLOAD_BYTES).isEqualTo(BenchmarkApp.DOWNLOAD_BYTES);
        assertThat(BenchmarkRoutes.MAX_BODY_SIZE).isEqualTo(defaults.maxBodySize());
        assertThat(BenchmarkRoutes.MAX_REQUEST_LINE).isEqualTo(defaults.maxRequestLineLength());
        assertThat(BenchmarkRoutes.MAX_HEADER_SIZE).isEqualTo(defaults.maxHeaderSize());
    }
}
