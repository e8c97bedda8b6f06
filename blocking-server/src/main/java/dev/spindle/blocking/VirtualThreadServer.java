package dev.spindle.blocking;

import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * A new virtual thread per connection; {@code workers} is accepted and ignored (the JDK's carrier
 * pool sizes itself to the processors).
 */
public final class VirtualThreadServer extends BlockingServer {
    public VirtualThreadServer(ServerConfig config, Router router) {
        super("VirtualThreadServer", config, router, Dispatch.newThread(Thread.ofVirtual().name("VirtualThreadServer-conn-", 0)));
    }

    public static void main(String[] args) {
        Launcher.run(VirtualThreadServer.class, args, VirtualThreadServer::new);
    }
}
