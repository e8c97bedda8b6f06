// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers' command line, for a reference: {@code <port> [workers]}; usage and exit 2 on bad
 * arguments, exit 1 when it cannot start; once it listens, one line {@code <Name> listening on
 * <host>:<port>} through the logger {@value #READY_LOGGER}, which each reference's logging
 * configuration sends alone to stdout (the scripts wait for it); everything else goes to stderr.
 */
public final class ReferenceLauncher {
    /** The logger of the ready line; a reference's logging configuration prints its message alone on stdout. */
    public static final String READY_LOGGER = "dev.spindle.ready";
    private static final Logger ready = LoggerFactory.getLogger(READY_LOGGER);
    private static final Logger log = LoggerFactory.getLogger(ReferenceLauncher.class);

    /** A started server. */
    public interface Started {
        /** {@return the port it listens on} */
        int port();

        /**
         * Blocks until the server has stopped (its shutdown hook closes it on SIGTERM).
         *
         * @throws InterruptedException if interrupted while waiting
         */
        void awaitTermination() throws InterruptedException;

        /**
         * A started server that listens on {@code port} until {@code termination} returns.
         *
         * @param port the port it listens on
         * @param termination blocks until the server has stopped
         * @return it as {@code Started}
         */
        static Started of(int port, Termination termination) {
            return new Started() {
                @Override
                public int port() {
                    return port;
                }

                @Override
                public void awaitTermination() throws InterruptedException {
                    termination.await();
                }
            };
        }
    }

    /** What blocks until a server has stopped. */
    @FunctionalInterface
    public interface Termination {
        /**
         * Blocks until the server has stopped.
         *
         * @throws InterruptedException if interrupted while waiting
         */
        void await() throws InterruptedException;
    }

    /** Starts a reference. */
    @FunctionalInterface
    public interface Starter {
        /**
         * Starts the server and registers what closes it on SIGTERM.
         *
         * @param host the address to bind ({@code -Dspindle.host}, default 127.0.0.1)
         * @param port the port, 0 for a free one
         * @param workers the worker count given, or the default
         * @return the started server
         * @throws Exception if it cannot start
         */
        Started start(String host, int port, int workers) throws Exception;
    }

    private ReferenceLauncher() {
    }

    /**
     * Parses {@code args}, starts the server, prints the ready line and waits for its end.
     *
     * @param name the server's name, for the ready line and messages
     * @param mainClass the class whose {@code main} calls this, for the usage line
     * @param args {@code <port> [workers]}
     * @param defaultWorkers the worker count when none is given
     * @param workersMeaning what the worker count means for this server, for the usage line
     * @param starter starts it
     */
    public static void run(String name, Class<?> mainClass, String[] args, int defaultWorkers, String workersMeaning,
                           Starter starter) {
        int port = -1;
        int workers = defaultWorkers;
        try {
            if (args.length == 1 || args.length == 2) {
                port = Integer.parseInt(args[0]);
                if (args.length == 2) {
                    workers = Integer.parseInt(args[1]);
                }
            }
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535 || args.length == 2 && workers < 1) {
            log.error("usage: java -cp <classpath> {} <port> [workers]   (port 0..65535, 0 picks a free one; workers >= 1: {})",
                    mainClass.getName(), workersMeaning);
            System.exit(2);
            return;
        }
        String host = System.getProperty("spindle.host", "127.0.0.1");
        Started server;
        try {
            server = starter.start(host, port, workers);
        } catch (Exception e) {
            log.error("{}: cannot start: {}", name, e.getMessage());
            log.debug("start failed", e);
            System.exit(1);
            return;
        }
        ready.info("{} listening on {}:{}", name, host, server.port());
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
