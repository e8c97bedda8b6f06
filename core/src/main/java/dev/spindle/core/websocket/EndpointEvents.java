// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.WebSocket;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The callbacks of a blocking endpoint ({@link WebSocket.Endpoint#blocking}), run one at a time and
 * in order on a virtual thread of the socket's own, started when a callback is queued and ending
 * when none is left, so an idle socket holds no thread. The bytes of the messages queued and not
 * yet handled are counted: above the bound the connection stops reading, and the wakeup resumes it
 * once the endpoint has caught up, so a slow endpoint holds the client back instead of the server's
 * memory growing.
 */
final class EndpointEvents {
    /** A callback of the endpoint: run on the connection's thread, or queued here when the endpoint blocks. */
    @FunctionalInterface
    interface Callback {
        void run(WebSocket.Endpoint endpoint, WebSocket socket) throws Exception;
    }

    private record Queued(Callback callback, long bytes) {
    }

    /** {@return a copy of {@code payload}'s remaining bytes, for a callback that runs after the reader reused them} */
    static java.nio.ByteBuffer copy(java.nio.ByteBuffer payload) {
        java.nio.ByteBuffer copy = java.nio.ByteBuffer.allocate(payload.remaining());
        return copy.put(payload.duplicate()).flip();
    }

    private final WebSocket.Endpoint endpoint;
    private final WebSocket socket;
    private final long bound;
    private final Runnable wakeup;
    private final Consumer<Throwable> failed;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong pending = new AtomicLong();
    /** A callback threw: later messages are not delivered (the close still is). */
    private volatile boolean broken;

    EndpointEvents(WebSocket.Endpoint endpoint, WebSocket socket, long bound, Runnable wakeup, Consumer<Throwable> failed) {
        this.endpoint = endpoint;
        this.socket = socket;
        this.bound = bound;
        this.wakeup = wakeup;
        this.failed = failed;
    }

    /** Queues a callback with the bytes it holds; starts the endpoint's thread when none runs. */
    void add(Callback callback, long bytes) {
        pending.addAndGet(bytes);
        queue.add(new Queued(callback, bytes));
        if (running.compareAndSet(false, true)) {
            Thread.ofVirtual().name("spindle-websocket-endpoint").start(this::drain);
        }
    }

    /** Whether the endpoint is so far behind that the connection should stop reading. */
    boolean full() {
        return pending.get() >= bound;
    }

    private void drain() {
        while (true) {
            Queued q;
            while ((q = queue.poll()) != null) {
                run(q);
                long before = pending.getAndAdd(-q.bytes());
                if (before >= bound && before - q.bytes() < bound) {
                    // caught up: the connection reads again
                    wakeup.run();
                }
            }
            running.set(false);
            // a callback queued between the last poll and the flag: this thread takes it, unless another started
            if (queue.isEmpty() || !running.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private void run(Queued q) {
        if (broken && q.bytes() > 0) {
            return;
        }
        try {
            q.callback().run(endpoint, socket);
        } catch (Throwable t) {
            broken = true;
            failed.accept(t);
        }
    }
}
