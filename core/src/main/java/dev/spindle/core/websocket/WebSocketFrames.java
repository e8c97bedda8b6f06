// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * The constants of RFC 6455's framing (section 5.2) and close codes (7.4), and the writing of
 * frames: a header before a payload the caller holds, or a whole frame, masked (a client's) or
 * not (a server's).
 */
final class WebSocketFrames {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    /** The most a control frame's payload may hold (RFC 6455 5.5). */
    static final int MAX_CONTROL_PAYLOAD = 125;
    /** The longest frame header: 2 bytes, a 64-bit length, a 4-byte masking key. */
    static final int MAX_HEADER_LENGTH = 14;

    static final int NORMAL_CLOSURE = 1000;
    static final int GOING_AWAY = 1001;
    static final int PROTOCOL_ERROR = 1002;
    static final int UNSUPPORTED_DATA = 1003;
    /** Never sent: a close frame without a code reports it (RFC 6455 7.1.5). */
    static final int NO_STATUS = 1005;
    /** Never sent: the connection ended without a close frame (RFC 6455 7.1.5). */
    static final int ABNORMAL_CLOSURE = 1006;
    static final int INVALID_PAYLOAD = 1007;
    static final int POLICY_VIOLATION = 1008;
    static final int MESSAGE_TOO_BIG = 1009;
    static final int MANDATORY_EXTENSION = 1010;
    static final int INTERNAL_ERROR = 1011;

    private WebSocketFrames() {
    }

    /** {@return whether {@code opcode} is one RFC 6455 defines (0, 1, 2, 8, 9, 10)} */
    static boolean known(int opcode) {
        return opcode <= BINARY || (opcode >= CLOSE && opcode <= PONG);
    }

    static boolean control(int opcode) {
        return (opcode & 0x8) != 0;
    }

    /**
     * {@return whether a close frame may carry {@code code}}: 1000 to 1003, 1007 to 1014 (those
     * registered with IANA), and 3000 to 4999 (libraries and applications); 1004, 1005, 1006 and
     * 1015 are reserved or never sent, the rest unassigned (RFC 6455 7.4).
     */
    static boolean sendable(int code) {
        return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
    }

    /** {@return the bytes of a frame header for a payload of {@code length} bytes} */
    static int headerLength(long length, boolean masked) {
        return (length <= 125 ? 2 : length <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0);
    }

    /**
     * Writes a frame header at {@code dst}'s position: {@code mask} is the masking key of a
     * client's frame, written after the length; the payload that follows must be masked with it.
     *
     * @param rsv1 the first reserved bit: a compressed message's first frame (RFC 7692)
     * @param masked whether to write {@code mask}; a server's frames are never masked
     */
    static void writeHeader(ByteBuffer dst, boolean fin, boolean rsv1, int opcode, long length, boolean masked, int mask) {
        dst.put((byte) ((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode));
        int maskBit = masked ? 0x80 : 0;
        if (length <= 125) {
            dst.put((byte) (maskBit | (int) length));
        } else if (length <= 0xFFFF) {
            dst.put((byte) (maskBit | 126)).putShort((short) length);
        } else {
            dst.put((byte) (maskBit | 127)).putLong(length);
        }
        if (masked) {
            dst.putInt(mask);
        }
    }

    /**
     * Masks (or unmasks: the operation is its own inverse) the bytes of {@code buf} from
     * {@code from} to {@code to} in place, {@code phase} being how many payload bytes came before
     * {@code from} (RFC 6455 5.3).
     */
    static void mask(ByteBuffer buf, int from, int to, int mask, long phase) {
        int shift = (int) (phase & 3);
        int i = from;
        while (i < to && shift != 0) {
            buf.put(i, (byte) (buf.get(i) ^ (mask >>> (8 * (3 - shift)))));
            shift = (shift + 1) & 3;
            i++;
        }
        // four bytes at a time once aligned with the key
        int word = buf.order() == java.nio.ByteOrder.BIG_ENDIAN ? mask : Integer.reverseBytes(mask);
        for (; i + 4 <= to; i += 4) {
            buf.putInt(i, buf.getInt(i) ^ word);
        }
        for (int k = 0; i < to; i++, k++) {
            buf.put(i, (byte) (buf.get(i) ^ (mask >>> (8 * (3 - k)))));
        }
    }

    /** {@return a whole frame: a server's unless {@code random} is given, which picks a client's masking key} */
    static byte[] frame(boolean fin, boolean rsv1, int opcode, byte[] payload, RandomGenerator random) {
        boolean masked = random != null;
        int header = headerLength(payload.length, masked);
        ByteBuffer out = ByteBuffer.allocate(header + payload.length);
        int mask = masked ? random.nextInt() : 0;
        writeHeader(out, fin, rsv1, opcode, payload.length, masked, mask);
        out.put(payload);
        if (masked) {
            mask(out, header, out.limit(), mask, 0);
        }
        return out.array();
    }

    /** {@return the UTF-8 bytes of a text message} Unpaired surrogates become '?', as the JDK's encoder replaces them. */
    static byte[] utf8(CharSequence text) {
        // String.getBytes, not Charset.encode: no encoder from a thread-local cache, and a single
        // pass for text that is all ASCII (the same '?' for an unpaired surrogate)
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The payload of a close frame: the code, then as much of {@code reason} as fits in 123 bytes
     * of UTF-8, cut where a character ends.
     *
     * @throws IllegalArgumentException for a code a close frame may not carry
     */
    static byte[] closePayload(int code, String reason) {
        if (!sendable(code)) {
            throw new IllegalArgumentException("a close frame cannot carry the code " + code);
        }
        ByteBuffer out = ByteBuffer.allocate(MAX_CONTROL_PAYLOAD);
        out.putShort((short) code);
        if (reason != null && !reason.isEmpty()) {
            CharsetEncoder utf8 = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
            // stops at the last whole character that fits (an overflow is not an error here)
            utf8.encode(java.nio.CharBuffer.wrap(reason), out, true);
        }
        byte[] payload = new byte[out.position()];
        out.flip().get(payload);
        return payload;
    }

    /** {@return the reason of a close frame, its bytes after the code; they have been checked to be UTF-8} */
    static String reason(ByteBuffer payload) {
        ByteBuffer rest = payload.duplicate().position(payload.position() + 2);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(rest).toString();
        } catch (CharacterCodingException e) {
            throw new WebSocketException(INVALID_PAYLOAD, "the close reason is not UTF-8");
        }
    }
}
