// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.ErrorCode.FLOW_CONTROL_ERROR;
import static dev.spindle.core.http2.ErrorCode.FRAME_SIZE_ERROR;
import static dev.spindle.core.http2.ErrorCode.PROTOCOL_ERROR;
import static dev.spindle.core.http2.Frames.FLAG_ACK;
import static dev.spindle.core.http2.Frames.FLAG_END_HEADERS;
import static dev.spindle.core.http2.Frames.FLAG_END_STREAM;
import static dev.spindle.core.http2.Frames.FLAG_PADDED;
import static dev.spindle.core.http2.Frames.FLAG_PRIORITY;
import static dev.spindle.core.http2.Frames.STREAM_ID_MASK;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits the bytes a server receives into HTTP/2 frames (RFC 9113 section 4), checks each against
 * the rules of sections 4 and 6 that need no stream state, and hands it to a {@link FrameListener}.
 * A frame lying whole in the input is handed on as a view of the input; only the bytes of a frame
 * that is still arriving are copied, into a buffer of at most {@code 9 + maxFrameSize} bytes.
 * A frame's header is checked as soon as it is here, so a frame too large, or one that ends the
 * connection whatever its payload, is refused before its payload is buffered.
 * Stream states, flow-control windows and header blocks are the connection's business, not this.
 */
final class FrameReader {
    static final int FRAME_HEADER_LENGTH = Frames.FRAME_HEADER_LENGTH;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private int maxFrameSize;
    /** Bytes of the client preface matched so far; all of it unless {@link #expectPreface} was called. */
    private int prefaceMatched = PREFACE.length;
    /** The first frame after the preface must be SETTINGS (RFC 9113 3.4). */
    private boolean awaitingSettings;
    /** The stream whose header block is open (a HEADERS without END_HEADERS): only its CONTINUATION may come next. */
    private int openHeaderBlock;

    /** The bytes of a frame still arriving, from its header on. */
    private byte[] held = new byte[0];
    private ByteBuffer heldView = ByteBuffer.wrap(held);
    private int heldLength;

    /** The header of the frame being read, once its 9 bytes are here. */
    private int length;
    private int type;
    private int flags;
    private int streamId;

    /**
     * A reader that accepts frames up to {@code maxFrameSize} bytes.
     *
     * @param maxFrameSize the SETTINGS_MAX_FRAME_SIZE this side advertised (16,384 by default)
     */
    FrameReader(int maxFrameSize) {
        maxFrameSize(maxFrameSize);
    }

    /** Changes the largest frame accepted, once the peer has acknowledged a new SETTINGS_MAX_FRAME_SIZE. */
    void maxFrameSize(int maxFrameSize) {
        if (maxFrameSize < Frames.DEFAULT_MAX_FRAME_SIZE || maxFrameSize > Frames.MAX_FRAME_SIZE_LIMIT) {
            throw new IllegalArgumentException("a maximum frame size of " + maxFrameSize);
        }
        this.maxFrameSize = maxFrameSize;
    }

    int maxFrameSize() {
        return maxFrameSize;
    }

    /** The size of the buffer kept for a frame still arriving, for tests. */
    int bufferCapacity() {
        return held.length;
    }

    /**
     * Makes the next 24 bytes the client connection preface and the frame after them a SETTINGS
     * frame (RFC 9113 3.4); anything else is a connection PROTOCOL_ERROR.
     */
    void expectPreface() {
        prefaceMatched = 0;
        awaitingSettings = true;
    }

    /** Whether the client preface, its SETTINGS frame included, has been read (true if none was expected). */
    boolean prefaceDone() {
        return prefaceMatched == PREFACE.length && !awaitingSettings;
    }

    /**
     * Reads every complete frame in {@code src}, consuming it entirely, and keeps the bytes of an
     * incomplete frame until the rest arrives. If a frame is in error, or a listener call throws,
     * that frame is consumed and the exception propagates with {@code src} positioned after it:
     * after a stream error the caller resets the stream and calls again with the same {@code src}
     * for the rest. After a connection error the reader is not to be used again.
     *
     * @param src the bytes received; read from its position to its limit, whatever its byte order
     * @param listener receives each frame
     * @throws Http2Exception a frame broke a rule, or the listener threw
     */
    void read(ByteBuffer src, FrameListener listener) throws Http2Exception {
        if (prefaceMatched < PREFACE.length) {
            matchPreface(src);
        }
        while (src.hasRemaining()) {
            if (heldLength > 0) {
                if (!fillHeld(src)) {
                    return;
                }
                heldLength = 0;
                dispatch(heldView, 0, listener);
                continue;
            }
            int at = src.position();
            int remaining = src.remaining();
            if (remaining < FRAME_HEADER_LENGTH) {
                hold(src, remaining);
                return;
            }
            parseHeader(src, at);
            checkHeader(src, at);
            if (remaining < FRAME_HEADER_LENGTH + length) {
                hold(src, remaining);
                return;
            }
            dispatch(src, at, listener);
        }
    }

    private void matchPreface(ByteBuffer src) throws Http2Exception {
        while (prefaceMatched < PREFACE.length && src.hasRemaining()) {
            if (src.get() != PREFACE[prefaceMatched]) {
                throw Http2Exception.connection(PROTOCOL_ERROR, "the connection did not begin with the HTTP/2 client preface");
            }
            prefaceMatched++;
        }
    }

    /** Takes more of a held frame from {@code src}; true once the frame is whole. */
    private boolean fillHeld(ByteBuffer src) throws Http2Exception {
        if (heldLength < FRAME_HEADER_LENGTH) {
            int n = Math.min(FRAME_HEADER_LENGTH - heldLength, src.remaining());
            src.get(held, heldLength, n);
            heldLength += n;
            if (heldLength < FRAME_HEADER_LENGTH) {
                return false;
            }
            parseHeader(heldView, 0);
            try {
                checkHeader(null, 0);
            } catch (Http2Exception e) {
                heldLength = 0;
                throw e;
            }
            ensureHeld(FRAME_HEADER_LENGTH + length);
        }
        int n = Math.min(FRAME_HEADER_LENGTH + length - heldLength, src.remaining());
        src.get(held, heldLength, n);
        heldLength += n;
        return heldLength == FRAME_HEADER_LENGTH + length;
    }

    /** Copies what remains of {@code src}, the start of a frame, to wait for the rest. */
    private void hold(ByteBuffer src, int remaining) {
        ensureHeld(remaining >= FRAME_HEADER_LENGTH ? FRAME_HEADER_LENGTH + length : FRAME_HEADER_LENGTH);
        src.get(held, 0, remaining);
        heldLength = remaining;
    }

    private void ensureHeld(int capacity) {
        if (held.length < capacity) {
            int grown = Math.max(capacity, Math.min(held.length * 2, FRAME_HEADER_LENGTH + maxFrameSize));
            held = Arrays.copyOf(held, grown);
            heldView = ByteBuffer.wrap(held);
        }
    }

    private void parseHeader(ByteBuffer b, int at) {
        length = medium(b, at);
        type = b.get(at + 3) & 0xFF;
        flags = b.get(at + 4) & 0xFF;
        streamId = int32(b, at + 5) & STREAM_ID_MASK; // RFC 9113 4.1: the reserved bit is ignored
    }

    /**
     * The rules a frame's header alone can break, all connection errors. On error, {@code src}
     * (null for a held frame) is positioned after as much of the frame as it holds.
     */
    private void checkHeader(ByteBuffer src, int at) throws Http2Exception {
        Http2Exception error = headerError();
        if (error != null) {
            if (src != null) {
                src.position(Math.min(src.limit(), at + FRAME_HEADER_LENGTH + length));
            }
            throw error;
        }
    }

    private Http2Exception headerError() {
        if (awaitingSettings && (type != Frames.TYPE_SETTINGS || (flags & FLAG_ACK) != 0)) {
            return protocolError("the first frame after the preface must be SETTINGS, not type " + type); // 3.4
        }
        if (openHeaderBlock != 0 && (type != Frames.TYPE_CONTINUATION || streamId != openHeaderBlock)) {
            return protocolError("frame type " + type + " on stream " + streamId + " inside the header block of stream " + openHeaderBlock); // 6.2
        }
        if (length > maxFrameSize) {
            return frameSizeError("a frame of " + length + " bytes, above the " + maxFrameSize + " allowed"); // 4.2
        }
        boolean onStream0 = streamId == 0;
        return switch (type) {
            case Frames.TYPE_DATA -> onStream0 ? protocolError("DATA on stream 0") // 6.1
                    : (flags & FLAG_PADDED) != 0 && length < 1 ? frameSizeError("a padded DATA frame without a pad length") : null; // 4.2
            case Frames.TYPE_HEADERS -> onStream0 ? protocolError("HEADERS on stream 0") // 6.2
                    : length < ((flags & FLAG_PADDED) != 0 ? 1 : 0) + ((flags & FLAG_PRIORITY) != 0 ? 5 : 0)
                            ? frameSizeError("a HEADERS frame too short for its pad length and priority fields") : null; // 4.2
            case Frames.TYPE_PRIORITY -> onStream0 ? protocolError("PRIORITY on stream 0") : null; // 6.3
            case Frames.TYPE_RST_STREAM -> onStream0 ? protocolError("RST_STREAM on stream 0") // 6.4
                    : length != 4 ? frameSizeError("an RST_STREAM frame of " + length + " bytes") : null;
            case Frames.TYPE_SETTINGS -> !onStream0 ? protocolError("SETTINGS on stream " + streamId) // 6.5
                    : (flags & FLAG_ACK) != 0 && length != 0 ? frameSizeError("a SETTINGS ACK with a payload")
                    : length % Frames.SETTING_LENGTH != 0 ? frameSizeError("a SETTINGS frame of " + length + " bytes, not a multiple of 6") : null;
            case Frames.TYPE_PUSH_PROMISE -> protocolError("PUSH_PROMISE, which this side does not accept"); // 8.4: only a server pushes, and a client that disabled it refuses it
            case Frames.TYPE_PING -> !onStream0 ? protocolError("PING on stream " + streamId) // 6.7
                    : length != 8 ? frameSizeError("a PING frame of " + length + " bytes") : null;
            case Frames.TYPE_GOAWAY -> !onStream0 ? protocolError("GOAWAY on stream " + streamId) // 6.8
                    : length < 8 ? frameSizeError("a GOAWAY frame of " + length + " bytes") : null;
            case Frames.TYPE_WINDOW_UPDATE -> length != 4 ? frameSizeError("a WINDOW_UPDATE frame of " + length + " bytes") : null; // 6.9
            // 6.10: a CONTINUATION on the open block's stream was let through above
            case Frames.TYPE_CONTINUATION -> openHeaderBlock == 0 ? protocolError("CONTINUATION on stream " + streamId + " without an open header block") : null;
            default -> null;
        };
    }

    private static Http2Exception protocolError(String message) {
        return Http2Exception.connection(PROTOCOL_ERROR, message);
    }

    private static Http2Exception frameSizeError(String message) {
        return Http2Exception.connection(FRAME_SIZE_ERROR, message);
    }

    /**
     * Checks the payload of the frame whose header is at {@code at} in {@code b} and hands it on.
     * {@code b} ends up positioned after the frame, its limit as it was, even if this throws.
     */
    private void dispatch(ByteBuffer b, int at, FrameListener listener) throws Http2Exception {
        int limit = b.limit();
        int payload = at + FRAME_HEADER_LENGTH;
        int end = payload + length;
        try {
            switch (type) {
                case Frames.TYPE_DATA -> data(b, payload, end, listener);
                case Frames.TYPE_HEADERS -> headers(b, payload, end, listener);
                case Frames.TYPE_PRIORITY -> priority(b, payload, listener);
                case Frames.TYPE_RST_STREAM -> listener.rstStream(streamId, uint32(b, payload));
                case Frames.TYPE_SETTINGS -> settings(b, payload, end, listener);
                case Frames.TYPE_PING -> listener.ping(int64(b, payload), (flags & FLAG_ACK) != 0);
                case Frames.TYPE_GOAWAY -> {
                    int lastStreamId = int32(b, payload) & STREAM_ID_MASK;
                    long errorCode = uint32(b, payload + 4);
                    listener.goAway(lastStreamId, errorCode, around(b, payload + 8, end));
                }
                case Frames.TYPE_WINDOW_UPDATE -> windowUpdate(b, payload, listener);
                case Frames.TYPE_CONTINUATION -> {
                    boolean endHeaders = (flags & FLAG_END_HEADERS) != 0;
                    if (endHeaders) {
                        openHeaderBlock = 0;
                    }
                    listener.continuation(streamId, around(b, payload, end), endHeaders);
                }
                default -> listener.unknownFrame(type, flags, streamId, length); // 4.1, 5.5: ignored
            }
        } finally {
            b.limit(limit);
            b.position(end);
        }
    }

    private void data(ByteBuffer b, int payload, int end, FrameListener listener) throws Http2Exception {
        int padding = 0;
        int from = payload;
        if ((flags & FLAG_PADDED) != 0) {
            padding = b.get(payload) & 0xFF;
            from++;
            if (padding >= length) {
                throw Http2Exception.connection(PROTOCOL_ERROR, "DATA padding of " + padding + " in a payload of " + length); // 6.1
            }
        }
        listener.data(streamId, around(b, from, end - padding), length, (flags & FLAG_END_STREAM) != 0);
    }

    private void headers(ByteBuffer b, int payload, int end, FrameListener listener) throws Http2Exception {
        int padding = 0;
        int from = payload;
        if ((flags & FLAG_PADDED) != 0) {
            padding = b.get(from++) & 0xFF;
        }
        boolean dependsOnItself = false;
        if ((flags & FLAG_PRIORITY) != 0) {
            dependsOnItself = (int32(b, from) & STREAM_ID_MASK) == streamId;
            from += 5;
        }
        if (padding > end - from) {
            throw Http2Exception.connection(PROTOCOL_ERROR, "HEADERS padding of " + padding + " in a payload of " + length); // 6.2
        }
        boolean endHeaders = (flags & FLAG_END_HEADERS) != 0;
        if (!endHeaders) {
            openHeaderBlock = streamId;
        }
        // 5.3.1: depending on itself is the listener's stream error, raised once the whole block is
        // here, so it is decoded all the same (the HPACK table stays in step, 4.3) and never a request
        listener.headers(streamId, around(b, from, end - padding), endHeaders, (flags & FLAG_END_STREAM) != 0, dependsOnItself);
    }

    private void priority(ByteBuffer b, int payload, FrameListener listener) throws Http2Exception {
        if (length != 5) {
            throw Http2Exception.stream(streamId, FRAME_SIZE_ERROR, "a PRIORITY frame of " + length + " bytes"); // 6.3
        }
        if ((int32(b, payload) & STREAM_ID_MASK) == streamId) {
            throw Http2Exception.stream(streamId, PROTOCOL_ERROR, "stream " + streamId + " depends on itself"); // 5.3.1
        }
        listener.priority(streamId);
    }

    private void settings(ByteBuffer b, int payload, int end, FrameListener listener) throws Http2Exception {
        awaitingSettings = false;
        if ((flags & FLAG_ACK) != 0) {
            listener.settingsAck();
            return;
        }
        // Every value is checked before any is handed on, so a bad frame changes nothing.
        for (int at = payload; at < end; at += Frames.SETTING_LENGTH) {
            checkSetting(uint16(b, at), uint32(b, at + 2));
        }
        for (int at = payload; at < end; at += Frames.SETTING_LENGTH) {
            listener.setting(uint16(b, at), uint32(b, at + 2));
        }
        listener.settingsEnd();
    }

    /** RFC 9113 6.5.2: the values a known setting may not take. */
    static void checkSetting(int id, long value) throws Http2Exception {
        switch (id) {
            case Frames.SETTINGS_ENABLE_PUSH, Frames.SETTINGS_ENABLE_CONNECT_PROTOCOL -> {
                if (value > 1) {
                    throw Http2Exception.connection(PROTOCOL_ERROR, (id == Frames.SETTINGS_ENABLE_PUSH
                            ? "SETTINGS_ENABLE_PUSH of " : "SETTINGS_ENABLE_CONNECT_PROTOCOL of ") + value);
                }
            }
            case Frames.SETTINGS_INITIAL_WINDOW_SIZE -> {
                if (value > Frames.MAX_WINDOW_SIZE) {
                    throw Http2Exception.connection(FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE of " + value);
                }
            }
            case Frames.SETTINGS_MAX_FRAME_SIZE -> {
                if (value < Frames.DEFAULT_MAX_FRAME_SIZE || value > Frames.MAX_FRAME_SIZE_LIMIT) {
                    throw Http2Exception.connection(PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE of " + value);
                }
            }
            default -> {
            }
        }
    }

    private void windowUpdate(ByteBuffer b, int payload, FrameListener listener) throws Http2Exception {
        int increment = int32(b, payload) & STREAM_ID_MASK; // 6.9: the reserved bit is ignored
        if (increment == 0) {
            // 6.9: an error on the window it was meant for
            throw streamId == 0
                    ? Http2Exception.connection(PROTOCOL_ERROR, "a WINDOW_UPDATE of 0 for the connection")
                    : Http2Exception.stream(streamId, PROTOCOL_ERROR, "a WINDOW_UPDATE of 0 for stream " + streamId);
        }
        listener.windowUpdate(streamId, increment);
    }

    /** {@code b} itself, positioned and limited around {@code from..to}; {@link #dispatch} restores it. */
    private static ByteBuffer around(ByteBuffer b, int from, int to) {
        b.limit(to);
        b.position(from);
        return b;
    }

    // Absolute reads, big-endian whatever order the caller's buffer is set to.

    private static int medium(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 16 | (b.get(at + 1) & 0xFF) << 8 | (b.get(at + 2) & 0xFF);
    }

    private static int uint16(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 8 | (b.get(at + 1) & 0xFF);
    }

    private static int int32(ByteBuffer b, int at) {
        return (b.get(at) & 0xFF) << 24 | (b.get(at + 1) & 0xFF) << 16 | (b.get(at + 2) & 0xFF) << 8 | (b.get(at + 3) & 0xFF);
    }

    private static long uint32(ByteBuffer b, int at) {
        return int32(b, at) & 0xFFFF_FFFFL;
    }

    private static long int64(ByteBuffer b, int at) {
        return (long) int32(b, at) << 32 | uint32(b, at + 4);
    }
}
