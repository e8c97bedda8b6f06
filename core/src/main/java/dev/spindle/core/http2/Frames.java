// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;

/**
 * HTTP/2 frame constants (RFC 9113 section 6, 11.2) and the writers that append frames to a
 * {@link WireBuffer}. Writers check only what the caller could get wrong by a slip (ids,
 * lengths that do not fit the field); limits the peer set, like its maximum frame size and
 * flow-control windows, are the caller's to respect.
 */
final class Frames {
    static final int FRAME_HEADER_LENGTH = 9;

    static final int TYPE_DATA = 0x0;
    static final int TYPE_HEADERS = 0x1;
    static final int TYPE_PRIORITY = 0x2;
    static final int TYPE_RST_STREAM = 0x3;
    static final int TYPE_SETTINGS = 0x4;
    static final int TYPE_PUSH_PROMISE = 0x5;
    static final int TYPE_PING = 0x6;
    static final int TYPE_GOAWAY = 0x7;
    static final int TYPE_WINDOW_UPDATE = 0x8;
    static final int TYPE_CONTINUATION = 0x9;

    static final int FLAG_END_STREAM = 0x1;
    static final int FLAG_ACK = 0x1;
    static final int FLAG_END_HEADERS = 0x4;
    static final int FLAG_PADDED = 0x8;
    static final int FLAG_PRIORITY = 0x20;

    static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    static final int SETTINGS_ENABLE_PUSH = 0x2;
    /** RFC 8441 3: a peer that sends 1 accepts extended CONNECT. */
    static final int SETTINGS_ENABLE_CONNECT_PROTOCOL = 0x8;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    /** Bytes per setting in a SETTINGS payload: a 16-bit id and a 32-bit value. */
    static final int SETTING_LENGTH = 6;

    /** SETTINGS_MAX_FRAME_SIZE's initial value and its least allowed (RFC 9113 6.5.2). */
    static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    /** The largest SETTINGS_MAX_FRAME_SIZE allowed: a frame length's 24 bits. */
    static final int MAX_FRAME_SIZE_LIMIT = 16_777_215;
    /** The initial flow-control window (RFC 9113 6.9.2). */
    static final int DEFAULT_WINDOW_SIZE = 65_535;
    /** The largest flow-control window (RFC 9113 6.9.1). */
    static final int MAX_WINDOW_SIZE = Integer.MAX_VALUE;

    /** Stream ids and a WINDOW_UPDATE increment are 31 bits; the high bit is reserved and ignored on receipt. */
    static final int STREAM_ID_MASK = 0x7FFF_FFFF;

    private Frames() {
    }

    /** Appends a frame header (RFC 9113 4.1). */
    static void header(WireBuffer out, int length, int type, int flags, int streamId) {
        if (length < 0 || length > MAX_FRAME_SIZE_LIMIT) {
            throw new IllegalArgumentException("a frame length of " + length);
        }
        if (streamId < 0) {
            throw new IllegalArgumentException("stream " + streamId);
        }
        out.putMedium(length);
        out.put(type);
        out.put(flags);
        out.putInt(streamId);
    }

    /** A SETTINGS frame with each id and value given in turn, e.g. {@code settings(out, SETTINGS_MAX_CONCURRENT_STREAMS, 100)}. */
    static void settings(WireBuffer out, int... idValuePairs) {
        if (idValuePairs.length % 2 != 0) {
            throw new IllegalArgumentException("settings come in id-value pairs");
        }
        header(out, idValuePairs.length / 2 * SETTING_LENGTH, TYPE_SETTINGS, 0, 0);
        for (int i = 0; i < idValuePairs.length; i += 2) {
            out.putShort(idValuePairs[i]);
            out.putInt(idValuePairs[i + 1]);
        }
    }

    static void settingsAck(WireBuffer out) {
        header(out, 0, TYPE_SETTINGS, FLAG_ACK, 0);
    }

    static void ping(WireBuffer out, boolean ack, long payload) {
        header(out, 8, TYPE_PING, ack ? FLAG_ACK : 0, 0);
        out.putLong(payload);
    }

    /** A GOAWAY frame; {@code debug} may be null. */
    static void goAway(WireBuffer out, int lastStreamId, ErrorCode error, byte[] debug) {
        int debugLength = debug == null ? 0 : debug.length;
        header(out, 8 + debugLength, TYPE_GOAWAY, 0, 0);
        out.putInt(lastStreamId & STREAM_ID_MASK);
        out.putInt(error.code);
        if (debugLength > 0) {
            out.put(debug, 0, debugLength);
        }
    }

    static void rstStream(WireBuffer out, int streamId, ErrorCode error) {
        requireStream(streamId);
        header(out, 4, TYPE_RST_STREAM, 0, streamId);
        out.putInt(error.code);
    }

    /** A WINDOW_UPDATE frame; stream 0 is the connection's window. */
    static void windowUpdate(WireBuffer out, int streamId, int increment) {
        if (increment <= 0) {
            throw new IllegalArgumentException("a window increment of " + increment);
        }
        header(out, 4, TYPE_WINDOW_UPDATE, 0, streamId);
        out.putInt(increment);
    }

    /** The header of a DATA frame of {@code length} bytes, which the caller appends next. */
    static void dataHeader(WireBuffer out, int length, int streamId, boolean endStream) {
        requireStream(streamId);
        header(out, length, TYPE_DATA, endStream ? FLAG_END_STREAM : 0, streamId);
    }

    static void data(WireBuffer out, int streamId, byte[] src, int offset, int length, boolean endStream) {
        dataHeader(out, length, streamId, endStream);
        out.put(src, offset, length);
    }

    /** A DATA frame carrying what remains of {@code src}, consuming it. */
    static void data(WireBuffer out, int streamId, ByteBuffer src, boolean endStream) {
        dataHeader(out, src.remaining(), streamId, endStream);
        out.put(src);
    }

    /**
     * Starts a HEADERS frame whose block the caller appends next, then ends with one of the
     * {@code headersEnd} methods.
     *
     * @return the frame's position, to hand to {@code headersEnd}
     */
    static int headersStart(WireBuffer out, int streamId, boolean endStream) {
        requireStream(streamId);
        int start = out.position();
        header(out, 0, TYPE_HEADERS, endStream ? FLAG_END_STREAM : 0, streamId);
        return start;
    }

    /**
     * Ends a HEADERS frame begun at {@code start}: its length becomes what was appended since, and
     * END_HEADERS is set if {@code endHeaders} (else the caller appends CONTINUATION frames).
     */
    static void headersEnd(WireBuffer out, int start, boolean endHeaders) {
        int length = out.position() - start - FRAME_HEADER_LENGTH;
        if (length > MAX_FRAME_SIZE_LIMIT) {
            throw new IllegalStateException("a header block fragment of " + length + " bytes");
        }
        out.patchMedium(start, length);
        if (endHeaders) {
            out.patch(start + 4, out.get(start + 4) | FLAG_END_HEADERS);
        }
    }

    /**
     * Ends a HEADERS frame begun at {@code start} whose whole block was appended since: a block
     * longer than {@code maxFrameSize} (the peer's SETTINGS_MAX_FRAME_SIZE) is split in place into
     * the HEADERS frame and CONTINUATION frames (RFC 9113 4.3), the last with END_HEADERS.
     */
    static void headersEnd(WireBuffer out, int start, int maxFrameSize) {
        if (maxFrameSize < DEFAULT_MAX_FRAME_SIZE || maxFrameSize > MAX_FRAME_SIZE_LIMIT) {
            throw new IllegalArgumentException("a maximum frame size of " + maxFrameSize);
        }
        int blockStart = start + FRAME_HEADER_LENGTH;
        int length = out.position() - blockStart;
        if (length <= maxFrameSize) {
            headersEnd(out, start, true);
            return;
        }
        int continuations = (length - 1) / maxFrameSize;
        int streamId = (out.get(start + 5) << 24 | out.get(start + 6) << 16 | out.get(start + 7) << 8 | out.get(start + 8));
        out.skip(continuations * FRAME_HEADER_LENGTH);
        // From the last piece back, so that each moves before a header lands on what was its place.
        for (int i = continuations; i >= 1; i--) {
            int from = blockStart + i * maxFrameSize;
            int to = from + i * FRAME_HEADER_LENGTH;
            int pieceLength = Math.min(maxFrameSize, length - i * maxFrameSize);
            out.move(from, to, pieceLength);
            int at = to - FRAME_HEADER_LENGTH;
            out.patchMedium(at, pieceLength);
            out.patch(at + 3, TYPE_CONTINUATION);
            out.patch(at + 4, i == continuations ? FLAG_END_HEADERS : 0);
            out.patchInt(at + 5, streamId);
        }
        out.patchMedium(start, maxFrameSize);
    }

    private static void requireStream(int streamId) {
        if (streamId <= 0) {
            throw new IllegalArgumentException("stream " + streamId);
        }
    }
}
