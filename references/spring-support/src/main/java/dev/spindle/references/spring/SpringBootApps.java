// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.spring;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/** Starting a Spring reference on the servers' contract: the address and port given, the bound port read back. */
public final class SpringBootApps {
    private SpringBootApps() {
    }

    /**
     * Runs {@code application} on {@code host:port}; Boot's graceful shutdown drains it when the
     * context closes.
     *
     * @param application the {@code @SpringBootApplication} class
     * @param type the web stack to start (servlet or reactive)
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param defaults properties that apply unless a {@code -D} or a command-line argument names them too
     * @param args more Spring Boot arguments ({@code --name=value}), which win over everything
     * @return the running application context
     * @throws IOException if the server cannot bind (Boot wraps the {@code BindException} in its own exceptions)
     */
    public static ConfigurableApplicationContext start(Class<?> application, WebApplicationType type, String host,
            int port, Map<String, Object> defaults, String... args) throws IOException {
        SpringApplication app = new SpringApplication(application);
        app.setWebApplicationType(type);
        app.setDefaultProperties(defaults);
        List<String> all = new ArrayList<>(List.of("--server.address=" + host, "--server.port=" + port));
        all.addAll(List.of(args));
        try {
            return app.run(all.toArray(String[]::new));
        } catch (RuntimeException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof IOException io) {
                    throw io;
                }
            }
            throw e;
        }
    }

    /**
     * The port the embedded server bound.
     *
     * @param context the running application
     * @return its local port
     */
    public static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }
}
