// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import java.nio.ByteBuffer;

/**
 * Input a {@link ClientConnection} read but could not hand on yet, because a streamed body's reader
 * had no room: fed again once the reader makes some. Bounded by what was read before reading
 * stopped (a read under way when the reader ran out of room is appended).
 */
final class InputStash {
    private byte[] bytes;
    private int start;
    private int end;

    boolean isEmpty() {
        return end == start;
    }

    /** Keeps what remains of {@code src}, after what is kept already. */
    void keep(ByteBuffer src) {
        int n = src.remaining();
        if (bytes == null || end + n > bytes.length) {
            int kept = end - start;
            byte[] grown = new byte[Math.max(kept + n, bytes == null ? 0 : bytes.length)];
            if (kept > 0) {
                System.arraycopy(bytes, start, grown, 0, kept);
            }
            bytes = grown;
            start = 0;
            end = kept;
        }
        src.get(bytes, end, n);
        end += n;
    }

    /**
     * Everything kept, as a buffer over this stash's array, which is emptied: what the caller does
     * not use it keeps again ({@link #keep}), which may move it within the same array.
     */
    ByteBuffer take() {
        ByteBuffer kept = ByteBuffer.wrap(bytes, start, end - start);
        start = end = 0;
        return kept;
    }

    void clear() {
        bytes = null;
        start = end = 0;
    }
}
