// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The header block being received: a HEADERS frame's fragment and those of the CONTINUATION
 * frames after it, gathered until END_HEADERS and then decoded at once (HPACK state changes only
 * with whole blocks). It is bounded in bytes and in frames, so a CONTINUATION flood, with or
 * without payload, ends the connection instead of growing it. The server's connection also notes
 * what the block belongs to ({@link Kind}, its stream); the client's, through {@link Http2Codec},
 * only the stream id.
 */
final class HeaderBlock {
    /** What a header block belongs to, which decides what its fields are for. */
    enum Kind { REQUEST, TRAILERS, REFUSED, HALF_CLOSED, CLOSED_STREAM, LOWER_ID, IGNORED, DEPENDS_ON_ITSELF }

    private static final int INITIAL_BYTES = 1024;
    /** A block that grew past this gives its array back once decoded. */
    private static final int KEPT_BYTES = 64 * 1024;

    private final int maxBytes;
    private final int maxFrames;
    private byte[] bytes = new byte[INITIAL_BYTES];
    private int length;
    private int frames;
    private boolean open;
    /** What the block in progress belongs to (null on the client's side, or when none is). */
    private Kind kind;
    private Stream stream;
    private int streamId;
    private boolean endStream;
    private long started;

    /**
     * @param maxBytes the largest compressed block accepted
     * @param maxFrames the CONTINUATION frames one block may take
     */
    HeaderBlock(int maxBytes, int maxFrames) {
        this.maxBytes = maxBytes;
        this.maxFrames = maxFrames;
    }

    HeaderBlock(Http2Limits limits) {
        this(limits.maxHeaderBlockSize(), limits.maxContinuationFrames());
    }

    /** A HEADERS frame began a block on {@code streamId} ({@code stream} is null unless the stream exists). */
    void begin(Kind kind, Stream stream, int streamId, boolean endStream, long now, ByteBuffer fragment) throws Http2Exception {
        this.kind = kind;
        this.stream = stream;
        begin(streamId, endStream, now, fragment);
    }

    /** A HEADERS frame began a block on {@code streamId}. */
    void begin(int streamId, boolean endStream, long now, ByteBuffer fragment) throws Http2Exception {
        this.streamId = streamId;
        this.endStream = endStream;
        this.length = 0;
        this.frames = 1;
        this.started = now;
        this.open = true;
        append(fragment);
    }

    /** A CONTINUATION frame's fragment. */
    void continuation(ByteBuffer fragment) throws Http2Exception {
        if (++frames > maxFrames) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a header block in too many CONTINUATION frames");
        }
        append(fragment);
    }

    private void append(ByteBuffer fragment) throws Http2Exception {
        int n = fragment.remaining();
        if (length + n > maxBytes) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a header block larger than " + maxBytes + " bytes");
        }
        if (bytes.length - length < n) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
        }
        fragment.get(bytes, length, n);
        length += n;
    }

    /**
     * Decodes the whole block into {@code sink} and ends it, also when decoding fails.
     *
     * @return false when the header list was larger than its limit (the fields past it were dropped)
     * @throws Http2Exception COMPRESSION_ERROR for a block HPACK cannot decode
     */
    boolean decode(HpackDecoder decoder, HpackDecoder.Sink sink) throws Http2Exception {
        open = false;
        kind = null;
        stream = null;
        try {
            return decoder.decode(bytes, 0, length, sink);
        } catch (HpackException e) {
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, "a header block HPACK cannot decode: " + e.getMessage());
        } finally {
            if (bytes.length > KEPT_BYTES) {
                bytes = new byte[INITIAL_BYTES];
            }
        }
    }

    /** Whether a block is in progress: the next frame must be its CONTINUATION. */
    boolean open() {
        return open;
    }

    Kind kind() {
        return kind;
    }

    Stream stream() {
        return stream;
    }

    int streamId() {
        return streamId;
    }

    /** Whether the HEADERS frame that began the block carried END_STREAM. */
    boolean endStream() {
        return endStream;
    }

    /** When the block began. */
    long started() {
        return started;
    }

    /** Lets go of the array (a connection that only lingers). */
    void shed() {
        bytes = new byte[0];
    }

    int capacity() {
        return bytes.length;
    }
}
