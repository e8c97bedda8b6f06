package dev.spindle.nio;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One event loop accepts and serves every connection (Redis-style); {@code workers} is accepted
 * and ignored. Blocking routes still run on virtual threads. Options are those of the engine,
 * {@link NioServer}.
 */
public final class SingleLoopServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public SingleLoopServer(ServerConfig config, Router router) {
        super("SingleLoopServer", Topology.SINGLE_LOOP, config, router);
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(SingleLoopServer.class, args, SingleLoopServer::new);
    }
}
