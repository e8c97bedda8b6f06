// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A fixed pool of {@code workers} platform threads, each serving one connection at a time, with
 * up to {@link BlockingSettings#queueCapacity()} accepted connections waiting for a thread. A
 * connection waiting for its peer's bytes gives its thread back after 2 ms of silence, whether it
 * is idle between requests or stalled inside one (request line, headers, or a body read whole): it
 * waits on a virtual thread (the JDK's poller) and rejoins the queue when bytes arrive, as a Tomcat
 * NIO connector's poller does, so neither idle keep-alive connections nor slow clients hold the
 * pool (200 stalled requests and 2,000 idle connections leave 200 threads free); the header
 * timeout's 408, and the lingering after it, are sent from that virtual thread too. Only a body a
 * blocking handler is reading as a stream holds its thread while it arrives. When connections
 * are waiting, a connection whose next request arrives is closed after that response so others
 * get a turn; when the queue is full too, new connections (and a parked one whose next request
 * finds no room) are answered 503.
 */
public final class ThreadPoolServer extends BlockingServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with the settings
     * its {@code -Dspindle.*} properties give ({@link BlockingSettings#fromSystemProperties()}).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @throws IllegalArgumentException if a property of {@link BlockingSettings} does not parse or is out of range
     */
    public ThreadPoolServer(ServerConfig config, Router router) {
        this(config, router, BlockingSettings.fromSystemProperties());
    }

    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with these
     * settings; their system properties are not read.
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @param settings the queue of connections waiting for a thread ({@link BlockingSettings#defaults()} for the default)
     */
    public ThreadPoolServer(ServerConfig config, Router router, BlockingSettings settings) {
        super("ThreadPoolServer", config, router, Dispatch.pool("ThreadPoolServer", config.workers(), settings.queueCapacity()));
    }
}
