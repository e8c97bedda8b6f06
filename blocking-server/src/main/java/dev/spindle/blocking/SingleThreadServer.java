package dev.spindle.blocking;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One thread accepts and serves each connection to completion, the classic iterative server. Every
 * response says {@code Connection: close}, so one client cannot hold the server; {@code workers}
 * is accepted and ignored.
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

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(SingleThreadServer.class, args, SingleThreadServer::new);
    }
}
