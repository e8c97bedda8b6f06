package dev.spindle.nio;

import dev.spindle.core.Launcher;
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
    public MultiLoopServer(ServerConfig config, Router router) {
        super("MultiLoopServer", Topology.MULTI_LOOP, config, router);
    }

    public static void main(String[] args) {
        Launcher.run(MultiLoopServer.class, args, MultiLoopServer::new);
    }
}
