// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.concurrent.atomic.LongAdder;

/**
 * An {@link ExchangeListener} that counts exchanges once they have ended: how many, by status
 * class, how many ended without their whole answer, body bytes sent, and a latency histogram; and
 * hands each one to a {@link Listener}, a plain callback for a metrics library without its own
 * Spindle module. Every exchange is counted, routed or not: the connection's refusals (400, 408,
 * 413, 414, 431, the body budget's 503), handler timeouts with the 503 sent, and exchanges that
 * ended without their whole answer. Latency runs from the request's head received to the answer's
 * last byte handed to the socket. Thread-safe; one instance serves every connection. Register it
 * with {@link Router.Builder#listener}.
 */
public final class ExchangeMetrics implements ExchangeListener {
    /** Receives every exchange; called on the connection's thread, so it must be quick and thread-safe. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Takes one finished exchange.
         *
         * @param method the request method, such as {@code GET} ({@code ""} when no request line was read)
         * @param route the matched route's pattern ({@code /users/{id}}), or null: no route matched, or refused before routing
         * @param status the status code sent, 0 if none was
         * @param bodyBytes the response body bytes sent, or -1 when a streamed body was cut short
         * @param nanos the time from the request's head to the answer's last byte written (or to its end without one)
         */
        void exchange(String method, String route, int status, long bodyBytes, long nanos);
    }

    /** Upper bounds of the latency buckets, in microseconds; a last bucket holds everything slower. */
    private static final long[] BOUNDS_MICROS = {100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000,
            100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000};

    private final Listener listener;
    private final LongAdder count = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder unanswered = new LongAdder();
    private final LongAdder[] byClass = adders(6);
    private final LongAdder[] latency = adders(BOUNDS_MICROS.length + 1);

    /** Counts without a listener. */
    public ExchangeMetrics() {
        this(null);
    }

    /**
     * Also hands every exchange to {@code listener} (null for none).
     *
     * @param listener receives every exchange after it is counted, or null
     */
    public ExchangeMetrics(Listener listener) {
        this.listener = listener;
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    @Override
    public void exchangeEnded(ExchangeEnd end) {
        if (end.outcome() != ExchangeEnd.Outcome.COMPLETE) {
            unanswered.increment();
        }
        record(end.method(), end.route(), end.status(), end.responseBodyBytes(), end.durationNanos());
    }

    private void record(String method, String route, int status, long length, long nanos) {
        count.increment();
        if (length > 0) {
            bytes.add(length);
        }
        byClass[status / 100 >= 1 && status / 100 <= 5 ? status / 100 : 0].increment();
        long micros = nanos / 1_000;
        int bucket = 0;
        while (bucket < BOUNDS_MICROS.length && micros > BOUNDS_MICROS[bucket]) {
            bucket++;
        }
        latency[bucket].increment();
        if (listener != null) {
            listener.exchange(method, route, status, length, nanos);
        }
    }

    /** {@return the exchanges counted so far} */
    public long count() {
        return count.sum();
    }

    /**
     * Exchanges whose status was {@code statusClass}xx (1 to 5).
     *
     * @param statusClass the first digit of the status: 1 to 5
     * @return the exchanges counted so far with such a status
     * @throws IllegalArgumentException if {@code statusClass} is not 1 to 5
     */
    public long count(int statusClass) {
        if (statusClass < 1 || statusClass > 5) {
            throw new IllegalArgumentException("status class must be 1..5, got " + statusClass);
        }
        return byClass[statusClass].sum();
    }

    /** {@return the exchanges counted so far that ended without their whole answer (aborted or refused)} */
    public long unanswered() {
        return unanswered.sum();
    }

    /** {@return the response body bytes counted so far} A streamed body of unknown length that was not sent whole counts 0. */
    public long bodyBytes() {
        return bytes.sum();
    }

    /**
     * The latency buckets' upper bounds in microseconds; {@link #latencyCounts()} has one more, the overflow.
     *
     * @return a fresh copy of the bounds, ascending; a bucket holds latencies up to and including its bound
     */
    public static long[] latencyBoundsMicros() {
        return BOUNDS_MICROS.clone();
    }

    /**
     * Exchanges per latency bucket, fastest first; the last entry counts those above the last bound.
     *
     * @return a fresh array of {@code latencyBoundsMicros().length + 1} counts, each read separately
     *         while exchanges may still be counted
     */
    public long[] latencyCounts() {
        long[] counts = new long[latency.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = latency[i].sum();
        }
        return counts;
    }
}
