package dev.spindle.core;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts open connections against {@link ServerConfig#maxConnections()}, shared by a server's threads. */
public final class ConnectionLimit {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionLimit(int max) {
        this.max = max;
    }

    /** Counts a new connection; false when the limit is reached (answer it 503 instead). */
    public boolean tryAcquire() {
        for (int n = open.get(); n < max; n = open.get()) {
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    public void release() {
        open.decrementAndGet();
    }

    /** Connections being served, for tests and monitoring. */
    public int count() {
        return open.get();
    }
}
