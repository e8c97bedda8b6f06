// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A connection's read buffer. It starts at 4 KiB, which most requests fit, and a read that fills
 * it grows it (up to {@link dev.spindle.core.ServerConfig#readBufferSize()}), so that thousands of
 * short connections do not each hold the full size. A connection that only drops what arrives
 * (lingering, or rejected) reads into one 64 KiB array that every dropping connection of the
 * process shares, since no one reads what lands there: a flood is dropped in few reads (a refused
 * 300 MB upload in 4,800, not 600,000 of 512 bytes), and hundreds of refused connections blocked in
 * a read hold no buffer of their own (each held its own grown one before, 64 KiB apiece, which
 * filled a 96 MiB heap when a burst of uploads was refused).
 */
final class ReadBuffer {
    private static final int INITIAL_BYTES = 4096;
    /** Where dropping connections read; its contents are never looked at, so concurrent reads into it are harmless. */
    private static final byte[] DROPPED = new byte[64 * 1024];

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
        if (dropping) {
            drop();
        } else {
            allocate(Math.min(INITIAL_BYTES, max));
        }
    }

    /**
     * Reads once from {@code in}, first growing the buffer if the last read filled it. The bytes of
     * a read must be taken ({@link #filled}) before the next read, since the buffer can change.
     *
     * @return the number of bytes read, or -1 at the end of the stream
     */
    int readFrom(InputStream in) throws IOException {
        if (!dropping && lastReadFilled && bytes.length < max) {
            allocate((int) Math.min(max, bytes.length * 4L));
        }
        int n = in.read(bytes);
        lastReadFilled = n == bytes.length;
        return n;
    }

    /** Bytes of buffer this connection holds of its own, for tests of its bounds: none while it drops. */
    int capacity() {
        return dropping ? 0 : bytes.length;
    }

    /** The first {@code n} bytes of the buffer: what the last read (or one before a hand-over) put there. */
    ByteBuffer filled(int n) {
        return view.clear().limit(n);
    }

    /** The connection only drops its input from now on: it lets its own array go and reads into the shared one. */
    void drop() {
        dropping = true;
        bytes = DROPPED;
        view = ByteBuffer.wrap(DROPPED);
    }

    private void allocate(int size) {
        bytes = new byte[size];
        view = ByteBuffer.wrap(bytes);
    }
}
