package dev.spindle.core;

import java.nio.ByteBuffer;

/**
 * Bytes received but not yet consumed. {@code start} is where the request being parsed begins,
 * so the parser keeps offsets relative to it and compaction never invalidates them.
 */
final class InputBuffer {
    byte[] data;
    int start;
    int end;

    InputBuffer(int initialCapacity) {
        data = new byte[Math.max(256, initialCapacity)];
    }

    int available() {
        return end - start;
    }

    void append(ByteBuffer src) {
        int n = src.remaining();
        if (n == 0) {
            return;
        }
        if (start == end) {
            start = 0;
            end = 0;
        }
        if (data.length - end < n) {
            makeRoom(n);
        }
        src.get(data, end, n);
        end += n;
    }

    private void makeRoom(int n) {
        int live = end - start;
        if (live + n <= data.length && start > 0) {
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

    void consume(int n) {
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
        }
    }
}
