// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

/**
 * The error codes of RFC 9113 section 7, as RST_STREAM and GOAWAY carry them. The suite keeps its
 * own copy rather than reading the server's: the client must not share the implementation it judges.
 */
public enum ErrorCode {
    /** Graceful shutdown, or no error. */
    NO_ERROR(0x0),
    /** An unspecific protocol error. */
    PROTOCOL_ERROR(0x1),
    /** An unexpected internal error. */
    INTERNAL_ERROR(0x2),
    /** The peer violated flow control. */
    FLOW_CONTROL_ERROR(0x3),
    /** A SETTINGS frame was not acknowledged in time. */
    SETTINGS_TIMEOUT(0x4),
    /** A frame arrived after the stream was half-closed. */
    STREAM_CLOSED(0x5),
    /** A frame of invalid size. */
    FRAME_SIZE_ERROR(0x6),
    /** The stream was refused before any application processing. */
    REFUSED_STREAM(0x7),
    /** The stream is no longer needed. */
    CANCEL(0x8),
    /** The field-section compression context cannot be maintained. */
    COMPRESSION_ERROR(0x9),
    /** A CONNECT tunnel was reset or closed abnormally. */
    CONNECT_ERROR(0xa),
    /** The peer is generating excessive load. */
    ENHANCE_YOUR_CALM(0xb),
    /** The transport does not meet minimum security requirements. */
    INADEQUATE_SECURITY(0xc),
    /** HTTP/1.1 must be used instead. */
    HTTP_1_1_REQUIRED(0xd);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /**
     * The code on the wire.
     *
     * @return the 32-bit code
     */
    public int code() {
        return code;
    }

    /**
     * The name of a code read off the wire: the constant's for a known one, hex for any other.
     *
     * @param code the 32-bit code as read, unsigned
     * @return its name
     */
    public static String nameOf(long code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return e.name();
            }
        }
        return "0x" + Long.toHexString(code);
    }

    /**
     * The constant for a code read off the wire.
     *
     * @param code the 32-bit code as read, unsigned
     * @return the constant, or null for a code RFC 9113 does not define
     */
    public static ErrorCode of(long code) {
        for (ErrorCode e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
