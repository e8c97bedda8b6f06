// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A new virtual thread per connection; {@code workers} is accepted and ignored (the JDK's carrier
 * pool sizes itself to the processors).
 */
public final class VirtualThreadServer extends BlockingServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public VirtualThreadServer(ServerConfig config, Router router) {
        super("VirtualThreadServer", config, router, Dispatch.newThread(Thread.ofVirtual().name("VirtualThreadServer-conn-", 0)));
    }
}
