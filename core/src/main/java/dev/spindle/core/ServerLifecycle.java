package dev.spindle.core;

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

    public ServerLifecycle(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** @throws IllegalStateException when the server was started before */
    public void markStarted() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException(name + " already started");
        }
    }

    public boolean isClosing() {
        return closing.get();
    }

    /**
     * True for the one caller that must perform the close, which ends it with
     * {@link #markTerminated()}. Any later caller waits until that close is done and gets false,
     * as does a caller on a server that never started.
     */
    public boolean beginClose() {
        if (!started.get()) {
            closing.set(true);
            terminated.countDown();
            return false;
        }
        if (closing.compareAndSet(false, true)) {
            return true;
        }
        try {
            terminated.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    public void markTerminated() {
        terminated.countDown();
    }

    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * Graceful drain: runs {@code nudge} (e.g. close idle connections) every few milliseconds
     * until {@code drained} holds or {@code timeout} passes; returns whether it drained.
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
