// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bytes;

import java.nio.ByteBuffer;

/**
 * Encoded bytes waiting for the socket: {@code [start, end)} of one array. Encoders append at the
 * end (directly, or through {@link #tail()} as an {@code SSLEngine} wraps records), the strategy
 * writes from the start ({@link #view()}, then {@link #written}). Pending bytes move to the front
 * or the array grows when room runs out; an array grown past {@link #RETAIN_LIMIT} is let go once
 * emptied, so a large response does not stay allocated. Shared by HTTP/1.1 and the TLS layer.
 */
public final class OutputBuffer {
    /** Capacity above which an emptied buffer is let go, so a large response does not stay allocated. */
    public static final int RETAIN_LIMIT = 1 << 20;

    private static final byte[] EMPTY = new byte[0];

    private final int initialCapacity;
    private byte[] data;
    private int start;
    private int end;
    private ByteBuffer view;
    private ByteBuffer tail;

    /** A buffer of at least 256 bytes to begin with. */
    public OutputBuffer(int initialCapacity) {
        this.initialCapacity = Math.max(256, initialCapacity);
        data = new byte[this.initialCapacity];
        view = ByteBuffer.wrap(data);
    }

    /** Bytes appended and not yet written. */
    public int pending() {
        return end - start;
    }

    /** The pending bytes, from its position to its limit; valid until the next {@link #ensure}. */
    public ByteBuffer view() {
        view.limit(end).position(start);
        return view;
    }

    /** The socket took the first {@code n} pending bytes. */
    public void written(int n) {
        if (n < 0 || n > end - start) {
            throw new IllegalArgumentException("written " + n + " of " + (end - start) + " pending bytes");
        }
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
            if (data.length > RETAIN_LIMIT) {
                data = new byte[initialCapacity];
                view = ByteBuffer.wrap(data);
            }
        }
    }

    /** Drops what is pending (a connection that gives up on it), letting a grown array go. */
    public void clear() {
        start = 0;
        end = 0;
        if (data.length > RETAIN_LIMIT) {
            data = new byte[initialCapacity];
            view = ByteBuffer.wrap(data);
        }
    }

    /**
     * Lets go of the array while nothing is pending (a quiet connection), so an idle connection holds
     * none; the next {@link #ensure} makes one of the initial capacity again.
     */
    public void release() {
        if (start == end && data.length > 0) {
            start = 0;
            end = 0;
            data = EMPTY;
            view = ByteBuffer.wrap(data);
            tail = null;
        }
    }

    /** Bytes of memory held, for tests and the memory bound. */
    public int capacity() {
        return data.length;
    }

    /** Where the next byte goes; room must have been made with {@link #ensure}. */
    public int end() {
        return end;
    }

    /** Takes {@code n} bytes the caller wrote at {@link #end()}. */
    public void commit(int n) {
        end += n;
    }

    /** Makes room for {@code n} more bytes at the end, moving the pending bytes to the front or growing. */
    public void ensure(int n) {
        if (data.length - end >= n) {
            return;
        }
        int live = end - start;
        if (start > 0 && live + n <= data.length) {
            System.arraycopy(data, start, data, 0, live);
        } else {
            long wanted = Math.max(Math.max((long) data.length * 2, initialCapacity), (long) live + n);
            byte[] bigger = new byte[(int) Math.min(wanted, Integer.MAX_VALUE - 16)];
            System.arraycopy(data, start, bigger, 0, live);
            data = bigger;
            view = ByteBuffer.wrap(data);
        }
        start = 0;
        end = live;
    }

    /** Callers {@link #ensure} room first; these never check. */
    public void put(byte[] src) {
        System.arraycopy(src, 0, data, end, src.length);
        end += src.length;
    }

    /** Appends one byte. */
    public void put(byte b) {
        data[end++] = b;
    }

    /** Appends {@code len} bytes of {@code src} from {@code off}. */
    public void put(byte[] src, int off, int len) {
        System.arraycopy(src, off, data, end, len);
        end += len;
    }

    /** Appends what remains of {@code src}, leaving its position where it was. */
    public void put(ByteBuffer src) {
        int n = src.remaining();
        src.get(src.position(), data, end, n);
        end += n;
    }

    /** Appends a string of ASCII characters, one byte each. */
    public void putAscii(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            data[end + i] = (byte) s.charAt(i);
        }
        end += n;
    }

    /** Appends the ASCII characters {@code s[from, to)}, one byte each. */
    public void putAscii(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            data[end++] = (byte) s.charAt(i);
        }
    }

    /** Writes a non-negative decimal number. */
    public void putDecimal(long v) {
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

    /** Appends and returns the index at which {@code len} bytes may be written directly. */
    public int reserve(int len) {
        int at = end;
        end += len;
        return at;
    }

    /** The array the bytes lie in; valid until the next {@link #ensure}. */
    public byte[] array() {
        return data;
    }

    /**
     * The free room after {@link #end()}, as a buffer to write into (an {@code SSLEngine} wraps into
     * it); {@link #commit} what was written. Valid until the next {@link #ensure}.
     */
    public ByteBuffer tail() {
        if (tail == null || tail.array() != data) {
            tail = ByteBuffer.wrap(data);
        }
        tail.limit(data.length).position(end);
        return tail;
    }
}
