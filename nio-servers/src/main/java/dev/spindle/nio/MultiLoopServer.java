// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * {@code workers} independent event loops; loop 0 also accepts, handing accepted connections out
 * round-robin over all loops, itself included. (Not every loop selecting on the shared listening
 * socket: that wakes every loop per connection and spreads them unevenly.) Options are those of
 * the engine, {@link NioServer}; the benchmark matrix runs it with and without
 * {@code -Dspindle.busyPoll=true}.
 */
public final class MultiLoopServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with the NIO
     * settings its {@code -Dspindle.*} properties give ({@link NioSettings#fromSystemProperties()}).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @throws IllegalArgumentException if a NIO property does not parse or is out of range
     */
    public MultiLoopServer(ServerConfig config, Router router) {
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
    public MultiLoopServer(ServerConfig config, Router router, NioSettings settings) {
        super("MultiLoopServer", Topology.MULTI_LOOP, config, router, settings);
    }
}
