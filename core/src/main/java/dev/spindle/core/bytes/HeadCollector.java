// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bytes;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Gathers a head that arrives in pieces: the bytes up to and including its blank line (CRLFCRLF),
 * at most {@link #MAX} of them, and the bytes that followed it. The client reads the answers to a
 * WebSocket handshake and to a proxy's CONNECT so, before anything else sees the connection's bytes.
 */
public final class HeadCollector {
    /** The most bytes a head may have, its blank line included. */
    public static final int MAX = 16 * 1024;

    /**
     * A whole head and what came after it.
     *
     * @param text the head as ISO-8859-1, its blank line included
     * @param rest the bytes that followed the head, for whatever reads the connection next
     */
    public record Head(String text, byte[] rest) {
    }

    /** The head had {@link #MAX} bytes and no blank line, and more came. */
    public static final class TooLarge extends Exception {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("a head over " + MAX + " bytes", null, false, false);
        }
    }

    private byte[] buffer;
    private int length;

    /**
     * Takes every byte of {@code src}.
     *
     * @param src the next bytes read; left with nothing remaining
     * @return the head once its blank line has come, or {@code null} while it has not
     * @throws TooLarge when the head grows past {@link #MAX} bytes
     */
    public Head collect(ByteBuffer src) throws TooLarge {
        if (buffer == null) {
            buffer = new byte[Math.min(MAX, Math.max(512, src.remaining()))];
        }
        while (src.hasRemaining()) {
            if (length == buffer.length) {
                if (length == MAX) {
                    src.position(src.limit());
                    reset();
                    throw new TooLarge();
                }
                buffer = Arrays.copyOf(buffer, Math.min(MAX, length * 2));
            }
            int from = Math.max(0, length - 3);
            int n = Math.min(src.remaining(), buffer.length - length);
            src.get(buffer, length, n);
            length += n;
            int end = headEnd(from);
            if (end >= 0) {
                byte[] rest = new byte[length - end + src.remaining()];
                System.arraycopy(buffer, end, rest, 0, length - end);
                src.get(rest, length - end, src.remaining());
                Head head = new Head(new String(buffer, 0, end, StandardCharsets.ISO_8859_1), rest);
                reset();
                return head;
            }
        }
        return null;
    }

    /** {@return whether some of a head has come, and not all of it} */
    public boolean started() {
        return length > 0;
    }

    /** Either way a head ends, its bytes are let go and the next head starts afresh. */
    private void reset() {
        buffer = null;
        length = 0;
    }

    /** {@return the index after the blank line, looking from {@code from} on, or -1 when it has not come} */
    private int headEnd(int from) {
        for (int i = Math.max(3, from + 3); i < length; i++) {
            if (buffer[i] == '\n' && buffer[i - 1] == '\r' && buffer[i - 2] == '\n' && buffer[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }
}
