// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.ServerConfig;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts open connections against {@link ServerConfig#maxConnections()}, shared by a server's threads. */
public final class ConnectionLimit {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * A limit with no connection counted yet.
     *
     * @param max how many connections may be open at once; 0 or less admits none
     */
    public ConnectionLimit(int max) {
        this.max = max;
    }

    /**
     * Counts a new connection; false when the limit is reached (answer it 503 instead). Safe to
     * call from any thread; never blocks.
     *
     * @return true if the connection was counted (it must later {@link #release()}), false if the
     *         limit is reached and nothing was counted
     */
    public boolean tryAcquire() {
        for (int n = open.get(); n < max; n = open.get()) {
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Uncounts a connection that {@link #tryAcquire()} admitted, once it is closed; call it exactly
     * once per successful acquire (never for a rejected one). Safe to call from any thread.
     */
    public void release() {
        open.decrementAndGet();
    }

    /**
     * Connections being served, for tests and monitoring.
     *
     * @return how many acquired connections are not yet released; a snapshot that may change at once
     */
    public int count() {
        return open.get();
    }
}
