// SPDX-License-Identifier: Apache-2.0
package dev.spindle.launch;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.micrometer.SpindleMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.BiFunction;
import java.util.function.IntSupplier;

/**
 * What every launcher's {@code main} calls: {@link Launcher#run} with the benchmark app's routes,
 * and, with {@code -D}{@value #PROPERTY}{@code =micrometer}, {@link SpindleMetrics} on a
 * {@link PrometheusMeterRegistry} as an application would register it: the listener on the routes,
 * the server's connections bound, and the scrape on {@code GET /metrics}. The default,
 * {@code off}, adds nothing: the benchmark matrix measures the server alone unless it is asked to
 * measure what metrics cost.
 */
final class Launch {
    /** The system property that turns metrics on: {@code off} (the default) or {@code micrometer}. */
    static final String PROPERTY = "spindle.metrics";

    private Launch() {
    }

    static void run(Class<?> mainClass, String[] args, BiFunction<ServerConfig, Router, HttpServer> factory) {
        String metrics = System.getProperty(PROPERTY, "off");
        switch (metrics) {
            case "off" -> Launcher.run(mainClass, args, factory);
            case "micrometer" -> {
                PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                SpindleMetrics listener = new SpindleMetrics(registry);
                Launcher.run(mainClass, args, (config, routes) -> {
                    HttpServer server = factory.apply(config, routes);
                    listener.bindConnections(connections(server));
                    return server;
                }, routes -> routes.listener(listener).get("/metrics",
                        (req, res) -> res.contentType("text/plain; version=0.0.4; charset=utf-8").body(registry.scrape())));
            }
            default -> {
                System.err.println(mainClass.getSimpleName() + ": -D" + PROPERTY + " is off or micrometer, not '" + metrics + "'");
                System.exit(2);
            }
        }
    }

    /** The server's open connections, which every Spindle server counts (its class's {@code connectionCount()}). */
    private static IntSupplier connections(HttpServer server) {
        return switch (server) {
            case dev.spindle.blocking.BlockingServer s -> () -> s.connectionCount();
            case dev.spindle.nio.NioServer s -> () -> s.connectionCount();
            case dev.spindle.iouring.IoUringServer s -> () -> s.connectionCount();
            default -> throw new IllegalArgumentException("not a Spindle server: " + server);
        };
    }
}
