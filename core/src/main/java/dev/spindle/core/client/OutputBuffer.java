package dev.spindle.core.client;

import java.nio.ByteBuffer;

/**
 * Encoded request bytes waiting to be written: {@code [start, end)} of {@code data}, and how many
 * bytes have ever been put in and taken out, so that a request knows when its last byte left.
 * The client's own, in the style of the server's ({@code http1.OutputBuffer}), which this package
 * may not use.
 */
final class OutputBuffer {
    /** Capacity above which an emptied buffer is let go, so one large request body does not stay allocated. */
    private static final int RETAIN_LIMIT = 1 << 20;

    private final int initialCapacity;
    private byte[] data;
    private int start;
    private int end;
    private ByteBuffer view;
    /** Bytes ever reported written to the socket. */
    private long sent;

    OutputBuffer(int initialCapacity) {
        this.initialCapacity = Math.max(256, initialCapacity);
        data = new byte[this.initialCapacity];
        view = ByteBuffer.wrap(data);
    }

    int pending() {
        return end - start;
    }

    /** Bytes ever put in: the offset just past the last byte encoded, counted from the connection's first. */
    long encoded() {
        return sent + (end - start);
    }

    long sent() {
        return sent;
    }

    ByteBuffer view() {
        view.limit(end).position(start);
        return view;
    }

    void written(int n) {
        if (n < 0 || n > end - start) {
            throw new IllegalArgumentException("written " + n + " of " + (end - start) + " pending bytes");
        }
        start += n;
        sent += n;
        if (start == end) {
            start = 0;
            end = 0;
            if (data.length > RETAIN_LIMIT) {
                data = new byte[initialCapacity];
                view = ByteBuffer.wrap(data);
            }
        }
    }

    /** Drops what is pending (the connection is over). */
    void clear() {
        start = 0;
        end = 0;
        if (data.length > RETAIN_LIMIT) {
            data = new byte[initialCapacity];
            view = ByteBuffer.wrap(data);
        }
    }

    void ensure(int n) {
        if (data.length - end >= n) {
            return;
        }
        int live = end - start;
        if (start > 0 && live + n <= data.length) {
            System.arraycopy(data, start, data, 0, live);
        } else {
            long wanted = Math.max((long) data.length * 2, (long) live + n);
            byte[] bigger = new byte[(int) Math.min(wanted, Integer.MAX_VALUE - 16)];
            System.arraycopy(data, start, bigger, 0, live);
            data = bigger;
            view = ByteBuffer.wrap(data);
        }
        start = 0;
        end = live;
    }

    /** Callers {@link #ensure} room first; the puts never check. */
    void put(byte[] src) {
        System.arraycopy(src, 0, data, end, src.length);
        end += src.length;
    }

    void put(byte b) {
        data[end++] = b;
    }

    /** {@code s} as Latin-1: its characters were checked to be below 0x100. */
    void putLatin1(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            data[end + i] = (byte) s.charAt(i);
        }
        end += n;
    }

    /** Writes a non-negative decimal number. */
    void putDecimal(long v) {
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int i = end + digits;
        do {
            data[--i] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        end += digits;
    }
}
