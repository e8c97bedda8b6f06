// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/** What the selector threads share: the options, the phase, the window, the open slots and counters. */
final class Run {
    static final int OPEN = 0;
    static final int RUN = 1;
    static final int DRAIN = 2;
    static final int CLOSE = 3;

    final Options options;
    final InetSocketAddress address;
    final Tracker tracker;
    volatile int phase = OPEN;
    volatile long windowStart;
    volatile long windowEnd;
    final AtomicInteger liveSubscribers = new AtomicInteger();
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger finishedOpening = new AtomicInteger();
    volatile boolean publisherOpen;
    volatile Throwable failure;
    private final AtomicInteger openSlots;

    Run(Options options) {
        this.options = options;
        this.address = new InetSocketAddress(options.host(), options.port());
        this.tracker = new Tracker(options.inflight());
        this.openSlots = new AtomicInteger(options.openConcurrency());
    }

    /** Whether {@code nanos} falls in the measured window [start, end). */
    boolean inWindow(long nanos) {
        return nanos - windowStart >= 0 && nanos - windowEnd < 0 && phase != OPEN;
    }

    /** Which of the measured windows {@code nanos} falls in, or -1 outside them all. */
    int windowIndex(long nanos) {
        if (!inWindow(nanos)) {
            return -1;
        }
        int k = options.windows();
        return (int) Math.min(k - 1, (nanos - windowStart) * k / (windowEnd - windowStart));
    }

    boolean takeOpenSlot() {
        while (true) {
            int n = openSlots.get();
            if (n <= 0) {
                return false;
            }
            if (openSlots.compareAndSet(n, n - 1)) {
                return true;
            }
        }
    }

    void openFinished() {
        openSlots.incrementAndGet();
        finishedOpening.incrementAndGet();
    }

    void opened(Conn c) {
        if (c.isPublisher()) {
            publisherOpen = true;
            return;
        }
        opened.incrementAndGet();
        if (c.isSubscriber()) {
            liveSubscribers.incrementAndGet();
        }
    }

    void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
    }
}
