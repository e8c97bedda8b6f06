// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

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

    private final int maxBytes;
    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    /** Bytes of sends queued or in the output and not yet written. */
    private long bytes;
    private boolean sealed;

    SendQueue(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    synchronized Offer offer(byte[] frame, CompletableFuture<Void> done) {
        if (sealed) {
            return Offer.SEALED;
        }
        if (bytes + frame.length > maxBytes) {
            return Offer.FULL;
        }
        bytes += frame.length;
        queue.add(new Outgoing(frame, done, false));
        return Offer.QUEUED;
    }

    /** Queues a close frame behind the rest and seals the queue; false when it was sealed already. */
    synchronized boolean offerClose(byte[] frame, CompletableFuture<Void> done) {
        if (sealed) {
            return false;
        }
        sealed = true;
        queue.add(new Outgoing(frame, done, true));
        return true;
    }

    synchronized Outgoing poll() {
        return queue.poll();
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
            dropped = new ArrayDeque<>(queue);
            queue.clear();
            bytes = 0;
        }
        for (Outgoing o : dropped) {
            o.done().completeExceptionally(why);
        }
    }
}
