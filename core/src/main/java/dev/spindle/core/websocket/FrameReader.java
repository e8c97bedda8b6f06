// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static dev.spindle.core.websocket.WebSocketFrames.CONTINUATION;
import static dev.spindle.core.websocket.WebSocketFrames.MAX_CONTROL_PAYLOAD;
import static dev.spindle.core.websocket.WebSocketFrames.MESSAGE_TOO_BIG;
import static dev.spindle.core.websocket.WebSocketFrames.PROTOCOL_ERROR;

import java.nio.ByteBuffer;

/**
 * Splits the bytes of a WebSocket connection into frames (RFC 6455 5.2), checks each header
 * against the rules that need no message state, and hands the frames to a {@link Listener}: a
 * data frame's payload as it arrives, in as many pieces as the input came in (nothing of it
 * buffered here), a control frame whole (at most 125 bytes: read where it lies when it came in one
 * piece, else gathered in a buffer of that size, made the first time one is split). A
 * header is checked as soon as its bytes are here, so a frame over the limit is refused before any
 * of its payload is read. Payloads are unmasked in place, in the caller's buffer.
 *
 * <p>Refused, with the close code the connection is to end with: a reserved opcode, RSV2 or RSV3,
 * RSV1 unless an extension gave it a meaning (and then not on a control frame or a continuation),
 * a fragmented control frame or one over 125 bytes, a frame from a client without a mask (or from
 * a server with one), a 64-bit length with its top bit set (1002), a frame over the limit (1009).
 */
final class FrameReader {
    /** What the reader found. */
    interface Listener {
        /** A text, binary or continuation frame begins; its payload, {@code length} bytes, follows in {@link #data} calls. */
        void dataFrame(int opcode, boolean fin, boolean rsv1, long length);

        /** Bytes of the current data frame's payload, unmasked, between {@code payload}'s position and limit; valid during the call only. */
        void data(ByteBuffer payload);

        /** The current data frame's payload is all here (after its last {@link #data} call, or at once when it is empty). */
        void dataEnd();

        /** A control frame, whole and unmasked, between {@code payload}'s position and limit; valid during the call only. */
        void control(int opcode, ByteBuffer payload);
    }

    private final Listener listener;
    /** A server reads a client's frames, which must be masked; a client, a server's, which must not be. */
    private final boolean server;
    private final long maxFramePayload;
    private boolean rsv1Allowed;

    /** The header's first two bytes, while it is read; its extended length gathers in {@link #phase}, its masking key in {@link #mask} (no buffer of its own). */
    private int first;
    private int headLength;
    /** How long the header being read is, once its first two bytes tell; 2 until then. */
    private int headNeeded = 2;
    /** Gathers a control frame's payload that came in pieces; null until one did. */
    private ByteBuffer controlPayload;
    /** An empty control frame's payload: no room, so nothing a listener does can change it. */
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private int opcode;
    private boolean masked;
    private int mask;
    /** Payload bytes of the current frame still to come; -1 while a header is being read. */
    private long remaining = -1;
    /** Payload bytes of the current frame already read: where the masking key stands (while a header is read, its extended length). */
    private long phase;

    /**
     * @param server true on a server (client frames must be masked), false on a client
     * @param maxFramePayload the largest payload accepted in one frame
     */
    FrameReader(Listener listener, boolean server, long maxFramePayload) {
        this.listener = listener;
        this.server = server;
        this.maxFramePayload = maxFramePayload;
    }

    /** Lets RSV1 mark a message's first frame, as permessage-deflate does (RFC 7692 6). */
    void allowRsv1() {
        rsv1Allowed = true;
    }

    /**
     * Reads all of {@code src} (position to limit), unmasking payloads in place, and hands on what
     * it completes; a frame cut short is finished by the next call.
     *
     * @throws WebSocketException when a frame breaks the rules above; nothing after it is read
     */
    void read(ByteBuffer src) {
        while (src.hasRemaining()) {
            if (remaining < 0) {
                int b = src.get() & 0xFF;
                if (headLength < 2) {
                    first = first << 8 | b;
                } else if (headLength < headNeeded - (server ? 4 : 0)) {
                    phase = phase << 8 | b;
                } else {
                    mask = mask << 8 | b;
                }
                headLength++;
                if (headLength == 2) {
                    headNeeded = checkFirstBytes();
                }
                if (headLength == headNeeded) {
                    startFrame();
                }
                continue;
            }
            int n = (int) Math.min(remaining, src.remaining());
            int from = src.position();
            if (masked) {
                WebSocketFrames.mask(src, from, from + n, mask, phase);
            }
            ByteBuffer piece = src.slice(from, n);
            src.position(from + n);
            remaining -= n;
            phase += n;
            if (!WebSocketFrames.control(opcode)) {
                listener.data(piece);
            } else if (remaining == 0 && phase == n) {
                // the whole payload in this piece: handed on from the input, not copied
                endFrame(piece);
                continue;
            } else {
                if (controlPayload == null) {
                    controlPayload = ByteBuffer.allocate(MAX_CONTROL_PAYLOAD);
                }
                controlPayload.put(piece);
            }
            if (remaining == 0) {
                endFrame(WebSocketFrames.control(opcode) ? controlPayload.flip() : null);
            }
        }
    }

    /** Checks the first two bytes of a header; returns the header's whole length. */
    private int checkFirstBytes() {
        int b0 = first >>> 8 & 0xFF;
        int b1 = first & 0xFF;
        boolean fin = (b0 & 0x80) != 0;
        boolean rsv1 = (b0 & 0x40) != 0;
        int op = b0 & 0x0F;
        if (!WebSocketFrames.known(op)) {
            throw new WebSocketException(PROTOCOL_ERROR, "reserved opcode " + op);
        }
        boolean control = WebSocketFrames.control(op);
        if ((b0 & 0x30) != 0) {
            throw new WebSocketException(PROTOCOL_ERROR, "RSV2 or RSV3 set without an extension that defines it");
        }
        if (rsv1 && (!rsv1Allowed || control || op == CONTINUATION)) {
            throw new WebSocketException(PROTOCOL_ERROR, rsv1Allowed
                    ? "RSV1 set on a " + (control ? "control frame" : "continuation frame")
                    : "RSV1 set without an extension that defines it");
        }
        if (control && !fin) {
            throw new WebSocketException(PROTOCOL_ERROR, "a fragmented control frame");
        }
        boolean hasMask = (b1 & 0x80) != 0;
        if (hasMask != server) {
            throw new WebSocketException(PROTOCOL_ERROR, server ? "a client frame without a mask" : "a server frame with a mask");
        }
        int length7 = b1 & 0x7F;
        if (control && length7 > MAX_CONTROL_PAYLOAD) {
            throw new WebSocketException(PROTOCOL_ERROR, "a control frame over 125 bytes");
        }
        return 2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0) + (hasMask ? 4 : 0);
    }

    private void startFrame() {
        int b0 = first >>> 8 & 0xFF;
        int length7 = first & 0x7F;
        // 2 or 8 bytes of extended length, big-endian, unsigned (a 64-bit one with its top bit set is negative)
        long length = length7 >= 126 ? phase : length7;
        if (length < 0) {
            throw new WebSocketException(PROTOCOL_ERROR, "a 64-bit payload length with its most significant bit set");
        }
        if (length > maxFramePayload) {
            throw new WebSocketException(MESSAGE_TOO_BIG, "a frame of " + length + " bytes, over the limit of " + maxFramePayload);
        }
        opcode = b0 & 0x0F;
        masked = server;
        if (!masked) {
            mask = 0;
        }
        remaining = length;
        phase = 0;
        first = 0;
        headLength = 0;
        headNeeded = 2;
        if (WebSocketFrames.control(opcode)) {
            if (controlPayload != null) {
                controlPayload.clear();
            }
        } else {
            listener.dataFrame(opcode, (b0 & 0x80) != 0, (b0 & 0x40) != 0, length);
        }
        if (length == 0) {
            endFrame(EMPTY);
        }
    }

    /** @param control a control frame's whole payload; unused after a data frame */
    private void endFrame(ByteBuffer control) {
        remaining = -1;
        phase = 0;
        if (WebSocketFrames.control(opcode)) {
            listener.control(opcode, control);
        } else {
            listener.dataEnd();
        }
    }
}
