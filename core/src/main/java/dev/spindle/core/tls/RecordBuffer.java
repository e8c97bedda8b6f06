package dev.spindle.core.tls;

import java.nio.ByteBuffer;

/**
 * TLS records waiting for the socket: the engine wraps into the free room at the end
 * ({@link #tail()}, then {@link #commit}), the strategy writes from the start ({@link #view()},
 * then {@link #written}). The layer keeps only a few records pending, so it stays small; an array
 * grown past {@link #RETAIN_LIMIT} is let go once emptied.
 */
final class RecordBuffer {
    /** Capacity above which an emptied buffer is let go. */
    static final int RETAIN_LIMIT = 1 << 20;

    private final int initialCapacity;
    private byte[] data;
    /** The first byte not yet written. */
    private int start;
    /** Where the next record goes. */
    private int end;
    private ByteBuffer view;
    private ByteBuffer tail;

    RecordBuffer(int initialCapacity) {
        this.initialCapacity = Math.max(256, initialCapacity);
        data = new byte[this.initialCapacity];
    }

    /** Bytes committed and not yet written. */
    int pending() {
        return end - start;
    }

    /** The pending bytes, from its position to its limit; valid until the next {@link #ensure}. */
    ByteBuffer view() {
        if (view == null || view.array() != data) {
            view = ByteBuffer.wrap(data);
        }
        view.limit(end).position(start);
        return view;
    }

    /** The socket took the first {@code n} pending bytes. */
    void written(int n) {
        if (n < 0 || n > end - start) {
            throw new IllegalArgumentException("written " + n + " of " + (end - start) + " pending bytes");
        }
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
            if (data.length > RETAIN_LIMIT) {
                data = new byte[initialCapacity];
            }
        }
    }

    /** Makes room for {@code n} more bytes at the end, moving the pending bytes to the front or growing. */
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
        }
        start = 0;
        end = live;
    }

    /** The free room after the pending bytes, for the engine to wrap into; valid until the next {@link #ensure}. */
    ByteBuffer tail() {
        if (tail == null || tail.array() != data) {
            tail = ByteBuffer.wrap(data);
        }
        tail.limit(data.length).position(end);
        return tail;
    }

    /** Takes the {@code n} bytes written into {@link #tail()}. */
    void commit(int n) {
        end += n;
    }
}
