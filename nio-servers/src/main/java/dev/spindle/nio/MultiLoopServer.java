package dev.spindle.nio;

import dev.spindle.benchmark.Launcher;
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
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public MultiLoopServer(ServerConfig config, Router router) {
        super("MultiLoopServer", Topology.MULTI_LOOP, config, router);
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(MultiLoopServer.class, args, MultiLoopServer::new);
    }
}
