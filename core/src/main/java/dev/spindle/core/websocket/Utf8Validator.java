// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.nio.ByteBuffer;

/**
 * Checks that bytes are UTF-8 (RFC 3629) as they arrive, in any pieces, so that a text message
 * with an invalid sequence fails at the first byte that cannot start or continue one (RFC 6455
 * 8.1), not once the message is whole: overlong forms, surrogates (U+D800 to U+DFFF), code points
 * past U+10FFFF, stray continuation bytes and bytes that never occur ({@code C0}, {@code C1},
 * {@code F5} to {@code FF}) are refused; a sequence cut short is refused by {@link #complete()}.
 * One instance per message being read; {@link #reset()} readies it for the next.
 */
final class Utf8Validator {
    /** Continuation bytes still expected in the current sequence. */
    private int pending;
    /** The bounds of the next byte: tighter than 80..BF for the second byte after E0, ED, F0 and F4. */
    private int low = 0x80;
    private int high = 0xBF;

    /**
     * Checks the bytes of {@code src} between its position and limit, without moving either.
     *
     * @return false at the first byte that makes the input not UTF-8 (and every call after)
     */
    boolean accept(ByteBuffer src) {
        for (int i = src.position(), end = src.limit(); i < end; i++) {
            if (!accept(src.get(i) & 0xFF)) {
                return false;
            }
        }
        return true;
    }

    /** Checks {@code length} bytes of {@code bytes} from {@code offset}; false as {@link #accept(ByteBuffer)}. */
    boolean accept(byte[] bytes, int offset, int length) {
        for (int i = offset, end = offset + length; i < end; i++) {
            if (!accept(bytes[i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }

    private boolean accept(int b) {
        if (pending < 0) {
            return false;
        }
        if (pending > 0) {
            if (b < low || b > high) {
                pending = -1;
                return false;
            }
            pending--;
            low = 0x80;
            high = 0xBF;
            return true;
        }
        if (b < 0x80) {
            return true;
        }
        if (b >= 0xC2 && b <= 0xDF) {
            pending = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            pending = 2;
            if (b == 0xE0) {
                low = 0xA0;          // below: an overlong form of a shorter sequence
            } else if (b == 0xED) {
                high = 0x9F;         // above: the surrogates
            }
        } else if (b >= 0xF0 && b <= 0xF4) {
            pending = 3;
            if (b == 0xF0) {
                low = 0x90;
            } else if (b == 0xF4) {
                high = 0x8F;         // above: past U+10FFFF
            }
        } else {
            pending = -1;            // a continuation byte with nothing to continue, C0, C1, F5..FF
            return false;
        }
        return true;
    }

    /** {@return whether everything accepted so far ends where a character ends} */
    boolean complete() {
        return pending == 0;
    }

    /** Forgets everything accepted, for the next message. */
    void reset() {
        pending = 0;
        low = 0x80;
        high = 0xBF;
    }
}
