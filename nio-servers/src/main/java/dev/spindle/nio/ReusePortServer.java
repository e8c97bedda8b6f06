// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * {@code workers} event loops, each accepting on its own listening socket bound to the same port
 * with {@code SO_REUSEPORT}, so the kernel balances new connections across them. Fails to start
 * where the platform lacks the option. Options are those of the engine, {@link NioServer}.
 */
public final class ReusePortServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with the NIO
     * settings its {@code -Dspindle.*} properties give ({@link NioSettings#fromSystemProperties()}).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @throws IllegalArgumentException if a NIO property does not parse or is out of range
     */
    public ReusePortServer(ServerConfig config, Router router) {
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
    public ReusePortServer(ServerConfig config, Router router, NioSettings settings) {
        super("ReusePortServer", Topology.REUSE_PORT, config, router, settings);
    }
}
