// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One HTTP/2 frame (RFC 9113 4.1), as received from the server or to be sent raw. A received
 * HEADERS or CONTINUATION frame that ends a header block also carries the block's fields, decoded.
 *
 * @param type the frame type (any of 0-255: unknown types are frames too)
 * @param flags the 8 flag bits
 * @param streamId the stream identifier, reserved bit cleared
 * @param payload the payload as it was on the wire (padding included)
 * @param fields the decoded header block this frame completed, or null
 */
public record Frame(int type, int flags, int streamId, byte[] payload, List<Header> fields) {
    /** DATA, RFC 9113 6.1. */
    public static final int DATA = 0x0;
    /** HEADERS, RFC 9113 6.2. */
    public static final int HEADERS = 0x1;
    /** PRIORITY, RFC 9113 6.3. */
    public static final int PRIORITY = 0x2;
    /** RST_STREAM, RFC 9113 6.4. */
    public static final int RST_STREAM = 0x3;
    /** SETTINGS, RFC 9113 6.5. */
    public static final int SETTINGS = 0x4;
    /** PUSH_PROMISE, RFC 9113 6.6. */
    public static final int PUSH_PROMISE = 0x5;
    /** PING, RFC 9113 6.7. */
    public static final int PING = 0x6;
    /** GOAWAY, RFC 9113 6.8. */
    public static final int GOAWAY = 0x7;
    /** WINDOW_UPDATE, RFC 9113 6.9. */
    public static final int WINDOW_UPDATE = 0x8;
    /** CONTINUATION, RFC 9113 6.10. */
    public static final int CONTINUATION = 0x9;

    /** END_STREAM on DATA and HEADERS. */
    public static final int END_STREAM = 0x1;
    /** ACK on SETTINGS and PING. */
    public static final int ACK = 0x1;
    /** END_HEADERS on HEADERS, PUSH_PROMISE and CONTINUATION. */
    public static final int END_HEADERS = 0x4;
    /** PADDED on DATA, HEADERS and PUSH_PROMISE. */
    public static final int PADDED = 0x8;
    /** PRIORITY on HEADERS. */
    public static final int PRIORITY_FLAG = 0x20;

    /** SETTINGS_HEADER_TABLE_SIZE. */
    public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    /** SETTINGS_ENABLE_PUSH. */
    public static final int SETTINGS_ENABLE_PUSH = 0x2;
    /** SETTINGS_MAX_CONCURRENT_STREAMS. */
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    /** SETTINGS_INITIAL_WINDOW_SIZE. */
    public static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    /** SETTINGS_MAX_FRAME_SIZE. */
    public static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    /** SETTINGS_MAX_HEADER_LIST_SIZE. */
    public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

    private static final String[] NAMES = {"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE",
        "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"};

    /**
     * Whether a flag is set.
     *
     * @param flag the flag bit
     * @return whether it is set
     */
    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /**
     * The error code of a RST_STREAM or GOAWAY frame.
     *
     * @return the code, unsigned
     */
    public long errorCode() {
        int at = type == GOAWAY ? 4 : 0;
        return payload.length < at + 4 ? -1 : Integer.toUnsignedLong(ByteBuffer.wrap(payload, at, 4).getInt());
    }

    /**
     * The last stream identifier of a GOAWAY frame.
     *
     * @return the identifier
     */
    public int lastStreamId() {
        return payload.length < 4 ? -1 : ByteBuffer.wrap(payload, 0, 4).getInt() & 0x7fffffff;
    }

    /**
     * The increment of a WINDOW_UPDATE frame.
     *
     * @return the increment
     */
    public int windowIncrement() {
        return payload.length < 4 ? -1 : ByteBuffer.wrap(payload, 0, 4).getInt() & 0x7fffffff;
    }

    /**
     * The parameters of a SETTINGS frame, in order (a repeated one keeps its last value).
     *
     * @return identifier to value, unsigned
     */
    public Map<Integer, Long> settings() {
        Map<Integer, Long> settings = new LinkedHashMap<>();
        ByteBuffer b = ByteBuffer.wrap(payload);
        while (b.remaining() >= 6) {
            settings.put(b.getShort() & 0xffff, Integer.toUnsignedLong(b.getInt()));
        }
        return settings;
    }

    /**
     * The data of a DATA frame without its padding.
     *
     * @return the data bytes
     */
    public byte[] data() {
        if (!has(PADDED) || payload.length == 0) {
            return payload;
        }
        int pad = payload[0] & 0xff;
        int length = Math.max(0, payload.length - 1 - pad);
        byte[] data = new byte[length];
        System.arraycopy(payload, 1, data, 0, length);
        return data;
    }

    /**
     * The name of a frame type.
     *
     * @param type the type
     * @return its RFC name, or {@code UNKNOWN(0x..)}
     */
    public static String typeName(int type) {
        return type < NAMES.length ? NAMES[type] : "UNKNOWN(0x" + Integer.toHexString(type) + ")";
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(typeName(type)).append("[stream ").append(streamId)
                .append(", flags 0x").append(Integer.toHexString(flags)).append(", length ").append(payload.length);
        switch (type) {
            case RST_STREAM -> s.append(", ").append(ErrorCode.nameOf(errorCode()));
            case GOAWAY -> s.append(", last stream ").append(lastStreamId()).append(", ").append(ErrorCode.nameOf(errorCode()));
            case WINDOW_UPDATE -> s.append(", increment ").append(windowIncrement());
            case SETTINGS -> s.append(", ").append(settings());
            default -> { }
        }
        if (fields != null) {
            s.append(", ").append(fields);
        }
        return s.append(']').toString();
    }
}
