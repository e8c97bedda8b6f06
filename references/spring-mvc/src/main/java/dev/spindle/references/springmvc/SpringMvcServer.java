// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

import dev.spindle.references.spring.SpringBootApps;
import dev.spindle.references.support.ReferenceLauncher;
import java.io.IOException;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The benchmark app as a Spring Boot application: Spring MVC's annotated controllers
 * ({@link BenchmarkController}) on Boot's embedded Tomcat, configured in
 * {@code application.properties}. The remote routes ({@link RemoteController}) call the downstream
 * named by {@code -Dspindle.remote}, read as the context starts ({@link RemoteClients}).
 *
 * <p>Launcher: {@code SpringMvcServer <port> [workers]}. {@code workers} is Tomcat's request
 * thread pool ({@code server.tomcat.threads.max}, default Boot's 200); an explicit
 * {@code -Dserver.tomcat.threads.max} wins over it, and with
 * {@code -Dspring.threads.virtual.enabled=true} Tomcat runs each request on a virtual thread and
 * the pool is unused. {@code -Dspindle.host} is the address (127.0.0.1).
 */
@SpringBootApplication(proxyBeanMethods = false)
public class SpringMvcServer {
    /** Tomcat's own default for its idle pool threads, capped by a smaller pool. */
    private static final int MIN_SPARE_THREADS = 10;

    /**
     * Starts the application; Boot's graceful shutdown drains it when the context closes.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers Tomcat's maximum request threads, or 0 for Boot's default
     * @param args more Spring Boot arguments ({@code --name=value}), which win over everything
     * @return the running application context
     * @throws IOException if Tomcat cannot bind
     */
    public static ConfigurableApplicationContext start(String host, int port, int workers, String... args) throws IOException {
        // defaults, so a -D or a command-line property of the same name still wins
        Map<String, Object> defaults = workers > 0
                ? Map.of("server.tomcat.threads.max", workers, "server.tomcat.threads.min-spare", Math.min(MIN_SPARE_THREADS, workers))
                : Map.of();
        return SpringBootApps.start(SpringMvcServer.class, WebApplicationType.SERVLET, host, port, defaults, args);
    }

    /**
     * The port Tomcat bound.
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
     * @param args the port (0 picks a free one) and, optionally, Tomcat's maximum request threads
     */
    public static void main(String[] args) {
        // workers 0: Boot's own thread settings (an explicit -Dserver.tomcat.threads.max wins anyway)
        ReferenceLauncher.run("SpringMvcServer", SpringMvcServer.class, args, 0, "Tomcat's maximum request threads",
                (host, port, workers) -> {
                    ConfigurableApplicationContext context = start(host, port, workers);
                    // Tomcat's threads keep the JVM up; Boot's shutdown hook closes the context on SIGTERM
                    return ReferenceLauncher.Started.of(SpringMvcServer.port(context), () -> { });
                });
    }
}
