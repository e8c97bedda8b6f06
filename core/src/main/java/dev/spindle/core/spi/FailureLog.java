// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Logs failures without a storm. The first failure of a kind (what failed, and the failure's
 * class) is logged in full, with its stack; repeats of that kind within the window are only
 * counted, and once the window has passed one line says how many there were ("1234 more failures
 * like this in the last 10 s"), at the next failure of that kind or the next {@link #flush()}.
 * A failure that repeats on every read of a connection or every turn of a loop therefore costs
 * two log lines per window, not one per repeat.
 *
 * <p>Thread-safe (synchronized: it is only on failure paths). Strategies keep one per loop, ring or
 * server and call {@link #flush()} from their periodic scan so a storm that stops is still summed
 * up.
 */
public final class FailureLog {
    /** The window of {@link #FailureLog(Logger)}: long enough to turn a storm into two lines, short enough to see it go on. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
    /** Kinds tracked at once; a new kind beyond them forgets the oldest (which then logs in full again). */
    private static final int MAX_KINDS = 32;

    private final Logger log;
    private final long windowNanos;
    private final LongSupplier clock;
    private final Map<Kind, Window> windows = new LinkedHashMap<>();

    private record Kind(String what, Class<?> type) {
    }

    private static final class Window {
        final long start;
        final Level level;
        long repeats;

        Window(long start, Level level) {
            this.start = start;
            this.level = level;
        }
    }

    /**
     * A log that counts repeats over {@link #DEFAULT_WINDOW}.
     *
     * @param log where the failures and the summaries go
     */
    public FailureLog(Logger log) {
        this(log, DEFAULT_WINDOW, System::nanoTime);
    }

    /**
     * A log that counts repeats over {@code window}.
     *
     * @param log where the failures and the summaries go
     * @param window how long repeats of a kind are counted before one line sums them up; positive
     * @throws IllegalArgumentException if {@code window} is not positive
     */
    public FailureLog(Logger log, Duration window) {
        this(log, window, System::nanoTime);
    }

    FailureLog(Logger log, Duration window, LongSupplier clock) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, got " + window);
        }
        this.log = log;
        this.windowNanos = window.toNanos();
        this.clock = clock;
    }

    /**
     * Logs {@code failure} at WARN with its stack if it is the first of its kind in the window, else
     * counts it.
     *
     * @param what what failed, the same text for every failure of the kind (no connection names:
     *        they go in {@code subject}), such as {@code "loop-0: connection failed; closing it"}
     * @param subject what it failed on, printed after {@code what} (a connection); may be null
     * @param failure the failure, or null for one that is no exception (an error code); the kind is then {@code what} alone
     * @return true if it was logged, false if only counted
     */
    public boolean warn(String what, Object subject, Throwable failure) {
        return record(Level.WARN, what, subject, failure);
    }

    /**
     * As {@link #warn}, at ERROR.
     *
     * @param what what failed, the same text for every failure of the kind
     * @param subject what it failed on, printed after {@code what}; may be null
     * @param failure the failure, or null for one that is no exception
     * @return true if it was logged, false if only counted
     */
    public boolean error(String what, Object subject, Throwable failure) {
        return record(Level.ERROR, what, subject, failure);
    }

    private synchronized boolean record(Level level, String what, Object subject, Throwable failure) {
        long now = clock.getAsLong();
        Kind kind = new Kind(what, failure == null ? Void.class : failure.getClass());
        Window window = windows.get(kind);
        if (window != null && now - window.start < windowNanos) {
            window.repeats++;
            return false;
        }
        if (window != null) {
            summarize(kind, window, now);
            windows.remove(kind);
        }
        if (windows.size() >= MAX_KINDS) {
            Iterator<Map.Entry<Kind, Window>> oldest = windows.entrySet().iterator();
            Map.Entry<Kind, Window> e = oldest.next();
            summarize(e.getKey(), e.getValue(), now);
            oldest.remove();
        }
        windows.put(kind, new Window(now, level));
        if (subject == null) {
            log.atLevel(level).setCause(failure).log(what);
        } else {
            log.atLevel(level).setCause(failure).log("{} ({})", what, subject);
        }
        return true;
    }

    /** Sums up the kinds whose window has passed; the next failure of such a kind is logged in full again. */
    public synchronized void flush() {
        if (windows.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        for (Iterator<Map.Entry<Kind, Window>> it = windows.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Kind, Window> e = it.next();
            if (now - e.getValue().start >= windowNanos) {
                summarize(e.getKey(), e.getValue(), now);
                it.remove();
            }
        }
    }

    private void summarize(Kind kind, Window window, long now) {
        if (window.repeats > 0) {
            long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(now - window.start));
            if (kind.type == Void.class) {
                log.atLevel(window.level).log("{} more failures like this ({}) in the last {} s", window.repeats, kind.what, seconds);
            } else {
                log.atLevel(window.level).log("{} more failures like this ({}: {}) in the last {} s",
                        window.repeats, kind.what, kind.type.getName(), seconds);
            }
        }
    }

    /**
     * Whether a failure means the JVM itself can no longer be trusted, so a strategy rethrows it
     * after closing the connection it struck: a {@link VirtualMachineError} other than
     * {@link OutOfMemoryError} and {@link StackOverflowError} ({@link InternalError},
     * {@link UnknownError}). Those two are contained to their connection: the stack is unwound,
     * and closing the connection frees the memory it held, so the others can still be served.
     *
     * @param failure a failure raised while serving a connection
     * @return true for an {@code InternalError} or {@code UnknownError} (or another VM error of
     *         that family), false for everything a connection can be closed over
     */
    public static boolean isFatal(Throwable failure) {
        return failure instanceof VirtualMachineError
                && !(failure instanceof OutOfMemoryError) && !(failure instanceof StackOverflowError);
    }
}
