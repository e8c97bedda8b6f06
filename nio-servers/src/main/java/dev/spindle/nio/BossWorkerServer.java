package dev.spindle.nio;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One boss thread accepts and hands connections round-robin to {@code workers} event loops that
 * serve them (Netty's boss/worker pattern); the boss serves none itself. Options are those of the
 * engine, {@link NioServer}.
 */
public final class BossWorkerServer extends NioServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public BossWorkerServer(ServerConfig config, Router router) {
        super("BossWorkerServer", Topology.BOSS_WORKER, config, router);
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(BossWorkerServer.class, args, BossWorkerServer::new);
    }
}
