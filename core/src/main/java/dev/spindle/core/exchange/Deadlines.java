// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.ServerConfig;
import java.util.concurrent.TimeUnit;

/**
 * A connection's clocks: when each of its waits began, and which deadline a tick finds passed.
 * It decides nothing about HTTP; the connection asks {@link #expired} and acts on the answer.
 * Times are {@link System#nanoTime()} values; 0 means unset. Activity is marked as it happens and
 * turned into times at the next tick, so the hot path only sets a flag.
 */
public final class Deadlines {
    /**
     * A finished connection keeps reading (and dropping) what the peer still sends, so that the
     * kernel does not reset it under its last answer (an upload refused 413 while its client still
     * sends), as nginx's lingering close does: it closes once nothing has arrived for this long...
     */
    public static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** ... or at the latest this long after it began to linger (nginx's {@code lingering_time}). */
    public static final long LINGER_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** ... or once it has dropped this much. */
    public static final long LINGER_BYTES = 1L << 30;

    /** What a tick found; at most one per tick, in the order the connection must act on them. */
    public enum Expired {
        NONE,
        /** The peer took no output for the write timeout. */
        WRITE,
        /** The connection just began to linger: it may let go of its buffers. */
        LINGER_STARTED,
        /** The linger is over. */
        LINGER,
        /** A handler waits for a streamed request body that stopped arriving. */
        BODY,
        /** A blocking or asynchronous handler did not finish in time. */
        HANDLER,
        /** A streamed response body's producer produced nothing in time. */
        PRODUCER,
        /** A request began but was not complete in time. */
        REQUEST,
        /** Draining, and no request came within the grace. */
        DRAIN_IDLE,
        /** No request for the idle timeout. */
        IDLE
    }

    /** What the connection is waiting for, as a tick needs to know it. */
    public interface Waits {
        /** Output is pending (the write timeout runs). */
        boolean outputPending();

        /** No more requests will be read. */
        boolean closing();

        /** Closing and flushed, and the peer may still send: lingering. */
        boolean lingering();

        /** A handler waits for more of its streamed request body. */
        boolean bodyAwaited();

        /** A request body is being streamed (to a handler, or dropped after its answer). */
        boolean bodyStreaming();

        /** A blocking or asynchronous handler is in flight (done or not). */
        boolean handling();

        /** The handler in flight has finished, and waits to be completed. */
        boolean handlerDone();

        /** A streamed response body is being sent. */
        boolean sending();

        /** The streamed response body's producer has nothing ready. */
        boolean awaitingProducer();

        /** A request has begun arriving. */
        boolean requestInProgress();

        /** The server is closing gracefully. */
        boolean draining();
    }

    private final long writeTimeout;
    private final long headerTimeout;
    private final long handlerTimeout;
    private final long idleTimeout;
    private final long drainGrace;

    private boolean inputActivity;
    private boolean outputActivity;
    private boolean producerActivity;
    private long lastActivity;
    private long requestStarted;
    private long outputWaitingSince;
    private long bodyWaitingSince;
    private long handlerStarted;
    private long producerWaitingSince;
    private long lingerStarted;
    private long lingerInput;
    private long drainIdleSince;

    public Deadlines(ServerConfig config, long drainGraceMillis) {
        this.writeTimeout = config.writeTimeout().toNanos();
        this.headerTimeout = config.headerTimeout().toNanos();
        this.handlerTimeout = config.handlerTimeout().toNanos();
        this.idleTimeout = config.idleTimeout().toNanos();
        this.drainGrace = Math.min(TimeUnit.MILLISECONDS.toNanos(drainGraceMillis), config.drainTimeout().toNanos() / 2);
    }

    public void inputActivity() {
        inputActivity = true;
    }

    public void outputActivity() {
        outputActivity = true;
    }

    public void producerActivity() {
        producerActivity = true;
    }

    /** {@return when a tick last found activity (or the first tick), a {@link System#nanoTime()} value; 0 before the first tick} */
    public long lastActivity() {
        return lastActivity;
    }

    /** A streamed request body begins: its wait starts at the next tick. */
    public void bodyStarted() {
        bodyWaitingSince = 0;
    }

    /** A handler was handed a request: its time starts at the next tick. */
    public void handlerStarted() {
        handlerStarted = 0;
    }

    /** A streamed response body begins: its producer's time starts when it first has nothing. */
    public void sendingStarted() {
        producerWaitingSince = 0;
    }

    /** The request timer restarts (a request timed out and was answered). */
    public void requestEnded() {
        requestStarted = 0;
    }

    /**
     * Turns the activity since the last tick into times and says which deadline has passed.
     *
     * @param now the current {@link System#nanoTime()}
     * @param waits what the connection waits for now
     * @return the deadline to act on, or {@link Expired#NONE}
     */
    public Expired expired(long now, Waits waits) {
        if (inputActivity || outputActivity || producerActivity || lastActivity == 0) {
            lastActivity = now;
        }
        boolean wrote = outputActivity;
        boolean read = inputActivity;
        boolean produced = producerActivity;
        inputActivity = false;
        outputActivity = false;
        producerActivity = false;

        if (waits.outputPending()) {
            if (outputWaitingSince == 0 || wrote) {
                outputWaitingSince = now;
            } else if (now - outputWaitingSince >= writeTimeout) {
                return Expired.WRITE;
            }
        } else {
            outputWaitingSince = 0;
        }
        if (waits.closing()) {
            if (!waits.lingering()) {
                // a response that ends the connection (Connection: close) may still stream a body
                return waits.sending() && producerStalled(now, waits, produced) ? Expired.PRODUCER : Expired.NONE;
            }
            if (lingerStarted == 0) {
                lingerStarted = now;
                lingerInput = now;
                return Expired.LINGER_STARTED;
            }
            if (read) {
                lingerInput = now;
            }
            return lingerOver(now, lingerStarted, lingerInput) ? Expired.LINGER : Expired.NONE;
        }
        if (waits.bodyAwaited()) {
            if (bodyWaitingSince == 0 || read) {
                bodyWaitingSince = now;
            } else if (now - bodyWaitingSince >= headerTimeout) {
                return Expired.BODY;
            }
        } else {
            bodyWaitingSince = 0;
        }
        if (waits.handling()) {
            if (handlerStarted == 0) {
                handlerStarted = now;
            } else if (!waits.handlerDone() && now - handlerStarted >= handlerTimeout) {
                return Expired.HANDLER;
            }
            return Expired.NONE;
        }
        if (waits.sending()) {
            return producerStalled(now, waits, produced) ? Expired.PRODUCER : Expired.NONE;
        }
        if (waits.requestInProgress()) {
            if (requestStarted == 0 || waits.bodyStreaming() && read) {
                requestStarted = now;
            } else if (now - requestStarted >= headerTimeout) {
                return Expired.REQUEST;
            }
            return Expired.NONE;
        }
        requestStarted = 0;
        boolean flushed = !waits.outputPending();
        if (waits.draining() && flushed) {
            if (drainIdleSince == 0) {
                drainIdleSince = now;
            } else if (now - drainIdleSince >= drainGrace) {
                return Expired.DRAIN_IDLE;
            }
        }
        return flushed && now - lastActivity >= idleTimeout ? Expired.IDLE : Expired.NONE;
    }

    /** Whether a streamed body's producer has handed nothing over for the handler timeout; starts its clock when it first has nothing. */
    private boolean producerStalled(long now, Waits waits, boolean produced) {
        boolean awaiting = waits.awaitingProducer();
        if (!awaiting || produced || producerWaitingSince == 0) {
            producerWaitingSince = awaiting ? now : 0;
            return false;
        }
        return now - producerWaitingSince >= handlerTimeout;
    }

    /**
     * How long until the deadline of what the connection waits for on a read, given that it ticked at {@code now}.
     *
     * @return nanoseconds, at least 1
     */
    public long nanosToTick(long now, Waits waits) {
        if (waits.lingering()) {
            return lingerStarted == 0 ? LINGER_NANOS : lingerNanosToTick(now, lingerStarted, lingerInput);
        }
        if (waits.bodyStreaming()) {
            return until(bodyWaitingSince, headerTimeout, now);
        }
        if (waits.handling()) {
            return until(handlerStarted, handlerTimeout, now);
        }
        if (waits.sending() && waits.awaitingProducer()) {
            // a producer that hands nothing over for the handler timeout ends the connection
            return until(producerWaitingSince, handlerTimeout, now);
        }
        if (waits.requestInProgress()) {
            return until(requestStarted, headerTimeout, now);
        }
        long idle = (lastActivity != 0 ? lastActivity : now) + idleTimeout - now;
        if (waits.draining()) {
            idle = Math.min(idle, (drainIdleSince != 0 ? drainIdleSince : now) + drainGrace - now);
        }
        return Math.max(1, idle);
    }

    /**
     * Whether a linger that began at {@code started} and last saw input at {@code lastInput} is over:
     * quiet for {@link #LINGER_NANOS}, or {@link #LINGER_MAX_NANOS} old.
     */
    public static boolean lingerOver(long now, long started, long lastInput) {
        return now - Math.max(started, lastInput) >= LINGER_NANOS || now - started >= LINGER_MAX_NANOS;
    }

    /** How long until {@link #lingerOver} can first be true, at least 1 ns. */
    public static long lingerNanosToTick(long now, long started, long lastInput) {
        return Math.max(1, Math.min(Math.max(started, lastInput) + LINGER_NANOS, started + LINGER_MAX_NANOS) - now);
    }

    /** The time left of a wait that began {@code since} (0: at {@code now}) and may last {@code limit}. */
    public static long until(long since, long limit, long now) {
        return Math.max(1, (since != 0 ? since : now) + limit - now);
    }
}
