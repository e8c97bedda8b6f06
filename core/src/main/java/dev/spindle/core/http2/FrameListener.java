// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;

/**
 * Receives the frames a {@link FrameReader} has validated, one call per frame (a SETTINGS frame
 * gives one call per setting and then {@link #settingsEnd}). A ByteBuffer handed on is valid only
 * during the call: it is a view of the reader's input or of its own buffer, positioned and limited
 * around the bytes meant; the listener may consume it but must not keep it.
 */
public interface FrameListener {
    /**
     * A DATA frame (RFC 9113 6.1).
     *
     * @param data the data, padding stripped
     * @param flowControlledLength the whole frame payload's length, padding included: what counts against flow control
     */
    void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) throws Http2Exception;

    /**
     * A HEADERS frame (RFC 9113 6.2), padding and priority fields stripped.
     *
     * @param dependsOnItself its priority makes the stream depend on itself: a stream error
     *        PROTOCOL_ERROR (RFC 9113 5.3.1) for the listener to raise once the block has ended and
     *        been decoded (to keep the HPACK table in step, RFC 9113 4.3); the block is no request
     */
    void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself) throws Http2Exception;

    /** A CONTINUATION frame (RFC 9113 6.10); the reader has checked it follows its HEADERS. */
    void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) throws Http2Exception;

    /** A PRIORITY frame (RFC 9113 6.3); its content is ignored, as RFC 9113 5.3.2 allows. */
    void priority(int streamId) throws Http2Exception;

    /** An RST_STREAM frame (RFC 9113 6.4); the code may be one {@link ErrorCode} does not know. */
    void rstStream(int streamId, long errorCode) throws Http2Exception;

    /** One setting of a non-ACK SETTINGS frame (RFC 9113 6.5), in order; unknown ids too, to be ignored. */
    void setting(int id, long value) throws Http2Exception;

    /** The end of one non-ACK SETTINGS frame: every setting in it was handed on, time to apply them and ACK. */
    void settingsEnd() throws Http2Exception;

    /** A SETTINGS frame with the ACK flag. */
    void settingsAck() throws Http2Exception;

    /** A PING frame (RFC 9113 6.7). */
    void ping(long payload, boolean ack) throws Http2Exception;

    /** A GOAWAY frame (RFC 9113 6.8). */
    void goAway(int lastStreamId, long errorCode, ByteBuffer debugData) throws Http2Exception;

    /** A WINDOW_UPDATE frame (RFC 9113 6.9) with a non-zero increment; stream 0 is the connection's window. */
    void windowUpdate(int streamId, int increment) throws Http2Exception;

    /** A frame of a type this side does not know, to be ignored (RFC 9113 4.1, 5.5). */
    default void unknownFrame(int type, int flags, int streamId, int length) throws Http2Exception {
    }
}
