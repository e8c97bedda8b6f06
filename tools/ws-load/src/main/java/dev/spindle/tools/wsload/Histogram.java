// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

/**
 * Latencies in microseconds, log-linear: exact below 128 us, then 64 buckets per power of two, so a
 * bucket is at most 1/64 (1.6 %) of its values wide; a percentile is reported as its bucket's middle.
 * One per selector thread, merged at the end, so recording takes no lock.
 */
final class Histogram {
    private static final int SUB_BITS = 6;
    private static final int LINEAR = 1 << (SUB_BITS + 1);
    private static final int MAX_EXPONENT = 42;
    private final long[] counts = new long[index(1L << MAX_EXPONENT) + 1];
    private long count;
    private long max;

    void record(long micros) {
        long v = Math.max(0, Math.min(micros, (1L << MAX_EXPONENT) - 1));
        counts[index(v)]++;
        count++;
        if (micros > max) {
            max = micros;
        }
    }

    void add(Histogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        max = Math.max(max, other.max);
    }

    long count() {
        return count;
    }

    long max() {
        return max;
    }

    /** The value at quantile q (0..1): the middle of the bucket holding the ceil(q * count)-th value, capped at the max. */
    long quantile(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * count));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(middle(i), max);
            }
        }
        return max;
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int e = 63 - Long.numberOfLeadingZeros(v);
        return (e - SUB_BITS) * (1 << SUB_BITS) + (int) (v >>> (e - SUB_BITS));
    }

    static long lowest(int index) {
        if (index < LINEAR) {
            return index;
        }
        int e = index / (1 << SUB_BITS) + SUB_BITS - 1;
        long top = index - (long) (e - SUB_BITS) * (1 << SUB_BITS);
        return top << (e - SUB_BITS);
    }

    static long middle(int index) {
        if (index < LINEAR) {
            return index;
        }
        long low = lowest(index);
        long width = lowest(index + 1) - low;
        return low + width / 2;
    }
}
