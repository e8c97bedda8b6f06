// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * A filter that counts exchanges once their responses are final: how many, by status class,
 * body bytes, and a latency histogram; and hands each one to a {@link Listener}, which is how a
 * metrics library (Micrometer, Prometheus' client, ...) is attached without Spindle depending on
 * it. Latency is measured from the start of the filter chain to the final response, or for a
 * streamed body (file, stream, writer) to its last byte sent ({@link Response#sent()}), whose
 * bytes are then counted whatever its length; an exchange whose connection ended before its
 * streamed body was sent is counted with the bytes it announced (-1 if none). Thread-safe;
 * one instance serves every connection.
 */
public final class ExchangeMetrics implements Filter {
    /** Receives every exchange; called on the thread that finished it, so it must be quick and thread-safe. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Takes one finished exchange.
         *
         * @param method the request method, such as {@code GET}
         * @param route the matched route's pattern ({@code /users/{id}}), or null for a 404 or 405
         * @param status the status code sent
         * @param bodyBytes the response body's length (for a streamed body, the bytes sent), or -1
         *        when a streamed body of unknown length was not sent whole
         * @param nanos the time from the start of the filter chain to the final response (for a
         *        streamed body, to its last byte sent), in nanoseconds
         */
        void exchange(String method, String route, int status, long bodyBytes, long nanos);
    }

    /** Upper bounds of the latency buckets, in microseconds; a last bucket holds everything slower. */
    private static final long[] BOUNDS_MICROS = {100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000,
            100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000};

    private final Listener listener;
    private final LongAdder count = new LongAdder();
    private final LongAdder bytes = new LongAdder();
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
    public CompletionStage<?> filter(Request request, Response response, Chain chain) {
        long start = System.nanoTime();
        return chain.proceed().thenRun(() -> {
            if (!response.isStreamed()) {
                record(request.methodName(), request.routePattern(), response.status(), response.bodyLength(),
                        System.nanoTime() - start);
                return;
            }
            String method = request.methodName();
            String route = request.routePattern();
            int status = response.status();
            long announced = response.bodyLength();
            response.sent().whenComplete((bytes, failure) ->
                    record(method, route, status, failure != null ? announced : bytes, System.nanoTime() - start));
        });
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
