// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import dev.spindle.core.Health;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command line every server shares: {@code <MainClass> <port> [workers]}. Port 0 picks a free
 * port; one line {@code <Name> listening on <host>:<port>} on stdout says the server is ready;
 * bad arguments print a usage line on stderr and exit 2; a failed start exits 1; SIGTERM and
 * SIGINT close gracefully. Tuning is through {@code -Dspindle.*} properties: {@link ServerConfig}'s,
 * and those of the server's own strategy settings, which its two-argument constructor reads.
 * Beside the benchmark app's routes a launcher mounts a {@link Health} at {@code /health}
 * ({@code GET /health/live}, {@code GET /health/ready}), for a load balancer to probe: readiness
 * goes down when SIGTERM begins the close, {@code -Dspindle.drainDelayMs} before the drain.
 */
public final class Launcher {
    private static final Logger log = LoggerFactory.getLogger(Launcher.class);

    private Launcher() {
    }

    /** Parses {@code <port> [workers]} on top of {@link ServerConfig#fromSystemProperties()}; null if malformed. */
    static ServerConfig parse(String[] args) {
        if (args.length < 1 || args.length > 2) {
            return null;
        }
        try {
            int port = Integer.parseInt(args[0]);
            ServerConfig config = ServerConfig.fromSystemProperties();
            if (port < 0 || port > 65535) {
                return null;
            }
            config = config.port(port);
            if (args.length == 2) {
                int workers = Integer.parseInt(args[1]);
                if (workers < 1) {
                    return null;
                }
                config = config.workers(workers);
            }
            return config;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Runs a server with the benchmark app's routes until the process is told to stop.
     *
     * Returns once the server has terminated (or the waiting thread was interrupted); on bad
     * arguments or a failed start it does not return but exits the JVM (2 or 1).
     *
     * @param mainClass the class whose {@code main} calls this, for the usage and ready lines
     * @param args the command-line arguments, {@code <port> [workers]}
     * @param factory makes the (not yet started) server from the parsed configuration and the
     *        benchmark routes; whatever it or {@code start()} throws is a failed start
     */
    public static void run(Class<?> mainClass, String[] args, BiFunction<ServerConfig, Router, HttpServer> factory) {
        run(mainClass, args, factory, UnaryOperator.identity());
    }

    /**
     * As {@link #run(Class, String[], BiFunction)}, with what {@code extend} adds to the benchmark
     * app's routes (a listener, another route) before they are built.
     *
     * @param mainClass the class whose {@code main} calls this, for the usage and ready lines
     * @param args the command-line arguments, {@code <port> [workers]}
     * @param factory makes the (not yet started) server, as for the other form
     * @param extend takes the builder holding the benchmark app's routes and returns the one to build
     */
    public static void run(Class<?> mainClass, String[] args, BiFunction<ServerConfig, Router, HttpServer> factory,
            UnaryOperator<Router.Builder> extend) {
        String name = mainClass.getSimpleName();
        ServerConfig config;
        try {
            config = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(name + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        if (config == null) {
            System.err.println("usage: java -cp <classpath> " + mainClass.getName() + " <port> [workers]"
                    + "   (port 0..65535, 0 picks a free one; workers >= 1)");
            System.exit(2);
            return;
        }
        HttpServer server;
        try {
            Router.Builder routes = BenchmarkApp.register(Router.builder()).health("/health", new Health());
            server = factory.apply(config, extend.apply(routes).build()).start();
        } catch (Exception e) {
            System.err.println(name + ": cannot start: " + e.getMessage());
            log.debug("start failed", e);
            System.exit(1);
            return;
        }
        System.out.println(name + " listening on " + config.host() + ":" + server.port());
        System.out.flush();
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
