// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.Ascii;
import java.nio.ByteBuffer;

/**
 * One chunk-size line of a chunked response body, read byte by byte as it arrives: hex digits
 * (overflow checked), then optional extensions ({@code ;} after optional whitespace, RFC 9112
 * 7.1.1), checked and skipped, then CRLF. Bounded to {@link #MAX_LENGTH} bytes.
 */
final class ChunkSizeLine {
    /** The longest chunk-size line, extensions included. */
    static final int MAX_LENGTH = 4096;

    private enum Phase { SIZE, EXTENSION, LF }

    private Phase phase;
    private long size;
    private int digits;
    private boolean extensionStarted;
    private int length;

    /** Starts a new line. */
    void begin() {
        phase = Phase.SIZE;
        size = 0;
        digits = 0;
        extensionStarted = false;
        length = 0;
    }

    /**
     * Takes bytes of the line from {@code src}, no further than its end.
     *
     * @return true once the line ended (its CRLF taken); false if more bytes are needed
     * @throws ResponseException if the line is malformed
     */
    boolean feed(ByteBuffer src) {
        while (src.hasRemaining()) {
            if (++length > MAX_LENGTH) {
                throw ResponseException.malformed("chunk-size line longer than " + MAX_LENGTH + " bytes");
            }
            byte c = src.get();
            switch (phase) {
                case SIZE -> {
                    int digit = Ascii.hexValue(c);
                    if (digit >= 0) {
                        // another digit must not shift a bit into the sign
                        if (size > 0x07FFFFFF_FFFFFFFFL) {
                            throw ResponseException.malformed("chunk size overflows");
                        }
                        size = size << 4 | digit;
                        digits++;
                    } else if (digits == 0) {
                        throw ResponseException.malformed("invalid chunk size");
                    } else if (c == '\r') {
                        phase = Phase.LF;
                    } else if (c == ';' || Ascii.isWhitespace(c)) {
                        extensionStarted = c == ';';
                        phase = Phase.EXTENSION;
                    } else {
                        throw ResponseException.malformed(c == '\n' ? "chunk-size line not terminated by CRLF" : "invalid chunk size");
                    }
                }
                case EXTENSION -> {
                    if (c == '\r') {
                        if (!extensionStarted) {
                            throw ResponseException.malformed("whitespace after a chunk size without an extension");
                        }
                        phase = Phase.LF;
                    } else if (!extensionStarted) {
                        if (c == ';') {
                            extensionStarted = true;
                        } else if (!Ascii.isWhitespace(c)) {
                            throw ResponseException.malformed("invalid chunk size");
                        }
                    } else if (!Ascii.isFieldValueChar(c)) {
                        throw ResponseException.malformed("invalid character in a chunk extension");
                    }
                }
                case LF -> {
                    if (c != '\n') {
                        throw ResponseException.malformed("chunk-size line not terminated by CRLF");
                    }
                    return true;
                }
            }
        }
        return false;
    }

    /** The chunk's size, once {@link #feed} returned true. */
    long size() {
        return size;
    }
}
