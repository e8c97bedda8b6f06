// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import java.io.OutputStream;
import java.util.Arrays;

/** Bytes an encoder wrote and a reader has not taken yet: a growable array read from its start. */
final class ByteSink extends OutputStream {
    private byte[] bytes;
    private int start;
    private int end;

    ByteSink(int capacity) {
        bytes = new byte[capacity];
    }

    @Override
    public void write(int b) {
        ensure(1);
        bytes[end++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, bytes, end, len);
        end += len;
    }

    private void ensure(int n) {
        if (bytes.length - end >= n) {
            return;
        }
        if (start > 0) {
            // what was read makes room first
            System.arraycopy(bytes, start, bytes, 0, end - start);
            end -= start;
            start = 0;
        }
        if (bytes.length - end < n) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, end + n));
        }
    }

    int available() {
        return end - start;
    }

    /** Takes up to {@code len} bytes into {@code b}. */
    int read(byte[] b, int off, int len) {
        int n = Math.min(len, end - start);
        System.arraycopy(bytes, start, b, off, n);
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
        }
        return n;
    }

    byte[] toByteArray() {
        return Arrays.copyOfRange(bytes, start, end);
    }
}
