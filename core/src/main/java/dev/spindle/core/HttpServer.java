package dev.spindle.core;

import java.io.IOException;
import java.net.InetSocketAddress;

/** What every Spindle server is, whatever its I/O strategy. */
public interface HttpServer extends AutoCloseable {
    /** Binds and starts serving; returns this server once it accepts connections. */
    HttpServer start() throws IOException;

    /** The bound address; valid after {@link #start()}. */
    InetSocketAddress address();

    default int port() {
        return address().getPort();
    }

    /**
     * Graceful close: stops accepting, lets in-flight requests finish (bounded by
     * {@link ServerConfig#drainTimeout()}), then closes every connection. Idempotent.
     */
    @Override
    void close();

    /** Blocks until the server has closed. */
    void awaitTermination() throws InterruptedException;
}
