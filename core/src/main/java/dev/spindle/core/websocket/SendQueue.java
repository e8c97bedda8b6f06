// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The frames any thread sends on a WebSocket, waiting for the connection's thread to take them
 * into its output: bounded in bytes (a close frame takes no room), and sealed once a close is
 * queued or the connection ends, after which nothing more is taken. Thread-safe.
 */
final class SendQueue {
    /** A frame queued by a sender, and its stage. */
    record Outgoing(byte[] frame, CompletableFuture<Void> done, boolean close) {
    }

    /** What {@link #offer} did. */
    enum Offer {
        QUEUED,
        SEALED,
        FULL
    }

    private static final VarHandle WOKEN;

    static {
        try {
            WOKEN = MethodHandles.lookup().findVarHandle(SendQueue.class, "woken", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int maxBytes;
    /** A wakeup of the connection's thread is on its way: the connection's flag, kept here so it costs no object of its own. */
    private volatile boolean woken;
    /** Made at the first send and let go when sealed: an idle socket holds none. */
    private ArrayDeque<Outgoing> queue;
    /** Bytes of sends queued or in the output and not yet written. */
    private long bytes;
    private boolean sealed;

    SendQueue(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** {@return true when no wakeup was on its way, and one is now: the caller sends it} */
    boolean claimWakeup() {
        return WOKEN.compareAndSet(this, false, true);
    }

    /** The wakeup came: the next send needs another. */
    void woke() {
        woken = false;
    }

    synchronized Offer offer(byte[] frame, CompletableFuture<Void> done) {
        if (sealed) {
            return Offer.SEALED;
        }
        if (bytes + frame.length > maxBytes) {
            return Offer.FULL;
        }
        bytes += frame.length;
        queue().add(new Outgoing(frame, done, false));
        return Offer.QUEUED;
    }

    /** Queues a close frame behind the rest and seals the queue; false when it was sealed already. */
    synchronized boolean offerClose(byte[] frame, CompletableFuture<Void> done) {
        if (sealed) {
            return false;
        }
        sealed = true;
        queue().add(new Outgoing(frame, done, true));
        return true;
    }

    /** The queue, made at the first frame; under this object's lock. */
    private ArrayDeque<Outgoing> queue() {
        if (queue == null) {
            queue = new ArrayDeque<>(4);
        }
        return queue;
    }

    synchronized Outgoing poll() {
        return queue == null ? null : queue.poll();
    }

    /** A send's {@code length} bytes were written: their room is free again. */
    synchronized void released(int length) {
        bytes -= length;
    }

    synchronized boolean sealed() {
        return sealed;
    }

    /** Takes no more sends: those queued fail with {@code why}. */
    void seal(Exception why) {
        ArrayDeque<Outgoing> dropped;
        synchronized (this) {
            sealed = true;
            dropped = queue;
            queue = null;
            bytes = 0;
        }
        if (dropped != null) {
            for (Outgoing o : dropped) {
                o.done().completeExceptionally(why);
            }
        }
    }
}
