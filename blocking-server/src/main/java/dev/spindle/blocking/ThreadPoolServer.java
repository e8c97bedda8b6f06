package dev.spindle.blocking;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Launcher;

/**
 * A fixed pool of {@code workers} platform threads, each serving one connection at a time, with
 * up to {@link ServerConfig#queueCapacity()} accepted connections waiting for a thread. When
 * connections are waiting, a busy thread ends its connection after the current response so the
 * next one gets a turn; when the queue is full too, new connections are answered 503.
 */
public final class ThreadPoolServer extends BlockingServer {
    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     */
    public ThreadPoolServer(ServerConfig config, Router router) {
        super("ThreadPoolServer", config, router, Dispatch.pool("ThreadPoolServer", config.workers(), config.queueCapacity()));
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(ThreadPoolServer.class, args, ThreadPoolServer::new);
    }
}
