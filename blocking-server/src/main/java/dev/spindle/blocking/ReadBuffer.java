// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A connection's read buffer. It starts at 4 KiB, which most requests fit, and a read that fills
 * it grows it (up to {@link dev.spindle.core.ServerConfig#readBufferSize()}), so that thousands of
 * short connections do not each hold the full size. A connection that only drops what arrives
 * (lingering, or rejected) keeps 512 bytes while its client is quiet, and grows up to 64 KiB while
 * it floods (a refused 300 MB upload is dropped in some 5,000 reads, not 600,000), shrinking back
 * once a read brings 512 bytes or fewer.
 */
final class ReadBuffer {
    private static final int INITIAL_BYTES = 4096;
    private static final int DROP_BYTES = 512;
    private static final int DROP_MAX_BYTES = 64 * 1024;

    private final int max;
    private byte[] bytes;
    private ByteBuffer view;
    /** The last read filled {@link #bytes}: the next one gets a bigger buffer. */
    private boolean lastReadFilled;
    /** What the last read returned; a dropping buffer shrinks once its client trickles. */
    private int lastRead;
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
        if (dropping) {
            if (lastReadFilled && bytes.length < DROP_MAX_BYTES) {
                allocate(Math.min(DROP_MAX_BYTES, bytes.length * 8));
            } else if (lastRead <= DROP_BYTES && bytes.length > DROP_BYTES) {
                allocate(DROP_BYTES);
            }
        } else if (lastReadFilled && bytes.length < max) {
            allocate((int) Math.min(max, bytes.length * 4L));
        }
        int n = in.read(bytes);
        lastReadFilled = n == bytes.length;
        lastRead = n;
        return n;
    }

    /** Bytes of buffer held now, for tests of its bounds. */
    int capacity() {
        return bytes.length;
    }

    /** The first {@code n} bytes of the buffer: what the last read (or one before a hand-over) put there. */
    ByteBuffer filled(int n) {
        return view.clear().limit(n);
    }

    /** The connection only drops its input from now on: the buffer shrinks, and grows only while its client floods. */
    void drop() {
        dropping = true;
        allocate(DROP_BYTES);
    }

    private void allocate(int size) {
        bytes = new byte[size];
        view = ByteBuffer.wrap(bytes);
    }
}
