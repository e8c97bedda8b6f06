// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Who runs a connection's blocking loop. This is the only thing the blocking servers differ in,
 * besides their name and whether they keep connections alive.
 */
interface Dispatch {
    /** Runs {@code connection}; false when no thread can take it now (the server answers 503). */
    boolean execute(Runnable connection);

    /** Connections are waiting for a thread: a running one should close after its response. */
    default boolean saturated() {
        return false;
    }

    /**
     * Whether a connection waiting for its peer's bytes (its next request, or the rest of a stalled
     * one) gives its thread back: it waits on a virtual
     * thread (the JDK's poller, no platform thread held) and comes back through {@link #execute}
     * once bytes arrive, as a Tomcat NIO connector's poller does. Only a pool gains from it.
     */
    default boolean parksIdle() {
        return false;
    }

    /** Lets running connections finish and releases threads, waiting at most {@code timeout}. */
    default void shutdown(Duration timeout) {
    }

    /** The accepting thread serves the connection itself, one at a time. */
    static Dispatch inline() {
        return connection -> {
            connection.run();
            return true;
        };
    }

    static Dispatch newThread(Thread.Builder builder) {
        return connection -> {
            builder.start(connection);
            return true;
        };
    }

    /** A fixed pool of {@code threads} with a bounded queue of connections waiting for one. */
    static Dispatch pool(String name, int threads, int queueCapacity) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queueCapacity), Thread.ofPlatform().name(name + "-worker-", 0).factory(),
                new ThreadPoolExecutor.AbortPolicy());
        return new Dispatch() {
            @Override
            public boolean execute(Runnable connection) {
                try {
                    executor.execute(connection);
                    return true;
                } catch (RejectedExecutionException e) {
                    return false;
                }
            }

            @Override
            public boolean saturated() {
                return !executor.getQueue().isEmpty();
            }

            @Override
            public boolean parksIdle() {
                return true;
            }

            @Override
            public void shutdown(Duration timeout) {
                terminate(executor, timeout);
            }
        };
    }

    private static void terminate(ExecutorService executor, Duration timeout) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
