// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.io.IOException;
import java.net.InetSocketAddress;

/** What every Spindle server is, whatever its I/O strategy. */
public interface HttpServer extends AutoCloseable {
    /**
     * Binds and starts serving; returns this server once it accepts connections. A server starts
     * at most once: a second call throws {@link IllegalStateException}.
     *
     * @return this server, already accepting connections
     * @throws IOException if the server cannot listen (port in use, no permission, transport
     *         unavailable); the server cannot be started again
     */
    HttpServer start() throws IOException;

    /**
     * The bound address; valid after {@link #start()} (before, it throws {@link IllegalStateException}).
     *
     * @return the address the server listens on, with the actual port when port 0 was configured
     */
    InetSocketAddress address();

    /**
     * The bound port, the one to connect to when the configuration asked for port 0; valid after
     * {@link #start()}.
     *
     * @return the port of {@link #address()}
     */
    default int port() {
        return address().getPort();
    }

    /**
     * Graceful close: turns the router's {@link Health} readiness down, serves on as usual for
     * {@link ServerConfig#drainDelay()} (zero by default), then stops accepting, lets in-flight
     * requests finish (bounded by {@link ServerConfig#drainTimeout()}), then closes every
     * connection. Idempotent.
     */
    @Override
    void close();

    /**
     * Blocks until the server has closed, that is until a {@link #close()} (from any thread, or the
     * shutdown hook) has finished.
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void awaitTermination() throws InterruptedException;
}
