package dev.spindle.blocking;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * One thread accepts and serves each connection to completion, the classic iterative server. Every
 * response says {@code Connection: close}, so one client cannot hold the server; {@code workers}
 * is accepted and ignored.
 */
public final class SingleThreadServer extends BlockingServer {
    public SingleThreadServer(ServerConfig config, Router router) {
        super("SingleThreadServer", config.keepAlive(false), router, Dispatch.inline());
    }

    public static void main(String[] args) {
        Launcher.run(SingleThreadServer.class, args, SingleThreadServer::new);
    }
}
