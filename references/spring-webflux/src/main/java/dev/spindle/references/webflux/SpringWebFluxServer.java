// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import dev.spindle.references.spring.SpringBootApps;
import dev.spindle.references.support.ReferenceLauncher;
import java.io.IOException;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The benchmark app as a Spring Boot WebFlux application: annotated controllers returning
 * {@code Mono}s ({@link BenchmarkController}, {@link RemoteController}) on Boot's embedded Reactor
 * Netty server, configured in {@code application.properties}; the event loops, clients and
 * offload scheduler are in {@link ServerResources}.
 *
 * <p>Launcher: {@code SpringWebFluxServer <port> [workers]}. {@code workers} is the number of
 * Reactor Netty event loops (shared by the server and its {@code WebClient}); without it, Reactor
 * Netty's default ({@code -Dreactor.netty.ioWorkerCount}, else the CPU count and at least 4).
 * {@code -Dspindle.webflux.offload=bounded-elastic|async-pool} picks where the blocking routes wait
 * ({@link Offload}); {@code -Dspindle.host} is the address (127.0.0.1).
 */
@SpringBootApplication(proxyBeanMethods = false)
public class SpringWebFluxServer {
    /**
     * Starts the application; Boot's graceful shutdown drains it when the context closes.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers the event-loop count, or 0 for Reactor Netty's default
     * @param args more Spring Boot arguments ({@code --name=value}), which win over everything
     * @return the running application context
     * @throws IllegalArgumentException if {@value Offload#PROPERTY} names no offload
     * @throws IOException if Reactor Netty cannot bind
     */
    public static ConfigurableApplicationContext start(String host, int port, int workers, String... args) throws IOException {
        // checked before Boot starts, so a typo fails with this message rather than a bean-creation trace
        Offload.fromSystemProperties();
        // a default, so a -D or a command-line property of the same name still wins
        return SpringBootApps.start(SpringWebFluxServer.class, WebApplicationType.REACTIVE, host, port,
                Map.of(ServerResources.WORKERS_PROPERTY, Math.max(workers, 0)), args);
    }

    /**
     * The port Reactor Netty bound.
     *
     * @param context the running application
     * @return its local port
     */
    public static int port(ConfigurableApplicationContext context) {
        return SpringBootApps.port(context);
    }

    /**
     * {@code <port> [workers]}: serves until SIGTERM/SIGINT (Boot's shutdown hook closes the
     * context gracefully); usage and exit 2 on bad arguments, exit 1 when it cannot start.
     *
     * @param args the port (0 picks a free one) and, optionally, the event-loop count
     */
    public static void main(String[] args) {
        ReferenceLauncher.run("SpringWebFluxServer", SpringWebFluxServer.class, args, 0, "Reactor Netty event loops",
                (host, port, workers) -> {
                    ConfigurableApplicationContext context = start(host, port, workers);
                    // Boot's non-daemon "server" thread keeps the JVM up; its shutdown hook closes the context on SIGTERM
                    return ReferenceLauncher.Started.of(SpringWebFluxServer.port(context), () -> { });
                });
    }
}
