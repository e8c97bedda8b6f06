// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static dev.spindle.core.websocket.WebSocketFrames.BINARY;
import static dev.spindle.core.websocket.WebSocketFrames.CLOSE;
import static dev.spindle.core.websocket.WebSocketFrames.CONTINUATION;
import static dev.spindle.core.websocket.WebSocketFrames.PING;
import static dev.spindle.core.websocket.WebSocketFrames.PONG;
import static dev.spindle.core.websocket.WebSocketFrames.TEXT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client's frames read by a server's {@link FrameReader} and {@link MessageReader}, by the case
 * families of the Autobahn testsuite (1 framing, 2 ping/pong, 3 reserved bits, 4 opcodes,
 * 5 fragmentation, 6 UTF-8, 7 close, 9 limits): each case's bytes fed whole, split in two at every
 * byte, and one byte at a time, with the same events every way.
 */
class MessageReaderTest {
    private static final int LIMIT = 70_000;
    private static final Random MASKS = new Random(6455);

    /** The events of a reader, as text: {@code text:...}, {@code binary:<hex>}, {@code ping:<hex>}, {@code pong:<hex>}, {@code close:<code>:<reason>}, {@code fail:<code>}. */
    static final class Events implements MessageReader.Listener {
        final List<String> seen = new ArrayList<>();

        @Override
        public void text(String message) {
            seen.add("text:" + message);
        }

        @Override
        public void binary(ByteBuffer message) {
            seen.add("binary:" + hex(message));
        }

        @Override
        public void ping(ByteBuffer payload) {
            seen.add("ping:" + hex(payload));
        }

        @Override
        public void pong(ByteBuffer payload) {
            seen.add("pong:" + hex(payload));
        }

        @Override
        public void close(int code, String reason) {
            seen.add("close:" + code + ":" + reason);
        }

        private static String hex(ByteBuffer b) {
            byte[] bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
            return HexFormat.of().formatHex(bytes);
        }
    }

    /** A client's frame (masked), as a server reads it. */
    static byte[] frame(boolean fin, int opcode, byte[] payload) {
        return WebSocketFrames.frame(fin, false, opcode, payload, MASKS);
    }

    static byte[] frame(boolean fin, int opcode, String text) {
        return frame(fin, opcode, text.getBytes(StandardCharsets.UTF_8));
    }

    /** A frame header written by hand (its first byte and the 7-bit length), with a mask and {@code payload} masked. */
    static byte[] raw(int b0, int length7, byte[] extendedLength, byte[] payload) {
        ByteBuffer out = ByteBuffer.allocate(2 + extendedLength.length + 4 + payload.length);
        out.put((byte) b0).put((byte) (0x80 | length7)).put(extendedLength);
        int mask = MASKS.nextInt();
        out.putInt(mask);
        int start = out.position();
        out.put(payload);
        WebSocketFrames.mask(out, start, out.position(), mask, 0);
        return out.array();
    }

    static byte[] concat(byte[]... frames) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            all.writeBytes(f);
        }
        return all.toByteArray();
    }

    static byte[] close(int code, String reason) {
        ByteBuffer b = ByteBuffer.allocate(2 + reason.getBytes(StandardCharsets.UTF_8).length);
        b.putShort((short) code).put(reason.getBytes(StandardCharsets.UTF_8));
        return frame(true, CLOSE, b.array());
    }

    static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    static Stream<Arguments> cases() {
        List<Arguments> rows = new ArrayList<>();
        // 1 framing: text and binary at the lengths where the length field changes form
        for (int n : new int[] {0, 1, 125, 126, 127, 128, 65_535, 65_536}) {
            String text = "*".repeat(n);
            rows.add(Arguments.of("1.1 text of " + n, frame(true, TEXT, text), List.of("text:" + text)));
            rows.add(Arguments.of("1.2 binary of " + n, frame(true, BINARY, bytes(n)), List.of("binary:" + hex(bytes(n)))));
        }
        // 2 ping/pong
        rows.add(Arguments.of("2.1 empty ping", frame(true, PING, new byte[0]), List.of("ping:")));
        rows.add(Arguments.of("2.3 binary ping", frame(true, PING, bytes(8)), List.of("ping:" + hex(bytes(8)))));
        rows.add(Arguments.of("2.4 ping of 125", frame(true, PING, bytes(125)), List.of("ping:" + hex(bytes(125)))));
        rows.add(Arguments.of("2.5 ping of 126", raw(0x89, 126, new byte[] {0, 126}, bytes(126)), List.of("fail:1002")));
        rows.add(Arguments.of("2.6 unsolicited pong", frame(true, PONG, "hi"), List.of("pong:6869")));
        rows.add(Arguments.of("2.10 ten pings", concat(Stream.generate(() -> frame(true, PING, "p")).limit(10).toArray(byte[][]::new)),
                Stream.generate(() -> "ping:70").limit(10).toList()));
        // 3 reserved bits, here without an extension
        rows.add(Arguments.of("3.1 RSV1 on text", raw(0xC1, 2, new byte[0], "hi".getBytes()), List.of("fail:1002")));
        rows.add(Arguments.of("3.2 RSV2 after a message", concat(frame(true, TEXT, "ok"), raw(0xA1, 2, new byte[0], "hi".getBytes())),
                List.of("text:ok", "fail:1002")));
        rows.add(Arguments.of("3.3 RSV3 on binary", raw(0x92, 1, new byte[0], new byte[1]), List.of("fail:1002")));
        rows.add(Arguments.of("3.6 RSV on ping", raw(0xF9, 0, new byte[0], new byte[0]), List.of("fail:1002")));
        // 4 opcodes
        for (int op : new int[] {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) {
            rows.add(Arguments.of("4 opcode " + op, concat(frame(true, TEXT, "a"), raw(0x80 | op, 0, new byte[0], new byte[0])),
                    List.of("text:a", "fail:1002")));
        }
        // 5 fragmentation
        rows.add(Arguments.of("5.1 fragmented ping", raw(0x09, 1, new byte[0], new byte[1]), List.of("fail:1002")));
        rows.add(Arguments.of("5.3 text in two fragments", concat(frame(false, TEXT, "frag"), frame(true, CONTINUATION, "ment")),
                List.of("text:fragment")));
        rows.add(Arguments.of("5.6 a ping between fragments",
                concat(frame(false, TEXT, "frag"), frame(true, PING, "p"), frame(true, CONTINUATION, "ment")),
                List.of("ping:70", "text:fragment")));
        rows.add(Arguments.of("5.9 a continuation with nothing to continue", frame(true, CONTINUATION, "x"), List.of("fail:1002")));
        rows.add(Arguments.of("5.15 a new message inside a fragmented one",
                concat(frame(false, TEXT, "a"), frame(false, TEXT, "b")), List.of("fail:1002")));
        rows.add(Arguments.of("5.19 one-byte fragments and pings",
                concat(frame(false, BINARY, new byte[] {1}), frame(true, PING, new byte[0]), frame(false, CONTINUATION, new byte[] {2}),
                        frame(false, CONTINUATION, new byte[0]), frame(true, CONTINUATION, new byte[] {3})),
                List.of("ping:", "binary:010203")));
        rows.add(Arguments.of("5.20 a message after a fragmented one",
                concat(frame(false, TEXT, "x"), frame(true, CONTINUATION, "y"), frame(true, BINARY, new byte[] {9})),
                List.of("text:xy", "binary:09")));
        // 6 UTF-8, in one frame and across fragments (a character split between them)
        byte[] kosme = "\u03ba\u1f79\u03c3\u03bc\u03b5".getBytes(StandardCharsets.UTF_8);
        rows.add(Arguments.of("6.2 valid UTF-8", frame(true, TEXT, kosme), List.of("text:\u03ba\u1f79\u03c3\u03bc\u03b5")));
        rows.add(Arguments.of("6.2 a character split between fragments",
                concat(frame(false, TEXT, Arrays.copyOfRange(kosme, 0, 3)), frame(true, CONTINUATION, Arrays.copyOfRange(kosme, 3, kosme.length))),
                List.of("text:\u03ba\u1f79\u03c3\u03bc\u03b5")));
        rows.add(Arguments.of("6.3 a surrogate", frame(true, TEXT, HexFormat.of().parseHex("cebaeda080")), List.of("fail:1007")));
        rows.add(Arguments.of("6.6 cut short at the end", frame(true, TEXT, HexFormat.of().parseHex("cebae1bd")), List.of("fail:1007")));
        rows.add(Arguments.of("6.4 invalid in the first fragment fails before the second",
                concat(frame(false, TEXT, HexFormat.of().parseHex("41f4908080")), frame(true, CONTINUATION, "rest")),
                List.of("fail:1007")));
        rows.add(Arguments.of("6 a binary message is not UTF-8 checked", frame(true, BINARY, new byte[] {(byte) 0xFF}), List.of("binary:ff")));
        // 7 close
        rows.add(Arguments.of("7.3.1 an empty close", frame(true, CLOSE, new byte[0]), List.of("close:1005:")));
        rows.add(Arguments.of("7.3.2 a one-byte close", frame(true, CLOSE, new byte[] {3}), List.of("fail:1002")));
        rows.add(Arguments.of("7.3.3 a close with a code", close(1000, ""), List.of("close:1000:")));
        rows.add(Arguments.of("7.3.4 a close with a reason", close(1001, "bye \u00e9"), List.of("close:1001:bye \u00e9")));
        rows.add(Arguments.of("7.3.6 a close with an invalid reason",
                frame(true, CLOSE, HexFormat.of().parseHex("03e8cebaeda080")), List.of("fail:1007")));
        rows.add(Arguments.of("7.1 a close after a message", concat(frame(true, TEXT, "last"), close(1000, "done")),
                List.of("text:last", "close:1000:done")));
        for (int code : new int[] {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999}) {
            rows.add(Arguments.of("7.7 close code " + code, close(code, ""), List.of("close:" + code + ":")));
        }
        for (int code : new int[] {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
            rows.add(Arguments.of("7.9 close code " + code, close(code, ""), List.of("fail:1002")));
        }
        // 9 limits
        rows.add(Arguments.of("9 a frame over the limit", raw(0x82, 127, ByteBuffer.allocate(8).putLong(LIMIT + 1L).array(), new byte[0]),
                List.of("fail:1009")));
        rows.add(Arguments.of("9 a length of 2^63", raw(0x82, 127, HexFormat.of().parseHex("8000000000000000"), new byte[0]),
                List.of("fail:1002")));
        rows.add(Arguments.of("9 fragments adding up past the limit",
                concat(frame(false, BINARY, bytes(40_000)), frame(true, CONTINUATION, bytes(40_000))), List.of("fail:1009")));
        rows.add(Arguments.of("9 a message at the limit", frame(true, BINARY, bytes(LIMIT)), List.of("binary:" + hex(bytes(LIMIT)))));
        rows.add(Arguments.of("a client frame without a mask", new byte[] {(byte) 0x81, 0x01, 0x41}, List.of("fail:1002")));
        return rows.stream();
    }

    /** Feeds {@code chunks} in order; returns the events, a failure last. */
    static List<String> read(List<byte[]> chunks) {
        Events events = new Events();
        FrameReader reader = new FrameReader(new MessageReader(events, LIMIT), true, LIMIT);
        try {
            for (byte[] chunk : chunks) {
                reader.read(ByteBuffer.wrap(chunk));
            }
        } catch (WebSocketException e) {
            events.seen.add("fail:" + e.closeCode());
        }
        return events.seen;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void readsTheSameEventsHoweverTheBytesArrive(String name, byte[] wire, List<String> expected) {
        assertThat(read(List.of(wire.clone()))).as("whole").isEqualTo(expected);
        // every split point for small inputs; for large ones, the points around each header and a few inside
        int step = wire.length < 600 ? 1 : wire.length / 97;
        for (int split = 0; split <= wire.length; split += split < 20 || split > wire.length - 20 ? 1 : step) {
            byte[] copy = wire.clone();
            assertThat(read(List.of(Arrays.copyOfRange(copy, 0, split), Arrays.copyOfRange(copy, split, copy.length))))
                    .as("split at %d", split).isEqualTo(expected);
        }
        if (wire.length < 600) {
            List<byte[]> single = new ArrayList<>();
            for (byte b : wire.clone()) {
                single.add(new byte[] {b});
            }
            assertThat(read(single)).as("a byte at a time").isEqualTo(expected);
        }
    }

    /** Autobahn 6.4: invalid text fails at the bad byte, before the rest of its frame has arrived. */
    @Test
    void invalidTextFailsBeforeItsFrameEnds() {
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 'a');
        payload[10] = (byte) 0xFF;
        byte[] wire = frame(true, TEXT, payload);
        Events events = new Events();
        FrameReader reader = new FrameReader(new MessageReader(events, LIMIT), true, LIMIT);
        int header = WebSocketFrames.headerLength(payload.length, true);
        assertThatThrownBy(() -> reader.read(ByteBuffer.wrap(wire, 0, header + 11)))
                .isInstanceOfSatisfying(WebSocketException.class, e -> assertThat(e.closeCode()).isEqualTo(1007));
    }

    /** A frame's announced length holds nothing: the message buffer grows with what arrives. */
    @Test
    void anAnnouncedFrameThatNeverArrivesHoldsNoBuffer() throws Exception {
        Events events = new Events();
        MessageReader messages = new MessageReader(events, 1 << 30);
        FrameReader reader = new FrameReader(messages, true, 1 << 30);
        byte[] wire = raw(0x82, 127, ByteBuffer.allocate(8).putLong(1 << 30).array(), new byte[10]);
        reader.read(ByteBuffer.wrap(wire));
        java.lang.reflect.Field buffer = MessageReader.class.getDeclaredField("message");
        buffer.setAccessible(true);
        assertThat(((byte[]) buffer.get(messages)).length).isLessThanOrEqualTo(256);
    }

    /** A server's frames (unmasked) read by a client's reader; a masked one refused. */
    @Test
    void aClientReadsUnmaskedFramesAndRefusesMaskedOnes() {
        Events events = new Events();
        FrameReader client = new FrameReader(new MessageReader(events, LIMIT), false, LIMIT);
        client.read(ByteBuffer.wrap(WebSocketFrames.frame(true, false, TEXT, "hello".getBytes(StandardCharsets.UTF_8), null)));
        assertThat(events.seen).containsExactly("text:hello");
        assertThatThrownBy(() -> client.read(ByteBuffer.wrap(frame(true, TEXT, "masked"))))
                .isInstanceOfSatisfying(WebSocketException.class, e -> assertThat(e.closeCode()).isEqualTo(1002));
    }

    /** With permessage-deflate's RSV1 allowed: on a message's first frame only. */
    @Test
    void rsv1IsAllowedOnlyOnAFirstDataFrameWhenAnExtensionDefinesIt() {
        List<Boolean> compressed = new ArrayList<>();
        FrameReader.Listener seen = new FrameReader.Listener() {
            @Override
            public void dataFrame(int opcode, boolean fin, boolean rsv1, long length) {
                compressed.add(rsv1);
            }

            @Override
            public void data(ByteBuffer payload) {
            }

            @Override
            public void dataEnd() {
            }

            @Override
            public void control(int opcode, ByteBuffer payload) {
            }
        };
        FrameReader reader = new FrameReader(seen, true, LIMIT);
        reader.allowRsv1();
        reader.read(ByteBuffer.wrap(raw(0x41, 1, new byte[0], new byte[1])));
        assertThat(compressed).containsExactly(true);
        assertThatThrownBy(() -> reader.read(ByteBuffer.wrap(raw(0xC0, 1, new byte[0], new byte[1]))))
                .isInstanceOfSatisfying(WebSocketException.class, e -> assertThat(e.getMessage()).contains("continuation"));
        FrameReader other = new FrameReader(seen, true, LIMIT);
        other.allowRsv1();
        assertThatThrownBy(() -> other.read(ByteBuffer.wrap(raw(0xC9, 0, new byte[0], new byte[0]))))
                .isInstanceOfSatisfying(WebSocketException.class, e -> assertThat(e.getMessage()).contains("control frame"));
    }
}
