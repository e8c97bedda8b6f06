package dev.spindle.nio;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * {@code workers} independent event loops; loop 0 also accepts and hands accepted channels out round-robin over all loops, itself included (see {@link Topology#MULTI_LOOP} for why not every loop accepts).
 * Options are those of the engine, {@link NioServer}.
 */
public final class MultiLoopServer extends NioServer {
    public MultiLoopServer(ServerConfig config, Router router) {
        super("MultiLoopServer", Topology.MULTI_LOOP, config, router);
    }

    public static void main(String[] args) {
        Launcher.run(MultiLoopServer.class, args, MultiLoopServer::new);
    }
}
