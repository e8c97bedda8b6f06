// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * A streamed response body that the connection takes from on its own thread, with no producer
 * thread of its own: other threads queue bytes in it and call the wakeup, and the connection
 * takes them when its output has room. So an open event stream costs its queue, not a parked
 * thread, on an event loop as on a blocking server. Its client ends it by closing the connection
 * (as an {@code EventSource} does), so the connection keeps reading while it is sent, and its end
 * of input ends the body.
 */
public interface BodySource {
    /**
     * The connection begins to send the body; called once, on the connection's thread.
     *
     * @param executor where work that may block runs (the server's blocking executor), or null for a new virtual thread
     * @param wakeup called, from any thread, whenever {@link #available} may have become larger
     */
    void start(Executor executor, Runnable wakeup);

    /**
     * What {@link #take} can give now; from the connection's thread.
     *
     * @param now the current {@link System#nanoTime()}
     * @return bytes ready, 0 when none are (the wakeup or {@link #due} says when to ask again), -1 once the body has ended
     * @throws IOException when the body failed: the connection ends instead of finishing it
     */
    int available(long now) throws IOException;

    /**
     * Copies at most {@code max} of the ready bytes to {@code dst[at...]}; from the connection's thread.
     *
     * @return bytes copied
     */
    int take(byte[] dst, int at, int max);

    /**
     * When the source wants to be asked again even without a wakeup (its heartbeat).
     *
     * @return a {@link System#nanoTime()} value, or {@link Long#MAX_VALUE} for never
     */
    long due();

    /** The server drains: the body ends once what is queued has gone out, so the client reconnects elsewhere. */
    void drain();

    /** The connection ended, or the body did: the source lets go of what it holds. Idempotent; from any thread. */
    void cancel();
}
