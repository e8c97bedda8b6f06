// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/**
 * An HTTP/2 error the connection answers (RFC 9113 5.4): a connection error (stream 0) ends the
 * connection with GOAWAY; a stream error resets only its stream with RST_STREAM.
 */
public final class Http2Exception extends Exception {
    private final ErrorCode code;
    private final int streamId;

    private Http2Exception(ErrorCode code, int streamId, String message) {
        super(message, null, false, false);
        this.code = code;
        this.streamId = streamId;
    }

    /** An error that ends the connection. */
    public static Http2Exception connection(ErrorCode code, String message) {
        return new Http2Exception(code, 0, message);
    }

    /** An error that resets only stream {@code streamId} (non-zero). */
    public static Http2Exception stream(int streamId, ErrorCode code, String message) {
        if (streamId == 0) {
            throw new IllegalArgumentException("a stream error needs a stream");
        }
        return new Http2Exception(code, streamId, message);
    }

    /** {@return the error code the connection answers with} */
    public ErrorCode code() {
        return code;
    }

    /** The stream to reset, or 0 for a connection error. */
    public int streamId() {
        return streamId;
    }

    /** {@return whether it ends the connection (else it resets its stream)} */
    public boolean connectionError() {
        return streamId == 0;
    }
}
