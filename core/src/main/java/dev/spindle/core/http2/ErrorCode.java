// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/** HTTP/2 error codes (RFC 9113 section 7), as sent in RST_STREAM and GOAWAY. */
public enum ErrorCode {
    NO_ERROR(0x0),
    PROTOCOL_ERROR(0x1),
    INTERNAL_ERROR(0x2),
    FLOW_CONTROL_ERROR(0x3),
    SETTINGS_TIMEOUT(0x4),
    STREAM_CLOSED(0x5),
    FRAME_SIZE_ERROR(0x6),
    REFUSED_STREAM(0x7),
    CANCEL(0x8),
    COMPRESSION_ERROR(0x9),
    CONNECT_ERROR(0xa),
    ENHANCE_YOUR_CALM(0xb),
    INADEQUATE_SECURITY(0xc),
    HTTP_1_1_REQUIRED(0xd);

    private static final ErrorCode[] BY_CODE = values();

    /** The code on the wire. */
    final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** {@return the code on the wire} */
    public int code() {
        return code;
    }

    /** The name of a code received from the peer; unknown codes are allowed (RFC 9113 7) and named by number. */
    public static String name(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code].name() : "0x" + Long.toHexString(code);
    }
}
