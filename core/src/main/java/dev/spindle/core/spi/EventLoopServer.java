// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shell every event-loop server shares (NIO and io_uring): configuration, start and graceful
 * close, the connection limit, the drain deadline, the virtual-thread executor for blocking
 * handlers, and one platform thread per loop. A strategy says only how it binds and what its loops
 * are ({@link #bind}); each loop sees its server through a {@link LoopContext}.
 */
public abstract class EventLoopServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(EventLoopServer.class);

    /** One loop: a {@code Runnable} run on its own platform thread until the server has closed. */
    public interface Loop extends Runnable {
        /**
         * The name of the loop's platform thread, as seen in thread dumps and logs.
         *
         * @return the thread name
         */
        String name();

        /** Makes the loop leave its wait soon (to notice a close); callable from any thread. */
        void wakeup();

        /**
         * Blocks until the loop, started on its thread, serves (or throws why it cannot). Called by
         * {@link EventLoopServer#start()} on the starting thread, once per loop; the default returns
         * at once, for loops that are ready as soon as {@link EventLoopServer#bind} made them.
         *
         * @throws IOException if the loop cannot serve (its setup on its own thread failed); the
         *         server then closes and {@code start()} rethrows it
         */
        default void awaitReady() throws IOException {
        }

        /** Releases what a loop that never ran holds (its thread was not started). */
        default void discard() {
        }
    }

    /**
     * What {@link #bind} made: the loops to run and the address they serve.
     *
     * @param loops the loops, each to run on its own platform thread; not yet started
     * @param address the bound address, with the actual port when port 0 was configured; what
     *        {@link EventLoopServer#address()} reports
     */
    public record Bound(List<? extends Loop> loops, InetSocketAddress address) {
    }

    private final String name;
    private final ServerConfig config;
    private final Router router;
    private final ConnectionLimit connections;
    private final BodyBudget bodyBudget;
    private final ServerLifecycle lifecycle;
    private final ExecutorService blockingExecutor;
    private final Context context = new Context();
    private final List<Thread> threads = new ArrayList<>();
    private List<? extends Loop> loops = List.of();
    /** Set after {@link #drainDeadline}, so a loop that sees it also sees the deadline. */
    private volatile boolean closing;
    private volatile long drainDeadline;
    private volatile InetSocketAddress address;

    /**
     * A server not yet started: nothing is bound and no thread runs until {@link #start()}.
     *
     * @param name the server's name, for thread names and logs
     * @param config the settings, including {@link ServerConfig#maxConnections()} and
     *        {@link ServerConfig#drainTimeout()}
     * @param router the routes every connection dispatches to
     */
    protected EventLoopServer(String name, ServerConfig config, Router router) {
        this.name = name;
        this.config = config;
        this.router = router;
        this.connections = new ConnectionLimit(config.maxConnections());
        this.bodyBudget = BodyBudget.of(config);
        this.lifecycle = new ServerLifecycle(name, config, router);
        this.blockingExecutor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-blocking-", 0).factory());
    }

    /**
     * Opens the listening sockets and creates the loops, not yet running. On failure it closes and
     * discards what it opened itself. Called once, by {@link #start()} on the starting thread.
     *
     * @param context what the loops may use of this server; hand it to each loop
     * @return the loops to run and the bound address
     * @throws IOException if a listening socket cannot be opened or bound; {@code start()} then
     *         stops the server and rethrows it
     */
    protected abstract Bound bind(LoopContext context) throws IOException;

    @Override
    public final HttpServer start() throws IOException {
        lifecycle.markStarted();
        Bound bound;
        try {
            bound = bind(context);
        } catch (IOException | RuntimeException e) {
            blockingExecutor.shutdownNow();
            lifecycle.markTerminated();
            throw e;
        }
        loops = bound.loops();
        address = bound.address();
        for (Loop loop : loops) {
            threads.add(Thread.ofPlatform().name(loop.name()).start(loop));
        }
        try {
            for (Loop loop : loops) {
                loop.awaitReady();
            }
        } catch (IOException | RuntimeException e) {
            lifecycle.beginClose();
            stop(System.nanoTime());
            throw e;
        }
        log.info("{} listening on {} ({} loop{}{})", name, address, loops.size(), loops.size() == 1 ? "" : "s",
                config.tls() != null ? ", TLS" : "");
        lifecycle.started(this, config.shutdownHook());
        return this;
    }

    @Override
    public final InetSocketAddress address() {
        InetSocketAddress bound = address;
        if (bound == null) {
            throw new IllegalStateException(name + " is not started");
        }
        return bound;
    }

    /**
     * Connections being served (not counting rejected ones), for tests and monitoring.
     *
     * @return how many admitted connections are still open; a snapshot
     */
    public final int connectionCount() {
        return connections.count();
    }

    /**
     * The server's name, for subclasses' thread names and logs.
     *
     * @return the name given to the constructor
     */
    protected final String name() {
        return name;
    }

    /**
     * The server's settings, for subclasses.
     *
     * @return the configuration given to the constructor
     */
    protected final ServerConfig config() {
        return config;
    }

    @Override
    public final void close() {
        if (!lifecycle.beginClose()) {
            return;
        }
        stop(System.nanoTime() + config.drainTimeout().toNanos());
        log.info("{} closed", name);
    }

    private void stop(long deadline) {
        drainDeadline = deadline;
        closing = true;
        loops.forEach(Loop::wakeup);
        long joinMillis = config.drainTimeout().toMillis() + 5_000;
        for (Thread thread : threads) {
            if (thread == Thread.currentThread()) {
                continue;
            }
            try {
                thread.join(joinMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (thread.isAlive()) {
                log.warn("{}: {} did not stop in time", name, thread.getName());
            }
        }
        blockingExecutor.shutdownNow();
        try {
            blockingExecutor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lifecycle.markTerminated();
    }

    @Override
    public final void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    @Override
    public String toString() {
        return name + (address == null ? "" : " on " + address);
    }

    private final class Context implements LoopContext {
        @Override
        public String name() {
            return name;
        }

        @Override
        public ServerConfig config() {
            return config;
        }

        @Override
        public Router router() {
            return router;
        }

        @Override
        public Executor blockingExecutor() {
            return blockingExecutor;
        }

        @Override
        public BodyBudget bodyBudget() {
            return bodyBudget;
        }

        @Override
        public boolean tryAcquireConnection() {
            return connections.tryAcquire();
        }

        @Override
        public void releaseConnection() {
            connections.release();
        }

        @Override
        public boolean isClosing() {
            return closing;
        }

        @Override
        public long drainDeadline() {
            return drainDeadline;
        }
    }
}
