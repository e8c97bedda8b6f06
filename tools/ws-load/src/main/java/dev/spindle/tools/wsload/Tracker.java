// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The published messages of broadcast and sse not yet delivered to every subscriber, shared by the
 * selector threads. A slot holds {@code seq << 24 | deliveries still missing} in one word, so a
 * delivery, the completion and the 10 s expiry race only through compare-and-set: exactly one of them
 * takes a message's count to zero, and a late delivery for a reused slot sees another sequence number.
 */
final class Tracker {
    static final int SEQ_WIDTH = 10;
    private static final int COUNT_BITS = 24;
    private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
    static final int MAX_SUBSCRIBERS = (int) COUNT_MASK;

    private final int mask;
    private final AtomicLongArray state;
    private final AtomicLongArray sentAt;
    final AtomicInteger unfinished = new AtomicInteger();
    private volatile Loop publisherLoop;

    Tracker(int inflight) {
        // Room for 8 K messages: a slot is reused only once its message finished (the publisher waits otherwise).
        int size = Integer.highestOneBit(Math.max(1024, inflight * 8 - 1)) << 1;
        mask = size - 1;
        state = new AtomicLongArray(size);
        sentAt = new AtomicLongArray(size);
    }

    int capacity() {
        return mask + 1;
    }

    void publisherLoop(Loop loop) {
        publisherLoop = loop;
    }

    /** Whether {@code seq}'s slot is free (its previous message finished), so it may be published. */
    boolean free(long seq) {
        return (state.get((int) (seq & mask)) & COUNT_MASK) == 0;
    }

    /** Registers {@code seq} as sent at {@code nanos} to {@code subscribers} subscribers. */
    void sent(long seq, long nanos, int subscribers) {
        int slot = (int) (seq & mask);
        sentAt.set(slot, nanos);
        if (subscribers > 0) {
            unfinished.incrementAndGet();
        }
        state.set(slot, seq << COUNT_BITS | subscribers);
    }

    long sentAt(long seq) {
        return sentAt.get((int) (seq & mask));
    }

    /**
     * One delivery of {@code seq}: its latency in nanoseconds, or -1 when the message is unknown or
     * already finished (expired, or more deliveries than subscribers).
     */
    long deliver(long seq, long nanos, Loop here) {
        int slot = (int) (seq & mask);
        while (true) {
            long s = state.get(slot);
            long left = s & COUNT_MASK;
            if (s >>> COUNT_BITS != seq || left == 0) {
                return -1;
            }
            long sent = sentAt.get(slot);
            if (state.compareAndSet(slot, s, s - 1)) {
                if (left == 1) {
                    unfinished.decrementAndGet();
                    Loop p = publisherLoop;
                    if (p != null && p != here) {
                        p.wakeup();
                    }
                }
                return nanos - sent;
            }
        }
    }

    /** Ends {@code seq} unfinished: the deliveries it still missed, 0 when it had finished. */
    long expire(long seq) {
        int slot = (int) (seq & mask);
        while (true) {
            long s = state.get(slot);
            long left = s & COUNT_MASK;
            if (s >>> COUNT_BITS != seq || left == 0) {
                return 0;
            }
            if (state.compareAndSet(slot, s, seq << COUNT_BITS)) {
                unfinished.decrementAndGet();
                return left;
            }
        }
    }

    /** Whether {@code seq} is still missing deliveries. */
    boolean pending(long seq) {
        long s = state.get((int) (seq & mask));
        return s >>> COUNT_BITS == seq && (s & COUNT_MASK) != 0;
    }
}
