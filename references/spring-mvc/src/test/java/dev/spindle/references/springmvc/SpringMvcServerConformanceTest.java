package dev.spindle.references.springmvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.conformance.ReferenceConformanceSuite;
import dev.spindle.core.spi.BenchmarkApp;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shared conformance suite against {@link SpringMvcServer} with virtual threads (the
 * {@code SpringMvc-virtual} row), with what it lacks and where Tomcat deviates, each with the reason.
 */
class SpringMvcServerConformanceTest extends ReferenceConformanceSuite {
    @Override
    protected Running startReference(String host, int port, int workers) {
        ConfigurableApplicationContext context = SpringMvcServer.start(host, port, workers, "--spring.threads.virtual.enabled=true");
        return new Running() {
            @Override
            public int port() {
                return SpringMvcServer.port(context);
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        lacks.put(Feature.TIMEOUTS, "Tomcat's timeouts are Boot properties (server.tomcat.connection-timeout, "
                + "keep-alive-timeout) that the adapter does not take from the suite's ServerConfig");
        lacks.put(Feature.CONNECTION_LIMIT, "Tomcat's max-connections does not answer 503: beyond it, connections wait in "
                + "the accept backlog");
        return lacks;
    }

    private static final Map<String, Deviation> DEVIATIONS = Map.of();

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

    /** The app's caps and sizes are restated in the reference (its classpath has no Spindle); they must not drift. */
    @Test
    void restatesTheBenchmarkAppsConstants() {
        assertThat(BenchmarkController.MAX_BLOCKING_MS).isEqualTo(BenchmarkApp.MAX_BLOCKING_MS);
        assertThat(BenchmarkController.MAX_DELAY_MS).isEqualTo(BenchmarkApp.MAX_DELAY_MS);
        assertThat(BenchmarkController.DOWNLOAD_BYTES).isEqualTo(BenchmarkApp.DOWNLOAD_BYTES);
        assertThat((long) BenchmarkController.MAX_BODY_SIZE).isEqualTo(dev.spindle.core.ServerConfig.defaults().maxBodySize());
    }
}
