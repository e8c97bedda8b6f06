package dev.spindle.blocking;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A fixed pool of {@code workers} platform threads, each serving one connection at a time, with
 * up to {@link ServerConfig#queueCapacity()} accepted connections waiting for a thread. When
 * connections are waiting, a busy thread ends its connection after the current response so the
 * next one gets a turn; when the queue is full too, new connections are answered 503.
 */
public final class ThreadPoolServer extends BlockingServer {
    public ThreadPoolServer(ServerConfig config, Router router) {
        super("ThreadPoolServer", config, router, Dispatch.pool("ThreadPoolServer", config.workers(), config.queueCapacity()));
    }

    public static void main(String[] args) {
        Launcher.run(ThreadPoolServer.class, args, ThreadPoolServer::new);
    }
}
