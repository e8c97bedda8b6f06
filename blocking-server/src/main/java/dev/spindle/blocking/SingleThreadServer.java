// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One thread accepts and serves each connection to completion, the classic iterative server. Every
 * HTTP/1.1 response says {@code Connection: close}, so one client cannot hold the server; an
 * HTTP/2 client, whose streams share one connection by design, holds it until it ends that
 * connection or it idles (the iterative model cannot serve two connections at once).
 * {@code workers} is accepted and ignored.
 */
public final class SingleThreadServer extends BlockingServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public SingleThreadServer(ServerConfig config, Router router) {
        super("SingleThreadServer", config.keepAlive(false), router, Dispatch.inline());
    }
}
