// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.Frames.FLAG_ACK;
import static dev.spindle.core.http2.Frames.FLAG_END_HEADERS;
import static dev.spindle.core.http2.Frames.FLAG_END_STREAM;
import static dev.spindle.core.http2.Frames.FLAG_PADDED;
import static dev.spindle.core.http2.Frames.FLAG_PRIORITY;
import static dev.spindle.core.http2.Frames.TYPE_CONTINUATION;
import static dev.spindle.core.http2.Frames.TYPE_DATA;
import static dev.spindle.core.http2.Frames.TYPE_GOAWAY;
import static dev.spindle.core.http2.Frames.TYPE_HEADERS;
import static dev.spindle.core.http2.Frames.TYPE_PING;
import static dev.spindle.core.http2.Frames.TYPE_PRIORITY;
import static dev.spindle.core.http2.Frames.TYPE_PUSH_PROMISE;
import static dev.spindle.core.http2.Frames.TYPE_RST_STREAM;
import static dev.spindle.core.http2.Frames.TYPE_SETTINGS;
import static dev.spindle.core.http2.Frames.TYPE_WINDOW_UPDATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven tests of {@link FrameReader}. Every row is fed whole, split into two pieces at every
 * index, and one byte at a time, and must give the same listener events each way; an error is an
 * event too ("stream error 3 PROTOCOL_ERROR" after which reading goes on, "connection error ..."
 * which ends the row), so each error row asserts the code and whether it is a stream or a
 * connection error.
 */
class FrameReaderTest {
    private static final String PREFACE = HexFormat.of().formatHex("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

    /** One frame as hex: the header from its fields, then the payload. */
    static String f(int type, int flags, int streamId, String payloadHex) {
        String payload = payloadHex.replace(" ", "");
        return String.format("%06x%02x%02x%08x", payload.length() / 2, type, flags, streamId) + payload;
    }

    /** A frame whose header declares {@code length} and whose payload is that many zero bytes. */
    static String sized(int type, int flags, int streamId, int length) {
        return f(type, flags, streamId, "00".repeat(length));
    }

    static byte[] hex(String... parts) {
        return HexFormat.of().parseHex(String.join("", parts).replace(" ", ""));
    }

    /** How {@link FrameEvents} shows {@code n} zero bytes. */
    static String zeros(int n) {
        return FrameEvents.bytes(ByteBuffer.allocate(n));
    }

    static List<byte[]> whole(byte[] raw) {
        return List.of(raw);
    }

    static List<byte[]> split(byte[] raw, int at) {
        return List.of(Arrays.copyOfRange(raw, 0, at), Arrays.copyOfRange(raw, at, raw.length));
    }

    static List<byte[]> bytewise(byte[] raw) {
        List<byte[]> pieces = new ArrayList<>(raw.length);
        for (byte b : raw) {
            pieces.add(new byte[] {b});
        }
        return pieces;
    }

    static FrameReader reader(boolean preface) {
        FrameReader reader = new FrameReader(Frames.DEFAULT_MAX_FRAME_SIZE);
        if (preface) {
            reader.expectPreface();
        }
        return reader;
    }

    static Arguments row(String name, String raw, String... events) {
        return Arguments.of(name, false, hex(raw), List.of(events));
    }

    static Arguments prefaced(String name, String raw, String... events) {
        return Arguments.of(name, true, hex(raw), List.of(events));
    }

    static final String HELLO = "68656c6c6f";
    static final String SETTINGS_EMPTY = f(TYPE_SETTINGS, 0, 0, "");
    static final String PING = f(TYPE_PING, 0, 0, "0102030405060708");
    static final String PING_EVENT = "PING 102030405060708";

    static Stream<Arguments> validCases() {
        return Stream.of(
                row("DATA", f(TYPE_DATA, 0, 1, HELLO), "DATA 1 [" + HELLO + "] flow=5"),
                row("DATA ending the stream", f(TYPE_DATA, FLAG_END_STREAM, 3, HELLO), "DATA 3 [" + HELLO + "] flow=5 END_STREAM"),
                row("empty DATA ending the stream", f(TYPE_DATA, FLAG_END_STREAM, 3, ""), "DATA 3 [] flow=0 END_STREAM"),
                row("padded DATA: padding stripped, counted for flow control",
                        f(TYPE_DATA, FLAG_PADDED, 1, "03" + HELLO + "000000"), "DATA 1 [" + HELLO + "] flow=9"),
                row("padded DATA that is all padding", f(TYPE_DATA, FLAG_PADDED, 1, "04 00000000"), "DATA 1 [] flow=5"),
                row("the reserved bit of a stream id is ignored", f(TYPE_DATA, 0, 0x8000_0001, "aa"), "DATA 1 [aa] flow=1"),
                row("a DATA frame of exactly the maximum size", sized(TYPE_DATA, 0, 1, 16_384),
                        "DATA 1 [" + zeros(16_384) + "] flow=16384"),
                row("HEADERS", f(TYPE_HEADERS, FLAG_END_HEADERS | FLAG_END_STREAM, 1, "8286 8441"),
                        "HEADERS 1 [82868441] END_HEADERS END_STREAM"),
                row("HEADERS padded with priority: both stripped",
                        f(TYPE_HEADERS, FLAG_END_HEADERS | FLAG_PADDED | FLAG_PRIORITY, 5, "02 80000003 10 8286 0000"),
                        "HEADERS 5 [8286] END_HEADERS"),
                row("HEADERS whose padding leaves an empty fragment", f(TYPE_HEADERS, FLAG_PADDED, 1, "02 0000"),
                        "HEADERS 1 []"),
                row("HEADERS then CONTINUATION frames",
                        f(TYPE_HEADERS, FLAG_END_STREAM, 1, "82") + f(TYPE_CONTINUATION, 0, 1, "86") + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 1, "84")
                                + PING,
                        "HEADERS 1 [82] END_STREAM", "CONTINUATION 1 [86]", "CONTINUATION 1 [84] END_HEADERS", PING_EVENT),
                row("PRIORITY", f(TYPE_PRIORITY, 0, 3, "80000001 ff"), "PRIORITY 3"),
                row("RST_STREAM with a known and an unknown code", f(TYPE_RST_STREAM, 0, 3, "00000008") + f(TYPE_RST_STREAM, 0, 5, "deadbeef"),
                        "RST_STREAM 3 CANCEL", "RST_STREAM 5 0xdeadbeef"),
                row("SETTINGS: every setting in order, unknown ids and the limits' edges included",
                        f(TYPE_SETTINGS, 0, 0, "0001 00001000 0002 00000000 0002 00000001 0004 7fffffff 0005 00004000 0005 00ffffff 0006 ffffffff 00ff 12345678"),
                        "SETTING 1=4096", "SETTING 2=0", "SETTING 2=1", "SETTING 4=2147483647", "SETTING 5=16384", "SETTING 5=16777215",
                        "SETTING 6=4294967295", "SETTING 255=305419896", "SETTINGS END"),
                row("empty SETTINGS", SETTINGS_EMPTY, "SETTINGS END"),
                row("SETTINGS ACK", f(TYPE_SETTINGS, FLAG_ACK, 0, ""), "SETTINGS ACK"),
                row("PING and its ACK, unknown flags ignored", PING + f(TYPE_PING, FLAG_ACK | 0x40, 0, "ffffffffffffffff"),
                        PING_EVENT, "PING ffffffffffffffff ACK"),
                row("GOAWAY with debug data, the reserved bit of the last stream ignored",
                        f(TYPE_GOAWAY, 0, 0, "80000007 00000001 6279 65"), "GOAWAY 7 PROTOCOL_ERROR [627965]"),
                row("GOAWAY without debug data", f(TYPE_GOAWAY, 0, 0, "00000000 00000000"), "GOAWAY 0 NO_ERROR []"),
                row("WINDOW_UPDATE for the connection and a stream, the reserved bit ignored",
                        f(TYPE_WINDOW_UPDATE, 0, 0, "00010000") + f(TYPE_WINDOW_UPDATE, 0, 3, "ffffffff"),
                        "WINDOW_UPDATE 0 +65536", "WINDOW_UPDATE 3 +2147483647"),
                row("an unknown frame type is skipped", f(0x0a, 0x5, 7, "010203") + PING,
                        "UNKNOWN type=10 flags=5 stream=7 length=3", PING_EVENT),
                row("many frames in one buffer",
                        SETTINGS_EMPTY + f(TYPE_WINDOW_UPDATE, 0, 0, "00000100") + f(TYPE_HEADERS, FLAG_END_HEADERS, 1, "82")
                                + f(TYPE_DATA, 0, 1, "aa") + f(TYPE_DATA, FLAG_END_STREAM, 1, "bb") + f(TYPE_SETTINGS, FLAG_ACK, 0, ""),
                        "SETTINGS END", "WINDOW_UPDATE 0 +256", "HEADERS 1 [82] END_HEADERS", "DATA 1 [aa] flow=1",
                        "DATA 1 [bb] flow=1 END_STREAM", "SETTINGS ACK"),
                prefaced("the client preface and its SETTINGS", PREFACE + f(TYPE_SETTINGS, 0, 0, "0003 00000064") + PING,
                        "SETTING 3=100", "SETTINGS END", PING_EVENT),
                prefaced("the client preface and an empty SETTINGS", PREFACE + SETTINGS_EMPTY, "SETTINGS END"));
    }

    static Stream<Arguments> errorCases() {
        String openBlock = f(TYPE_HEADERS, 0, 1, "82");
        return Stream.of(
                // RFC 9113 4.2: larger than the SETTINGS_MAX_FRAME_SIZE advertised
                row("DATA over the maximum frame size", sized(TYPE_DATA, 0, 1, 16_385), "connection error FRAME_SIZE_ERROR"),
                row("an unknown type over the maximum frame size", sized(0x0b, 0, 1, 16_385), "connection error FRAME_SIZE_ERROR"),
                // 6.1, 6.2, 6.10, 6.4, 6.3: frames of a stream on stream 0
                row("DATA on stream 0", f(TYPE_DATA, 0, 0, "aa"), "connection error PROTOCOL_ERROR"),
                row("HEADERS on stream 0", f(TYPE_HEADERS, FLAG_END_HEADERS, 0, "82"), "connection error PROTOCOL_ERROR"),
                row("CONTINUATION on stream 0", openBlock + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 0, "82"),
                        "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("RST_STREAM on stream 0", f(TYPE_RST_STREAM, 0, 0, "00000008"), "connection error PROTOCOL_ERROR"),
                row("PRIORITY on stream 0", f(TYPE_PRIORITY, 0, 0, "00000001 10"), "connection error PROTOCOL_ERROR"),
                // 6.5, 6.7, 6.8: connection frames on a stream
                row("SETTINGS on a stream", f(TYPE_SETTINGS, 0, 1, ""), "connection error PROTOCOL_ERROR"),
                row("PING on a stream", f(TYPE_PING, 0, 1, "0000000000000000"), "connection error PROTOCOL_ERROR"),
                row("GOAWAY on a stream", f(TYPE_GOAWAY, 0, 1, "0000000000000000"), "connection error PROTOCOL_ERROR"),
                // 6.1, 6.2: padding as long as the payload or longer
                row("DATA padding as long as the payload", f(TYPE_DATA, FLAG_PADDED, 1, "05 00000000"), "connection error PROTOCOL_ERROR"),
                row("DATA padding longer than the payload", f(TYPE_DATA, FLAG_PADDED, 1, "ff 00"), "connection error PROTOCOL_ERROR"),
                row("padded DATA with no room for its pad length", f(TYPE_DATA, FLAG_PADDED, 1, ""), "connection error FRAME_SIZE_ERROR"),
                row("HEADERS padding longer than the fragment", f(TYPE_HEADERS, FLAG_END_HEADERS | FLAG_PADDED, 1, "03 8200"),
                        "connection error PROTOCOL_ERROR"),
                row("HEADERS padding longer than what the priority fields leave",
                        f(TYPE_HEADERS, FLAG_END_HEADERS | FLAG_PADDED | FLAG_PRIORITY, 1, "02 00000003 10 00"), "connection error PROTOCOL_ERROR"),
                row("HEADERS with no room for its priority fields", f(TYPE_HEADERS, FLAG_END_HEADERS | FLAG_PRIORITY, 1, "00000003"),
                        "connection error FRAME_SIZE_ERROR"),
                // 6.3: a PRIORITY frame's length is a stream error
                row("PRIORITY of 4 bytes, then the connection goes on", f(TYPE_PRIORITY, 0, 3, "00000001") + PING,
                        "stream error 3 FRAME_SIZE_ERROR", PING_EVENT),
                row("PRIORITY of 6 bytes", f(TYPE_PRIORITY, 0, 3, "00000001 1000"), "stream error 3 FRAME_SIZE_ERROR"),
                // 5.3.1: a stream depending on itself
                row("PRIORITY depending on itself, then the connection goes on", f(TYPE_PRIORITY, 0, 3, "80000003 10") + PING,
                        "stream error 3 PROTOCOL_ERROR", PING_EVENT),
                row("HEADERS depending on itself: the fragment is handed on saying so, the stream error is the listener's",
                        f(TYPE_HEADERS, FLAG_PRIORITY, 3, "00000003 10 82") + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 3, "84") + PING,
                        "HEADERS 3 [82] DEPENDS_ON_ITSELF", "CONTINUATION 3 [84] END_HEADERS", PING_EVENT),
                // 6.4
                row("RST_STREAM of 3 bytes", f(TYPE_RST_STREAM, 0, 1, "000008"), "connection error FRAME_SIZE_ERROR"),
                row("RST_STREAM of 5 bytes", f(TYPE_RST_STREAM, 0, 1, "0000000800"), "connection error FRAME_SIZE_ERROR"),
                // 6.5
                row("SETTINGS of 5 bytes", f(TYPE_SETTINGS, 0, 0, "0003000000"), "connection error FRAME_SIZE_ERROR"),
                row("SETTINGS of 7 bytes", f(TYPE_SETTINGS, 0, 0, "00030000006400"), "connection error FRAME_SIZE_ERROR"),
                row("SETTINGS ACK with a payload", f(TYPE_SETTINGS, FLAG_ACK, 0, "000300000064"), "connection error FRAME_SIZE_ERROR"),
                // 6.5.2: no setting of a bad frame is handed on, not even those before the bad one
                row("SETTINGS_ENABLE_PUSH of 2", f(TYPE_SETTINGS, 0, 0, "0003 00000064 0002 00000002"), "connection error PROTOCOL_ERROR"),
                row("SETTINGS_INITIAL_WINDOW_SIZE of 2^31", f(TYPE_SETTINGS, 0, 0, "0004 80000000"), "connection error FLOW_CONTROL_ERROR"),
                row("SETTINGS_MAX_FRAME_SIZE of 16383", f(TYPE_SETTINGS, 0, 0, "0005 00003fff"), "connection error PROTOCOL_ERROR"),
                row("SETTINGS_MAX_FRAME_SIZE of 2^24", f(TYPE_SETTINGS, 0, 0, "0005 01000000"), "connection error PROTOCOL_ERROR"),
                // 6.7, 6.8, 6.9
                row("PING of 7 bytes", f(TYPE_PING, 0, 0, "00000000000000"), "connection error FRAME_SIZE_ERROR"),
                row("PING of 9 bytes", f(TYPE_PING, 0, 0, "000000000000000000"), "connection error FRAME_SIZE_ERROR"),
                row("GOAWAY of 7 bytes", f(TYPE_GOAWAY, 0, 0, "00000000000000"), "connection error FRAME_SIZE_ERROR"),
                row("WINDOW_UPDATE of 3 bytes", f(TYPE_WINDOW_UPDATE, 0, 1, "000001"), "connection error FRAME_SIZE_ERROR"),
                row("WINDOW_UPDATE of 5 bytes on stream 0", f(TYPE_WINDOW_UPDATE, 0, 0, "0000000100"), "connection error FRAME_SIZE_ERROR"),
                row("WINDOW_UPDATE of 0 on a stream, then the connection goes on",
                        f(TYPE_WINDOW_UPDATE, 0, 5, "00000000") + f(TYPE_DATA, 0, 1, "aa"), "stream error 5 PROTOCOL_ERROR", "DATA 1 [aa] flow=1"),
                row("WINDOW_UPDATE of 0 with the reserved bit set", f(TYPE_WINDOW_UPDATE, 0, 5, "80000000"), "stream error 5 PROTOCOL_ERROR"),
                row("WINDOW_UPDATE of 0 for the connection", f(TYPE_WINDOW_UPDATE, 0, 0, "00000000"), "connection error PROTOCOL_ERROR"),
                // 8.4: a client cannot push
                row("PUSH_PROMISE", f(TYPE_PUSH_PROMISE, FLAG_END_HEADERS, 1, "00000002 82"), "connection error PROTOCOL_ERROR"),
                // 6.2, 6.10: a header block is followed only by its CONTINUATION frames
                row("DATA inside a header block", openBlock + f(TYPE_DATA, 0, 1, "aa"), "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("PING inside a header block", openBlock + PING, "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("an unknown type inside a header block", openBlock + f(0x0a, 0, 1, ""), "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("HEADERS of another stream inside a header block", openBlock + f(TYPE_HEADERS, FLAG_END_HEADERS, 3, "82"),
                        "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("CONTINUATION of another stream", openBlock + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 3, "84"),
                        "HEADERS 1 [82]", "connection error PROTOCOL_ERROR"),
                row("CONTINUATION without HEADERS", f(TYPE_CONTINUATION, FLAG_END_HEADERS, 1, "84"), "connection error PROTOCOL_ERROR"),
                row("CONTINUATION after END_HEADERS",
                        f(TYPE_HEADERS, FLAG_END_HEADERS, 1, "82") + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 1, "84"),
                        "HEADERS 1 [82] END_HEADERS", "connection error PROTOCOL_ERROR"),
                row("CONTINUATION after the block ended with a CONTINUATION",
                        openBlock + f(TYPE_CONTINUATION, FLAG_END_HEADERS, 1, "84") + f(TYPE_CONTINUATION, 0, 1, "86"),
                        "HEADERS 1 [82]", "CONTINUATION 1 [84] END_HEADERS", "connection error PROTOCOL_ERROR"),
                // 3.4: the client preface, then SETTINGS
                prefaced("HTTP/1.1 instead of the preface", HexFormat.of().formatHex("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                        "connection error PROTOCOL_ERROR"),
                prefaced("a preface wrong in its last byte", PREFACE.substring(0, PREFACE.length() - 2) + "0b" + SETTINGS_EMPTY,
                        "connection error PROTOCOL_ERROR"),
                prefaced("a frame instead of the preface", SETTINGS_EMPTY + PREFACE, "connection error PROTOCOL_ERROR"),
                prefaced("PING before the first SETTINGS", PREFACE + PING + SETTINGS_EMPTY, "connection error PROTOCOL_ERROR"),
                prefaced("SETTINGS ACK as the first SETTINGS", PREFACE + f(TYPE_SETTINGS, FLAG_ACK, 0, ""), "connection error PROTOCOL_ERROR"),
                prefaced("HEADERS before the first SETTINGS", PREFACE + f(TYPE_HEADERS, FLAG_END_HEADERS, 1, "82"),
                        "connection error PROTOCOL_ERROR"));
    }

    static Stream<Arguments> allCases() {
        return Stream.concat(validCases(), errorCases());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void whole(String name, boolean preface, byte[] raw, List<String> expected) {
        FrameReader reader = reader(preface);
        assertThat(FrameEvents.feed(reader, whole(raw))).isEqualTo(expected);
        if (preface && !expected.getLast().startsWith("connection error")) {
            assertThat(reader.prefaceDone()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void splitAtEveryIndex(String name, boolean preface, byte[] raw, List<String> expected) {
        for (int at = 0; at <= raw.length; at++) {
            assertThat(FrameEvents.feed(reader(preface), split(raw, at))).as("split at %d", at).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void byteByByte(String name, boolean preface, byte[] raw, List<String> expected) {
        assertThat(FrameEvents.feed(reader(preface), bytewise(raw))).isEqualTo(expected);
    }

    /** RFC 9113 4.2: refused from its header, before any of the payload is buffered. */
    @Test
    void aFrameOverTheMaximumIsRefusedBeforeItsPayloadArrives() {
        byte[] header = hex(f(TYPE_DATA, 0, 1, "").substring(0, 18)).clone();
        header[2] = 0x01;
        header[1] = 0x40; // length 16385
        assertThat(FrameEvents.feed(reader(false), whole(header))).containsExactly("connection error FRAME_SIZE_ERROR");
        assertThat(FrameEvents.feed(reader(false), bytewise(header))).containsExactly("connection error FRAME_SIZE_ERROR");
        header[0] = (byte) 0xff; // 16 MiB announced: no buffer of that size is made
        FrameReader reader = reader(false);
        assertThat(FrameEvents.feed(reader, whole(header))).containsExactly("connection error FRAME_SIZE_ERROR");
        assertThat(reader.bufferCapacity()).isLessThanOrEqualTo(FrameReader.FRAME_HEADER_LENGTH);
    }

    @Test
    void aLargerMaximumFrameSizeAdmitsLargerFrames() {
        FrameReader reader = new FrameReader(32_768);
        byte[] raw = hex(sized(TYPE_DATA, 0, 1, 32_768), sized(TYPE_DATA, 0, 1, 32_769));
        assertThat(FrameEvents.feed(reader, bytewise(raw)))
                .containsExactly("DATA 1 [" + zeros(32_768) + "] flow=32768", "connection error FRAME_SIZE_ERROR");
        assertThat(reader.bufferCapacity()).isLessThanOrEqualTo(FrameReader.FRAME_HEADER_LENGTH + 32_768);

        FrameReader lowered = new FrameReader(32_768);
        lowered.maxFrameSize(16_384);
        assertThat(FrameEvents.feed(lowered, whole(hex(sized(TYPE_DATA, 0, 1, 16_385))))).containsExactly("connection error FRAME_SIZE_ERROR");
        assertThatThrownBy(() -> lowered.maxFrameSize(16_383)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FrameReader(16_777_216)).isInstanceOf(IllegalArgumentException.class);
    }

    /** The buffer for a frame still arriving never grows past one frame of the maximum size. */
    @Test
    void theBufferIsBoundedByTheMaximumFrameSize() {
        FrameReader reader = reader(false);
        byte[] raw = hex(sized(TYPE_DATA, 0, 1, 16_384), sized(TYPE_DATA, 0, 1, 16_384));
        FrameEvents.feed(reader, bytewise(raw));
        assertThat(reader.bufferCapacity()).isLessThanOrEqualTo(FrameReader.FRAME_HEADER_LENGTH + 16_384);
    }

    /** A whole frame is handed on as a view of the input itself: nothing is copied or allocated for it. */
    @Test
    void wholeFramesAreHandedOnAsTheInputItself() throws Http2Exception {
        ByteBuffer src = ByteBuffer.wrap(hex(f(TYPE_DATA, 0, 1, HELLO), f(TYPE_HEADERS, FLAG_END_HEADERS, 3, "82"),
                f(TYPE_GOAWAY, 0, 0, "00000000 00000000 aa")));
        List<ByteBuffer> seen = new ArrayList<>();
        FrameReader reader = reader(false);
        reader.read(src, new FrameEvents() {
            @Override
            public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) {
                seen.add(data);
                assertThat(data.position()).isEqualTo(9);
                assertThat(data.limit()).isEqualTo(14);
            }

            @Override
            public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself) {
                seen.add(fragment);
            }

            @Override
            public void goAway(int lastStreamId, long errorCode, ByteBuffer debugData) {
                seen.add(debugData);
                debugData.get(); // consuming a view does not disturb the reader
            }
        });
        assertThat(seen).hasSize(3).allSatisfy(b -> assertThat(b).isSameAs(src));
        assertThat(src.remaining()).isZero();
        assertThat(reader.bufferCapacity()).isZero();
    }

    /** A listener's exception leaves the input after its frame, so the caller can go on with the rest. */
    @Test
    void aListenerErrorLeavesTheInputAfterItsFrame() {
        byte[] raw = hex(f(TYPE_DATA, 0, 1, "aa"), f(TYPE_DATA, 0, 3, "bb"), PING);
        for (List<byte[]> pieces : List.of(whole(raw), bytewise(raw), split(raw, 12))) {
            FrameReader reader = reader(false);
            FrameEvents listener = new FrameEvents() {
                @Override
                public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) {
                    super.data(streamId, data, flowControlledLength, endStream);
                    if (streamId == 1) {
                        throw new IllegalStateException("stream 1 is closed");
                    }
                }
            };
            for (byte[] piece : pieces) {
                ByteBuffer src = ByteBuffer.wrap(piece);
                while (true) {
                    try {
                        reader.read(src, listener);
                        break;
                    } catch (IllegalStateException | Http2Exception e) {
                        listener.events.add("thrown");
                    }
                }
            }
            assertThat(listener.events).containsExactly("DATA 1 [aa] flow=1", "thrown", "DATA 3 [bb] flow=1", PING_EVENT);
        }
    }

    @Test
    void thePrefaceIsDoneOnlyAfterItsSettingsFrame() throws Http2Exception {
        FrameReader reader = reader(true);
        assertThat(reader.prefaceDone()).isFalse();
        byte[] raw = hex(PREFACE, f(TYPE_SETTINGS, 0, 0, "000300000064"));
        FrameEvents listener = new FrameEvents();
        reader.read(ByteBuffer.wrap(raw, 0, raw.length - 1), listener);
        assertThat(reader.prefaceDone()).isFalse();
        reader.read(ByteBuffer.wrap(raw, raw.length - 1, 1), listener);
        assertThat(reader.prefaceDone()).isTrue();
        assertThat(reader(false).prefaceDone()).as("no preface expected").isTrue();
    }
}
