// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A connection's read buffer. It starts at 4 KiB, which most requests fit, and a read that fills
 * it grows it (up to {@link dev.spindle.core.ServerConfig#readBufferSize()}), so that thousands of
 * short connections do not each hold the full size. A connection that only drops what arrives
 * (lingering, or rejected) keeps 512 bytes.
 */
final class ReadBuffer {
    private static final int INITIAL_BYTES = 4096;
    private static final int DROP_BYTES = 512;

    private final int max;
    private byte[] bytes;
    private ByteBuffer view;
    /** The last read filled {@link #bytes}: the next one gets a bigger buffer. */
    private boolean lastReadFilled;
    private boolean dropping;

    /**
     * @param max the most it grows to
     * @param dropping whether the connection only drops what arrives from the start
     */
    ReadBuffer(int max, boolean dropping) {
        this.max = max;
        this.dropping = dropping;
        allocate(dropping ? DROP_BYTES : Math.min(INITIAL_BYTES, max));
    }

    /**
     * Reads once from {@code in}, first growing the buffer if the last read filled it. The bytes of
     * a read must be taken ({@link #filled}) before the next read, since the buffer can change.
     *
     * @return the number of bytes read, or -1 at the end of the stream
     */
    int readFrom(InputStream in) throws IOException {
        if (lastReadFilled && !dropping && bytes.length < max) {
            allocate((int) Math.min(max, bytes.length * 4L));
        }
        int n = in.read(bytes);
        lastReadFilled = n == bytes.length;
        return n;
    }

    /** The first {@code n} bytes of the buffer: what the last read (or one before a hand-over) put there. */
    ByteBuffer filled(int n) {
        return view.clear().limit(n);
    }

    /** The connection only drops its input from now on: the buffer shrinks and stays small. */
    void drop() {
        dropping = true;
        allocate(DROP_BYTES);
    }

    private void allocate(int size) {
        bytes = new byte[size];
        view = ByteBuffer.wrap(bytes);
    }
}
