// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/** Counts events in fixed windows of time and says when more than allowed came in one. */
final class RateCounter {
    private final int max;
    private final long windowNanos;
    private long windowStart;
    private int count;

    RateCounter(int max, long windowNanos) {
        this.max = max;
        this.windowNanos = windowNanos;
    }

    /**
     * One event at {@code now}.
     *
     * @return false when it is one too many for its window
     */
    boolean add(long now) {
        if (count == 0 || now - windowStart >= windowNanos) {
            windowStart = now;
            count = 0;
        }
        return ++count <= max;
    }

    /** Takes back one event of the current window, if it has any: something made up for it. */
    void giveBack() {
        if (count > 0) {
            count--;
        }
    }
}
