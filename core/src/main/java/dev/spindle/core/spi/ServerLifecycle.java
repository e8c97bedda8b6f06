// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.Health;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start and close bookkeeping every server shares: started once, closed once by whoever
 * calls {@link #beginClose()} first, and awaitable until the close is done. The close of a
 * started server begins the same way on every strategy: the router's {@link Health} readiness
 * goes down, the server serves on for {@link ServerConfig#drainDelay()}, and only then does
 * {@link #beginClose()} return for the strategy to drain.
 */
public final class ServerLifecycle {
    private static final Logger log = LoggerFactory.getLogger(ServerLifecycle.class);

    private final String name;
    private final Health health;
    private final Duration drainDelay;
    private final AtomicBoolean started = new AtomicBoolean();
    /** Whether {@link #started} ran: only a server that served waits out the drain delay. */
    private volatile boolean running;
    /** Claimed by the one caller of {@link #beginClose()} that performs the close. */
    private final AtomicBoolean closeClaimed = new AtomicBoolean();
    /** Set once the drain may begin: after the drain delay. */
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile Thread shutdownHook;

    /**
     * The bookkeeping of a server not yet started, with no health to turn down and no drain delay.
     *
     * @param name the server's name, for error messages and the shutdown hook's thread name
     */
    public ServerLifecycle(String name) {
        this(name, null, Duration.ZERO);
    }

    /**
     * The bookkeeping of a server not yet started, serving {@code router} with {@code config}.
     *
     * @param name the server's name, for error messages and the shutdown hook's thread name
     * @param config its settings: the {@link ServerConfig#drainDelay()} a close waits before the drain
     * @param router its routes: the {@link Router#health()} a close turns down first, if any
     */
    public ServerLifecycle(String name, ServerConfig config, Router router) {
        this(name, router.health(), config.drainDelay());
    }

    private ServerLifecycle(String name, Health health, Duration drainDelay) {
        this.name = name;
        this.health = health;
        this.drainDelay = drainDelay;
    }

    /**
     * The server's name.
     *
     * @return the name given to the constructor
     */
    public String name() {
        return name;
    }

    /**
     * Records the start; call it first thing in {@link HttpServer#start()}, before binding, so a
     * second start fails even when the first one failed.
     *
     * @throws IllegalStateException when the server was started before
     */
    public void markStarted() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException(name + " already started");
        }
    }

    /**
     * After a successful start: with {@code hook}, a JVM shutdown (SIGTERM, SIGINT,
     * {@code System.exit}) closes {@code server} gracefully; the hook goes away when the server
     * is closed another way, so closed servers are not kept until the JVM ends. If the JVM is
     * already shutting down, no hook is registered.
     *
     * @param server the server the hook closes
     * @param hook whether to register the hook ({@link ServerConfig#shutdownHook()}); false does nothing
     */
    public void started(HttpServer server, boolean hook) {
        running = true;
        if (!hook) {
            return;
        }
        Thread t = new Thread(server::close, name + "-shutdown");
        try {
            Runtime.getRuntime().addShutdownHook(t);
            shutdownHook = t;
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: nothing will wait for this server
        }
    }

    /** The registered shutdown hook, or null; for tests. */
    Thread shutdownHook() {
        return shutdownHook;
    }

    /**
     * Whether the drain has begun (or the server was closed before it started): from here on the
     * server drains. During the drain delay it is still false, and the server serves as usual.
     *
     * @return true once {@link #beginClose()} is past the drain delay; it stays true
     */
    public boolean isClosing() {
        return closing.get();
    }

    /**
     * True for the one caller that must perform the close, which ends it with
     * {@link #markTerminated()}. Any later caller waits until that close is done and gets false,
     * as does a caller on a server that never started. If the waiting caller is interrupted it
     * returns false at once, with its interrupt status set.
     *
     * <p>For a server that started, the performing caller first turns the router's health down
     * ({@link Health#markDraining()}), then waits {@link ServerConfig#drainDelay()} while the server
     * serves on ({@link #isClosing()} still false), then returns true. Interrupted in that wait, it
     * returns true at once with its interrupt status set, which hurries the drain too.
     *
     * @return true if the caller must perform the close and then call {@link #markTerminated()}
     */
    public boolean beginClose() {
        if (!started.get()) {
            closing.set(true);
            terminated.countDown();
            return false;
        }
        if (closeClaimed.compareAndSet(false, true)) {
            Thread hook = shutdownHook;
            shutdownHook = null;
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down already: the hook runs close(), which will find it closed
                }
            }
            if (running) {
                if (health != null) {
                    health.markDraining();
                }
                serveOnForTheDrainDelay();
            }
            closing.set(true);
            return true;
        }
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * Sleeps the drain delay on the closing thread while the server serves as usual: a balancer
     * probing readiness sees it down and stops sending before the drain closes the listener.
     */
    private void serveOnForTheDrainDelay() {
        if (drainDelay.isZero()) {
            return;
        }
        log.info("{}: readiness DOWN; serving on for {} ms before the drain", name, drainDelay.toMillis());
        long deadline = System.nanoTime() + drainDelay.toNanos();
        try {
            for (long left = drainDelay.toNanos(); left > 0; left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.sleep(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.info("{}: drain delay interrupted; draining now", name);
        }
    }

    /**
     * Records that the close is done (or that a failed start left nothing to close): releases
     * {@link #awaitTermination()} and later {@link #beginClose()} callers. Idempotent.
     */
    public void markTerminated() {
        terminated.countDown();
    }

    /**
     * Blocks until {@link #markTerminated()} was called, or until a {@link #beginClose()} on a
     * server that never started; returns at once after that.
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * Graceful drain: runs {@code nudge} (e.g. close idle connections) every few milliseconds
     * until {@code drained} holds or {@code timeout} passes; returns whether it drained. Runs on,
     * and sleeps, the calling thread (the one closing the server). If that thread is interrupted it
     * stops waiting at once and keeps the interrupt status set.
     *
     * @param drained checked before every nudge; true when nothing is left in flight
     * @param nudge run between checks, about every 5 ms; may be a no-op
     * @param timeout how long to wait at most; zero or negative gives up almost at once
     * @return true if {@code drained} held before the timeout (or at the interrupt)
     */
    public static boolean drain(BooleanSupplier drained, Runnable nudge, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!drained.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            nudge.run();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return drained.getAsBoolean();
            }
        }
        return true;
    }
}
