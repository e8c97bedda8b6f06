// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every writer in {@link Frames}, its bytes checked and read back by a {@link FrameReader}. */
class FramesTest {
    static Arguments row(String name, Consumer<WireBuffer> writer, String hex, String... events) {
        return Arguments.of(name, writer, hex.replace(" ", ""), List.of(events));
    }

    static Stream<Arguments> writers() {
        return Stream.of(
                row("settings", out -> Frames.settings(out, Frames.SETTINGS_MAX_CONCURRENT_STREAMS, 100, Frames.SETTINGS_INITIAL_WINDOW_SIZE,
                        Integer.MAX_VALUE, Frames.SETTINGS_MAX_HEADER_LIST_SIZE, -1),
                        "000012 04 00 00000000 0003 00000064 0004 7fffffff 0006 ffffffff",
                        "SETTING 3=100", "SETTING 4=2147483647", "SETTING 6=4294967295", "SETTINGS END"),
                row("empty settings", out -> Frames.settings(out), "000000 04 00 00000000", "SETTINGS END"),
                row("settingsAck", Frames::settingsAck, "000000 04 01 00000000", "SETTINGS ACK"),
                row("ping", out -> Frames.ping(out, false, 0x0102030405060708L), "000008 06 00 00000000 0102030405060708",
                        "PING 102030405060708"),
                row("ping ack", out -> Frames.ping(out, true, -1L), "000008 06 01 00000000 ffffffffffffffff", "PING ffffffffffffffff ACK"),
                row("goAway with debug data", out -> Frames.goAway(out, 7, ErrorCode.ENHANCE_YOUR_CALM, "bye".getBytes(StandardCharsets.US_ASCII)),
                        "00000b 07 00 00000000 00000007 0000000b 627965", "GOAWAY 7 ENHANCE_YOUR_CALM [627965]"),
                row("goAway without debug data", out -> Frames.goAway(out, 0, ErrorCode.NO_ERROR, null),
                        "000008 07 00 00000000 00000000 00000000", "GOAWAY 0 NO_ERROR []"),
                row("rstStream", out -> Frames.rstStream(out, 5, ErrorCode.CANCEL), "000004 03 00 00000005 00000008", "RST_STREAM 5 CANCEL"),
                row("windowUpdate for the connection", out -> Frames.windowUpdate(out, 0, Integer.MAX_VALUE),
                        "000004 08 00 00000000 7fffffff", "WINDOW_UPDATE 0 +2147483647"),
                row("windowUpdate for a stream", out -> Frames.windowUpdate(out, 3, 1), "000004 08 00 00000003 00000001", "WINDOW_UPDATE 3 +1"),
                row("dataHeader and its payload", out -> {
                    Frames.dataHeader(out, 2, 1, false);
                    out.putShort(0xabcd);
                }, "000002 00 00 00000001 abcd", "DATA 1 [abcd] flow=2"),
                row("data from an array", out -> Frames.data(out, 3, new byte[] {9, 1, 2, 9}, 1, 2, true),
                        "000002 00 01 00000003 0102", "DATA 3 [0102] flow=2 END_STREAM"),
                row("data from a buffer", out -> Frames.data(out, 3, ByteBuffer.wrap(new byte[] {9, 1, 2, 3}, 1, 3), false),
                        "000003 00 00 00000003 010203", "DATA 3 [010203] flow=3"),
                row("empty data ending the stream", out -> Frames.data(out, 3, ByteBuffer.allocate(0), true),
                        "000000 00 01 00000003", "DATA 3 [] flow=0 END_STREAM"),
                row("headers ending the block and the stream", out -> {
                    int start = Frames.headersStart(out, 1, true);
                    out.putShort(0x8286);
                    Frames.headersEnd(out, start, true);
                }, "000002 01 05 00000001 8286", "HEADERS 1 [8286] END_HEADERS END_STREAM"),
                row("headers then a continuation", out -> {
                    int start = Frames.headersStart(out, 3, false);
                    out.put(0x82);
                    Frames.headersEnd(out, start, false);
                    Frames.header(out, 1, Frames.TYPE_CONTINUATION, Frames.FLAG_END_HEADERS, 3);
                    out.put(0x84);
                }, "000001 01 00 00000003 82 000001 09 04 00000003 84", "HEADERS 3 [82]", "CONTINUATION 3 [84] END_HEADERS"),
                row("headers that fit the peer's maximum", out -> {
                    int start = Frames.headersStart(out, 1, false);
                    out.put(0x82);
                    Frames.headersEnd(out, start, Frames.DEFAULT_MAX_FRAME_SIZE);
                }, "000001 01 04 00000001 82", "HEADERS 1 [82] END_HEADERS"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writers")
    void writesAndReadsBack(String name, Consumer<WireBuffer> writer, String hex, List<String> events) {
        WireBuffer out = new WireBuffer(8);
        writer.accept(out);
        byte[] bytes = out.toArray();
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(hex);
        assertThat(FrameEvents.feed(new FrameReader(Frames.DEFAULT_MAX_FRAME_SIZE), List.of(bytes))).isEqualTo(events);
    }

    /**
     * RFC 9113 4.3: a header block longer than the peer's maximum frame size is split in place into
     * HEADERS and CONTINUATION frames of that size, the last with END_HEADERS, the block unchanged.
     * The buffer starts small and part of it written, so the split also works after the bytes move.
     */
    @ParameterizedTest(name = "a block of {0} bytes")
    @ValueSource(ints = {0, 1, 16_383, 16_384, 16_385, 32_768, 32_769, 50_000, 16_384 * 5 + 7})
    void aLongHeaderBlockIsSplitIntoContinuations(int blockLength) {
        int max = Frames.DEFAULT_MAX_FRAME_SIZE;
        byte[] block = new byte[blockLength];
        for (int i = 0; i < blockLength; i++) {
            block[i] = (byte) (i * 31 + i / 251);
        }
        WireBuffer out = new WireBuffer(16);
        Frames.ping(out, false, 42);
        out.written(5);
        int start = Frames.headersStart(out, 0x7fff_fff1, true);
        out.put(block, 0, blockLength);
        Frames.headersEnd(out, start, max);
        out.written(17 - 5);
        Frames.ping(out, true, 43);

        byte[] wire = out.toArray();
        int frames = blockLength == 0 ? 1 : (blockLength + max - 1) / max;
        assertThat(wire.length).isEqualTo(frames * 9 + blockLength + 17);

        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        FrameReader reader = new FrameReader(max);
        FrameEvents listener = new FrameEvents() {
            @Override
            public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself) {
                events.add("HEADERS " + streamId + " " + fragment.remaining() + (endHeaders ? " END_HEADERS" : "") + (endStream ? " END_STREAM" : ""));
                append(fragment);
            }

            @Override
            public void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) {
                events.add("CONTINUATION " + streamId + " " + fragment.remaining() + (endHeaders ? " END_HEADERS" : ""));
                append(fragment);
            }

            @Override
            public void ping(long payload, boolean ack) {
                events.add("PING " + payload);
            }

            private void append(ByteBuffer fragment) {
                byte[] copy = new byte[fragment.remaining()];
                fragment.get(copy);
                joined.writeBytes(copy);
            }
        };
        try {
            reader.read(ByteBuffer.wrap(wire, 0, wire.length), listener);
        } catch (Http2Exception e) {
            throw new AssertionError(e);
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            int length = Math.min(max, blockLength - i * max);
            String end = i == frames - 1 ? " END_HEADERS" : "";
            expected.add(i == 0 ? "HEADERS 2147483633 " + length + end + " END_STREAM" : "CONTINUATION 2147483633 " + length + end);
        }
        expected.add("PING 43");
        assertThat(listener.events).isEqualTo(expected);
        assertThat(joined.toByteArray()).isEqualTo(block);
    }

    @Test
    void slipsAreRefused() {
        WireBuffer out = new WireBuffer(64);
        assertThatThrownBy(() -> Frames.settings(out, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Frames.rstStream(out, 0, ErrorCode.CANCEL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Frames.windowUpdate(out, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Frames.dataHeader(out, 1 << 24, 1, false)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Frames.headersStart(out, 0, false)).isInstanceOf(IllegalArgumentException.class);
        int start = Frames.headersStart(out, 1, false);
        assertThatThrownBy(() -> Frames.headersEnd(out, start, 16_383)).isInstanceOf(IllegalArgumentException.class);
        assertThat(out.pending()).isEqualTo(9);
    }
}
