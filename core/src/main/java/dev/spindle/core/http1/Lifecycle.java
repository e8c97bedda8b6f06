// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.spi.Connection.State;
import dev.spindle.core.spi.Next;

/**
 * A connection's life, its transitions in one place. What the connection is busy with (a request
 * arriving, a handler, a response being sent) is the connection's to say; this decides when it
 * reads no more requests, when it lingers and when it is over:
 *
 * <pre>
 *   open ──{@link #stopReading()}──► closing ──(output flushed)──► lingering ──(input ended, 500 ms quiet, 30 s, 1 GiB)──► closed
 *     │                              │                                                                                  ▲
 *     └───────────────── {@link #abort()}: a timeout or failure gives up, nothing more is sent ───────────────────────────┘
 * </pre>
 *
 * A connection stops reading requests after a response that closes, a bad request, a timeout's
 * answer, the drain's grace or the end of input; it lingers (output shut, input read and dropped)
 * so that unread bytes do not make the kernel reset the connection under its last response.
 */
final class Lifecycle {
    /** No more requests will be processed: finish the output, then linger and close. */
    private boolean closing;
    /** Given up: close the socket now; nothing more will be sent. */
    private boolean aborted;
    /** The peer ended its side (or the layer around the connection can read no more). */
    private boolean inputEnded;
    private boolean lingerDone;
    private long lingerBytes;
    private boolean closeAfterResponse;
    /**
     * The server is closing, set from any thread: a handler running inline while the server began
     * closing still answers with a close.
     */
    private volatile boolean draining;

    /** No more requests: the connection finishes its output, then lingers. */
    void stopReading() {
        closing = true;
    }

    /** Gives up: nothing more is sent and the strategy closes the socket. */
    void abort() {
        aborted = true;
    }

    /** The peer will send nothing more. */
    void endInput() {
        inputEnded = true;
    }

    /** The linger's time is over. */
    void lingerOver() {
        lingerDone = true;
    }

    /** Input arrived after the connection stopped reading: dropped, and counted against the linger's bound. */
    void dropped(int length) {
        lingerBytes += length;
        if (lingerBytes > Deadlines.LINGER_BYTES) {
            lingerDone = true;
        }
    }

    /** The next response closes (shutdown, shedding). */
    void closeAfterResponse() {
        closeAfterResponse = true;
    }

    /** The server closes gracefully; may be called from any thread. */
    void drain() {
        draining = true;
    }

    boolean closing() {
        return closing;
    }

    boolean aborted() {
        return aborted;
    }

    /** Stopped reading or gave up: what arrives is dropped. */
    boolean over() {
        return closing || aborted;
    }

    boolean inputEnded() {
        return inputEnded;
    }

    boolean draining() {
        return draining;
    }

    /** Whether the next response may keep the connection open, as far as the connection's life goes. */
    boolean keepsAlive() {
        return !closeAfterResponse && !draining;
    }

    /** Closing, everything sent, and the peer may still be sending. */
    boolean lingering(boolean flushed) {
        return closing && !aborted && flushed && !inputEnded && !lingerDone;
    }

    /**
     * What the strategy does next.
     *
     * @param flushed nothing is left to send and no handler or body is in flight
     * @param read the connection, open, wants to read now
     * @param write output is pending
     * @param watch a body is being sent that the peer's end of input ends (an event stream): read also while closing
     */
    Next next(boolean flushed, boolean read, boolean write, boolean watch) {
        if (aborted) {
            return Next.CLOSE;
        }
        if (closing && flushed) {
            return inputEnded || lingerDone ? Next.CLOSE : Next.LINGER;
        }
        return Next.of((read && !closing || watch) && !inputEnded, write);
    }

    /**
     * Where in its life the connection is.
     *
     * @param flushed nothing is left to send and no handler or body is in flight
     * @param busy what an open connection is busy with
     */
    State state(boolean flushed, State busy) {
        if (aborted) {
            return State.CLOSED;
        }
        if (closing) {
            if (!flushed) {
                // an event stream sent before the close still takes its events at any time
                return busy == State.DUPLEX ? State.DUPLEX : State.CLOSING;
            }
            return inputEnded || lingerDone ? State.CLOSED : State.LINGERING;
        }
        return busy;
    }
}
