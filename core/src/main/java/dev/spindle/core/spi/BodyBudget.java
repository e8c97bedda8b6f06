// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.ServerConfig;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a server's connections may hold in buffered request bodies at once
 * ({@link ServerConfig#bufferedBodyBudget()}), shared by all of its threads: one per server
 * instance, made when the server is, and handed to every connection it opens
 * ({@link Connection#open(dev.spindle.core.Router, ServerConfig, java.util.concurrent.Executor, Runnable, BodyBudget)}).
 * A connection reserves what its input buffer grows beyond its initial size and releases it when
 * the request is consumed or the connection ends; a body that does not fit is refused (503, or
 * 413 when it could never fit) instead of running the heap out.
 */
public final class BodyBudget {
    private final long capacity;
    private final AtomicLong reserved = new AtomicLong();

    /**
     * A budget with nothing reserved yet.
     *
     * @param capacity the most bytes reserved at once; {@link Long#MAX_VALUE} for no bound
     * @throws IllegalArgumentException if {@code capacity} is negative
     */
    public BodyBudget(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative, got " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * The budget a server with {@code config} shares among its connections.
     *
     * @param config the server's configuration
     * @return a new budget of {@link ServerConfig#bufferedBodyBudget()} bytes
     */
    public static BodyBudget of(ServerConfig config) {
        return new BodyBudget(config.bufferedBodyBudget());
    }

    /**
     * Reserves {@code bytes} if they fit beside what is reserved already. Safe to call from any
     * thread; never blocks.
     *
     * @param bytes how many bytes to reserve, 0 or more
     * @return true if they were reserved (then {@link #release} them), false if the budget is spent
     *         and nothing was reserved
     */
    public boolean tryReserve(long bytes) {
        for (long n = reserved.get(); n <= capacity - bytes; n = reserved.get()) {
            if (reserved.compareAndSet(n, n + bytes)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Gives back bytes {@link #tryReserve} reserved. Safe to call from any thread.
     *
     * @param bytes how many, at most what the caller reserved and has not released
     */
    public void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /**
     * The most bytes reserved at once.
     *
     * @return the capacity given at construction
     */
    public long capacity() {
        return capacity;
    }

    /**
     * Bytes reserved now, for tests and monitoring.
     *
     * @return a snapshot that may change at once
     */
    public long reserved() {
        return reserved.get();
    }
}
