package dev.spindle.nio;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One boss thread accepts and hands connections round-robin to {@code workers} event loops that
 * serve them (Netty's boss/worker pattern); the boss serves none itself. Options are those of the
 * engine, {@link NioServer}.
 */
public final class BossWorkerServer extends NioServer {
    public BossWorkerServer(ServerConfig config, Router router) {
        super("BossWorkerServer", Topology.BOSS_WORKER, config, router);
    }

    public static void main(String[] args) {
        Launcher.run(BossWorkerServer.class, args, BossWorkerServer::new);
    }
}
