// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A new platform thread per connection; {@code workers} is accepted and ignored (threads are
 * unbounded, up to {@link ServerConfig#maxConnections()}).
 */
public final class ThreadPerConnectionServer extends BlockingServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public ThreadPerConnectionServer(ServerConfig config, Router router) {
        super("ThreadPerConnectionServer", config, router, Dispatch.newThread(Thread.ofPlatform().name("ThreadPerConnectionServer-conn-", 0)));
    }
}
