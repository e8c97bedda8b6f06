// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One event loop accepts and serves every connection (Redis-style); {@code workers} is accepted
 * and ignored. Blocking routes still run on virtual threads. Options are those of the engine,
 * {@link NioServer}.
 */
public final class SingleLoopServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with the NIO
     * settings its {@code -Dspindle.*} properties give ({@link NioSettings#fromSystemProperties()}).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @throws IllegalArgumentException if a NIO property does not parse or is out of range
     */
    public SingleLoopServer(ServerConfig config, Router router) {
        this(config, router, NioSettings.fromSystemProperties());
    }

    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with these NIO
     * settings; their system properties are not read.
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @param settings busy-polling and read buffers ({@link NioSettings#defaults()} for the defaults)
     */
    public SingleLoopServer(ServerConfig config, Router router, NioSettings settings) {
        super("SingleLoopServer", Topology.SINGLE_LOOP, config, router, settings);
    }
}
