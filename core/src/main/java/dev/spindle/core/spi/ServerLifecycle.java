// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The start and close bookkeeping every server shares: started once, closed once by whoever
 * calls {@link #beginClose()} first, and awaitable until the close is done.
 */
public final class ServerLifecycle {
    private final String name;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile Thread shutdownHook;

    /**
     * The bookkeeping of a server not yet started.
     *
     * @param name the server's name, for error messages and the shutdown hook's thread name
     */
    public ServerLifecycle(String name) {
        this.name = name;
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
     * Whether a close has begun (or the server was closed before it started).
     *
     * @return true once {@link #beginClose()} was called; it stays true
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
     * @return true if the caller must perform the close and then call {@link #markTerminated()}
     */
    public boolean beginClose() {
        if (!started.get()) {
            closing.set(true);
            terminated.countDown();
            return false;
        }
        if (closing.compareAndSet(false, true)) {
            Thread hook = shutdownHook;
            shutdownHook = null;
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down already: the hook runs close(), which will find it closed
                }
            }
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
