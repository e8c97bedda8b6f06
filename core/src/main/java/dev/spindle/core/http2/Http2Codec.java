// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP/2 codec of one client connection: the frames it writes into its output, the reader
 * that splits and checks what it receives, and HPACK both ways. The client package speaks HTTP/2
 * through this one class, so the frames and header compression are the server's own, not a
 * second implementation; streams, windows and what the frames mean stay the client's business.
 * Nothing here is thread-safe.
 */
public final class Http2Codec {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** SETTINGS_HEADER_TABLE_SIZE. */
    public static final int SETTINGS_HEADER_TABLE_SIZE = Frames.SETTINGS_HEADER_TABLE_SIZE;
    /** SETTINGS_ENABLE_PUSH. */
    public static final int SETTINGS_ENABLE_PUSH = Frames.SETTINGS_ENABLE_PUSH;
    /** SETTINGS_MAX_CONCURRENT_STREAMS. */
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = Frames.SETTINGS_MAX_CONCURRENT_STREAMS;
    /** SETTINGS_INITIAL_WINDOW_SIZE. */
    public static final int SETTINGS_INITIAL_WINDOW_SIZE = Frames.SETTINGS_INITIAL_WINDOW_SIZE;
    /** SETTINGS_MAX_FRAME_SIZE. */
    public static final int SETTINGS_MAX_FRAME_SIZE = Frames.SETTINGS_MAX_FRAME_SIZE;
    /** SETTINGS_MAX_HEADER_LIST_SIZE. */
    public static final int SETTINGS_MAX_HEADER_LIST_SIZE = Frames.SETTINGS_MAX_HEADER_LIST_SIZE;
    /** The initial flow-control window of a connection and of each stream (RFC 9113 6.9.2). */
    public static final int DEFAULT_WINDOW_SIZE = Frames.DEFAULT_WINDOW_SIZE;
    /** SETTINGS_MAX_FRAME_SIZE's initial value. */
    public static final int DEFAULT_MAX_FRAME_SIZE = Frames.DEFAULT_MAX_FRAME_SIZE;
    /** The largest a flow-control window may grow (RFC 9113 6.9.1). */
    public static final int MAX_WINDOW_SIZE = Frames.MAX_WINDOW_SIZE;

    private static final int FRAME_HEADER_LENGTH = Frames.FRAME_HEADER_LENGTH;
    /** CONTINUATION frames one received header block may take. */
    private static final int MAX_CONTINUATIONS = 64;

    private final WireBuffer out = new WireBuffer(1024);
    private final FrameReader reader;
    private final HpackEncoder encoder;
    private final HpackDecoder decoder;
    private final RateCounter controlFrames;
    private final HeaderBlock block;
    /** Where the header block being written starts. */
    private int blockStart = -1;

    /**
     * A codec reading frames of at most {@code maxFrameSize} bytes and header lists of at most
     * {@code maxHeaderListSize}, answering at most {@code controlFramesPer30s} SETTINGS and PING frames per 30 s.
     *
     * @param maxFrameSize the SETTINGS_MAX_FRAME_SIZE this side advertises
     * @param headerTableSize the HPACK table size this side advertises (and the most its encoder uses)
     * @param maxHeaderListSize the SETTINGS_MAX_HEADER_LIST_SIZE this side advertises
     * @param controlFramesPer30s SETTINGS and PING frames the peer may send per 30 seconds
     */
    public Http2Codec(int maxFrameSize, int headerTableSize, int maxHeaderListSize, int controlFramesPer30s) {
        this.reader = new FrameReader(maxFrameSize);
        this.encoder = new HpackEncoder(headerTableSize);
        this.decoder = new HpackDecoder(headerTableSize, maxHeaderListSize);
        this.controlFrames = new RateCounter(controlFramesPer30s, Http2Limits.RESET_WINDOW_NANOS);
        this.block = new HeaderBlock(maxHeaderListSize + 4096, MAX_CONTINUATIONS);
    }

    /**
     * Reads every complete frame in {@code src} (consuming it) and hands each to {@code listener};
     * see {@code FrameReader.read}: after a stream error the caller resets the stream and calls
     * again with the same {@code src}.
     *
     * @param src bytes received
     * @param listener receives each frame
     * @throws Http2Exception a frame broke a rule, or the listener threw
     */
    public void read(ByteBuffer src, FrameListener listener) throws Http2Exception {
        reader.read(src, listener);
    }

    /**
     * A HEADERS frame began a header block: its fragment is kept until the block's END_HEADERS.
     * Blocks are bounded: at most the header list limit plus 4 KiB of compressed bytes, in at most
     * 64 CONTINUATION frames.
     *
     * @param streamId the frame's stream
     * @param endStream whether the frame carried END_STREAM
     * @param fragment the frame's header block fragment (consumed)
     * @throws Http2Exception ENHANCE_YOUR_CALM for a block past the bound
     */
    public void beginHeaderBlock(int streamId, boolean endStream, ByteBuffer fragment) throws Http2Exception {
        block.begin(streamId, endStream, 0, fragment);
    }

    /**
     * A CONTINUATION frame of the header block begun.
     *
     * @param fragment its fragment (consumed)
     * @throws Http2Exception ENHANCE_YOUR_CALM for a block past the bound, in bytes or frames
     */
    public void continueHeaderBlock(ByteBuffer fragment) throws Http2Exception {
        block.continuation(fragment);
    }

    /** {@return the stream of the header block begun} */
    public int headerBlockStream() {
        return block.streamId();
    }

    /** {@return whether the HEADERS frame that began the block carried END_STREAM} */
    public boolean headerBlockEndsStream() {
        return block.endStream();
    }

    /**
     * Decodes the whole header block gathered (also one whose stream is gone: HPACK's table must
     * stay in step, RFC 9113 4.3) and ends it.
     *
     * @param sink receives each field
     * @return false if the list passed the advertised limit (every field before was handed on)
     * @throws Http2Exception COMPRESSION_ERROR for a block HPACK cannot decode (a connection error)
     */
    public boolean decodeHeaderBlock(HpackDecoder.Sink sink) throws Http2Exception {
        return block.decode(decoder, sink);
    }

    /**
     * A SETTINGS or PING frame that asks for an answer arrived.
     *
     * @param now the current time, in nanoseconds
     * @return false once the peer sent more than the limit in the last 30 s (a flood)
     */
    public boolean countControlFrame(long now) {
        return controlFrames.add(now);
    }

    /**
     * The client connection preface (RFC 9113 3.4) and this side's SETTINGS frame.
     *
     * @param idValuePairs the settings, each id then its value
     */
    public void preface(int... idValuePairs) {
        out.put(PREFACE, 0, PREFACE.length);
        Frames.settings(out, idValuePairs);
    }

    /** Acknowledges the peer's SETTINGS frame. */
    public void settingsAck() {
        Frames.settingsAck(out);
    }

    /**
     * Answers a PING.
     *
     * @param payload the PING's payload
     */
    public void pingAck(long payload) {
        Frames.ping(out, true, payload);
    }

    /**
     * A WINDOW_UPDATE.
     *
     * @param streamId the stream, or 0 for the connection
     * @param increment what the window grows by, above 0
     */
    public void windowUpdate(int streamId, int increment) {
        Frames.windowUpdate(out, streamId, increment);
    }

    /**
     * An RST_STREAM.
     *
     * @param streamId the stream
     * @param code why
     */
    public void rstStream(int streamId, ErrorCode code) {
        Frames.rstStream(out, streamId, code);
    }

    /**
     * A GOAWAY.
     *
     * @param lastStreamId the last stream the peer opened that this side processes (a client: 0)
     * @param code why
     * @param debug what to tell the peer's operators; null for nothing
     */
    public void goAway(int lastStreamId, ErrorCode code, String debug) {
        Frames.goAway(out, lastStreamId, code, debug == null ? null : debug.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Starts a HEADERS frame whose fields follow ({@link #field}), then {@link #endHeaders}.
     *
     * @param streamId the stream
     * @param endStream whether no DATA follows
     */
    public void beginHeaders(int streamId, boolean endStream) {
        blockStart = Frames.headersStart(out, streamId, endStream);
        encoder.beginBlock(out);
    }

    /**
     * A field of the header block begun: a pseudo-header or a lower-case name.
     *
     * @param lowerCaseName the name
     * @param value the value, Latin-1
     */
    public void field(String lowerCaseName, String value) {
        encoder.header(lowerCaseName, value, out);
    }

    /**
     * A field never indexed (credentials, cookies: RFC 7541 7.1.3).
     *
     * @param lowerCaseName the name
     * @param value the value, Latin-1
     */
    public void sensitiveField(String lowerCaseName, String value) {
        encoder.headerNeverIndexed(lowerCaseName, value, out);
    }

    /**
     * Ends the header block begun, split into CONTINUATION frames past the peer's frame size.
     *
     * @param peerMaxFrameSize the peer's SETTINGS_MAX_FRAME_SIZE
     */
    public void endHeaders(int peerMaxFrameSize) {
        Frames.headersEnd(out, blockStart, peerMaxFrameSize);
        blockStart = -1;
    }

    /**
     * A DATA frame.
     *
     * @param streamId the stream
     * @param src the bytes
     * @param offset where they start
     * @param length how many, at most the peer's frame size
     * @param endStream whether it is the stream's last
     */
    public void data(int streamId, byte[] src, int offset, int length, boolean endStream) {
        Frames.data(out, streamId, src, offset, length, endStream);
    }

    /**
     * A DATA frame carrying the next {@code length} bytes of {@code src}, consuming them.
     *
     * @param streamId the stream
     * @param src the bytes
     * @param length how many, at most what {@code src} holds and the peer's frame size
     * @param endStream whether it is the stream's last
     */
    public void data(int streamId, ByteBuffer src, int length, boolean endStream) {
        int limit = src.limit();
        src.limit(src.position() + length);
        Frames.data(out, streamId, src, endStream);
        src.limit(limit);
    }

    /**
     * The peer's SETTINGS_HEADER_TABLE_SIZE, once acknowledged.
     *
     * @param value its value
     */
    public void peerHeaderTableSize(long value) {
        encoder.peerMaxTableSize(value);
    }

    /**
     * Checks a setting's value against RFC 9113 6.5.2.
     *
     * @param id the setting
     * @param value its value
     * @throws Http2Exception if the value is not allowed
     */
    public static void checkSetting(int id, long value) throws Http2Exception {
        FrameReader.checkSetting(id, value);
    }

    /** {@return bytes waiting to be written} */
    public int pending() {
        return out.pending();
    }

    /** {@return the bytes waiting to be written, valid until the next frame or {@link #written}} */
    public ByteBuffer outbound() {
        return out.view();
    }

    /**
     * The socket took {@code n} bytes from the front.
     *
     * @param n how many
     */
    public void written(int n) {
        out.written(n);
    }

    /** Drops what was not written yet (the connection is over). */
    public void clear() {
        out.written(out.pending());
    }

    /** {@return the frame header's length: a DATA frame costs this beyond its payload} */
    public static int frameHeaderLength() {
        return FRAME_HEADER_LENGTH;
    }
}
