// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32;

/** Records what a {@link FrameReader} hands on as strings, copying buffers at once as the listener contract requires. */
class FrameEvents implements FrameListener {
    final List<String> events = new ArrayList<>();

    static String bytes(ByteBuffer b) {
        byte[] copy = new byte[b.remaining()];
        b.get(b.position(), copy);
        if (copy.length <= 32) {
            return HexFormat.of().formatHex(copy);
        }
        CRC32 crc = new CRC32();
        crc.update(copy);
        return copy.length + " bytes crc " + Long.toHexString(crc.getValue());
    }

    @Override
    public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) {
        events.add("DATA " + streamId + " [" + bytes(data) + "] flow=" + flowControlledLength + (endStream ? " END_STREAM" : ""));
    }

    @Override
    public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself) {
        events.add("HEADERS " + streamId + " [" + bytes(fragment) + "]" + (endHeaders ? " END_HEADERS" : "") + (endStream ? " END_STREAM" : "")
                + (dependsOnItself ? " DEPENDS_ON_ITSELF" : ""));
    }

    @Override
    public void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) {
        events.add("CONTINUATION " + streamId + " [" + bytes(fragment) + "]" + (endHeaders ? " END_HEADERS" : ""));
    }

    @Override
    public void priority(int streamId) {
        events.add("PRIORITY " + streamId);
    }

    @Override
    public void rstStream(int streamId, long errorCode) {
        events.add("RST_STREAM " + streamId + " " + ErrorCode.name(errorCode));
    }

    @Override
    public void setting(int id, long value) {
        events.add("SETTING " + id + "=" + value);
    }

    @Override
    public void settingsEnd() {
        events.add("SETTINGS END");
    }

    @Override
    public void settingsAck() {
        events.add("SETTINGS ACK");
    }

    @Override
    public void ping(long payload, boolean ack) {
        events.add("PING " + Long.toHexString(payload) + (ack ? " ACK" : ""));
    }

    @Override
    public void goAway(int lastStreamId, long errorCode, ByteBuffer debugData) {
        events.add("GOAWAY " + lastStreamId + " " + ErrorCode.name(errorCode) + " [" + bytes(debugData) + "]");
    }

    @Override
    public void windowUpdate(int streamId, int increment) {
        events.add("WINDOW_UPDATE " + streamId + " +" + increment);
    }

    @Override
    public void unknownFrame(int type, int flags, int streamId, int length) {
        events.add("UNKNOWN type=" + type + " flags=" + flags + " stream=" + streamId + " length=" + length);
    }

    static String describe(Http2Exception e) {
        return e.connectionError() ? "connection error " + e.code() : "stream error " + e.streamId() + " " + e.code();
    }

    /**
     * Feeds {@code pieces} in order, as the connection would: each piece lies inside a larger
     * little-endian buffer with bytes either side that are not the input, a stream error is recorded
     * and reading goes on with the same buffer, a connection error is recorded and ends the feed.
     */
    static List<String> feed(FrameReader reader, List<byte[]> pieces) {
        FrameEvents listener = new FrameEvents();
        for (byte[] piece : pieces) {
            ByteBuffer src = ByteBuffer.allocate(piece.length + 6).order(ByteOrder.LITTLE_ENDIAN);
            src.put(new byte[] {(byte) 0xEE, (byte) 0xEE, (byte) 0xEE}).put(piece).put(new byte[] {(byte) 0xEE, (byte) 0xEE, (byte) 0xEE});
            src.limit(3 + piece.length).position(3);
            while (true) {
                try {
                    reader.read(src, listener);
                    if (src.hasRemaining() || src.limit() != 3 + piece.length) {
                        throw new AssertionError("read returned with " + src + " for a piece of " + piece.length);
                    }
                    break;
                } catch (Http2Exception e) {
                    listener.events.add(describe(e));
                    if (e.connectionError()) {
                        return listener.events;
                    }
                    if (src.limit() != 3 + piece.length) {
                        throw new AssertionError("the limit was not restored: " + src);
                    }
                }
            }
        }
        return listener.events;
    }
}
