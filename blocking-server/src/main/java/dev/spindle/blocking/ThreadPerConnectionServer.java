package dev.spindle.blocking;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A new platform thread per connection; {@code workers} is accepted and ignored (threads are
 * unbounded, up to {@link ServerConfig#maxConnections()}).
 */
public final class ThreadPerConnectionServer extends BlockingServer {
    public ThreadPerConnectionServer(ServerConfig config, Router router) {
        super("ThreadPerConnectionServer", config, router, Dispatch.newThread(Thread.ofPlatform().name("ThreadPerConnectionServer-conn-", 0)));
    }

    public static void main(String[] args) {
        Launcher.run(ThreadPerConnectionServer.class, args, ThreadPerConnectionServer::new);
    }
}
