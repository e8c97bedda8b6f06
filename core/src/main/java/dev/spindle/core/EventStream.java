// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A {@code text/event-stream} response being sent (server-sent events), from
 * {@link Response#eventStream}: any thread may {@link #send} to it, so a publisher can keep the
 * streams of many clients in a set and send one event to each. What is sent waits in a bounded
 * queue until the connection takes it; a client that reads too slowly for the queue meets the
 * stream's {@link Options#overflow() overflow policy} instead of growing the server's memory. While
 * nothing is sent for {@link Options#heartbeat()}, a comment line goes out, so proxies and load
 * balancers do not close the idle stream and a client that is gone is noticed. Over HTTP/1.1 and
 * HTTP/2, through response compression (each event flushed to the client at once). A client that
 * reconnects sends the id of the last event it saw as {@code req.header("Last-Event-ID")}, so the
 * handler can send what it missed first.
 */
public interface EventStream {
    /**
     * Queues {@code event} for the client.
     *
     * @param event the event
     * @return a stage that completes once the event was handed to the connection (flushed), or
     *         exceptionally when the stream closed first, or when the queue was full (the overflow
     *         policy then closed the stream or dropped this event)
     */
    CompletionStage<Void> send(ServerSentEvent event);

    /**
     * Queues a comment line, which clients ignore.
     *
     * @param text one line
     * @return as {@link #send}
     * @throws IllegalArgumentException if {@code text} holds a line break
     */
    CompletionStage<Void> comment(String text);

    /** Ends the stream once what is queued has gone out: the response's body ends. Idempotent. */
    void close();

    /** {@return whether events can still be sent} False once closed, by either side. */
    boolean isOpen();

    /** {@return a stage completing when the stream has ended, whichever side ended it} */
    CompletionStage<Void> closed();

    /** What a stream does when its queue is full: the client reads more slowly than events come. */
    enum Overflow {
        /** Close the stream (the client may reconnect with its {@code Last-Event-ID}); the default. */
        CLOSE,
        /** Drop the event that does not fit (its stage fails); the stream goes on. */
        DROP
    }

    /**
     * A stream's queue bound, overflow policy and heartbeat.
     *
     * @param maxQueued the most events (and comments) waiting for the connection, at least 1
     * @param overflow what happens to a send when that many wait
     * @param heartbeat how long the stream may send nothing before a comment line goes out; zero for never
     */
    record Options(int maxQueued, Overflow overflow, Duration heartbeat) {
        /** Checks the values. */
        public Options {
            if (maxQueued < 1) {
                throw new IllegalArgumentException("maxQueued is at least 1, got " + maxQueued);
            }
            java.util.Objects.requireNonNull(overflow, "overflow");
            if (heartbeat.isNegative()) {
                throw new IllegalArgumentException("heartbeat is not negative: " + heartbeat);
            }
        }

        /** {@return 1,024 queued events, {@link Overflow#CLOSE}, a heartbeat every 15 seconds} */
        public static Options defaults() {
            return new Options(1024, Overflow.CLOSE, Duration.ofSeconds(15));
        }
    }
}
