package dev.spindle.nio;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * {@code workers} event loops, each accepting on its own listening socket bound to the same port
 * with {@code SO_REUSEPORT}, so the kernel balances new connections across them. Fails to start
 * where the platform lacks the option. Options are those of the engine, {@link NioServer}.
 */
public final class ReusePortServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public ReusePortServer(ServerConfig config, Router router) {
        super("ReusePortServer", Topology.REUSE_PORT, config, router);
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(ReusePortServer.class, args, ReusePortServer::new);
    }
}
