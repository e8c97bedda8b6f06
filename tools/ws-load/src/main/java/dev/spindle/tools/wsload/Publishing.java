// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/**
 * The publisher's side of broadcast and sse: which sequence number is next, whether another message
 * may go out (fewer than K unfinished, its tracker slot free), and the 10 s expiry, oldest first.
 */
final class Publishing {
    static final long EXPIRY_NANOS = 10_000_000_000L;

    private final Loop loop;
    private final Run run;
    private final Tracker tracker;
    private final long[] order;
    private final int mask;
    private long head;
    private long tail;
    private long nextSeq = 1;

    Publishing(Loop loop) {
        this.loop = loop;
        this.run = loop.run;
        this.tracker = run.tracker;
        this.order = new long[tracker.capacity()];
        this.mask = order.length - 1;
    }

    boolean canPublish() {
        return tracker.unfinished.get() < run.options.inflight() && tail - head < order.length
                && tracker.free(nextSeq) && run.liveSubscribers.get() > 0;
    }

    long next() {
        return nextSeq++;
    }

    void sent(long seq, long nanos) {
        tracker.sent(seq, nanos, run.liveSubscribers.get());
        order[(int) (tail++ & mask)] = seq;
        loop.published++;
        if (run.inWindow(nanos)) {
            loop.publishedInWindow++;
        }
    }

    /** Ends {@code seq} now as incomplete (its publish failed). */
    void fail(long seq) {
        finish(tracker.expire(seq));
    }

    void expire(long now) {
        while (head < tail) {
            long seq = order[(int) (head & mask)];
            if (tracker.pending(seq)) {
                if (now - tracker.sentAt(seq) < EXPIRY_NANOS) {
                    return;
                }
                finish(tracker.expire(seq));
            }
            head++;
        }
    }

    /** The run is over: every message still missing deliveries is incomplete. */
    void expireAll() {
        for (; head < tail; head++) {
            finish(tracker.expire(order[(int) (head & mask)]));
        }
    }

    private void finish(long missing) {
        if (missing > 0) {
            loop.incomplete++;
            loop.missing += missing;
        }
    }
}
