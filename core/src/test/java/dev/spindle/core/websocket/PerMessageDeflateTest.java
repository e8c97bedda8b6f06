// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static dev.spindle.core.websocket.WebSocketFrames.BINARY;
import static dev.spindle.core.websocket.WebSocketFrames.CONTINUATION;
import static dev.spindle.core.websocket.WebSocketFrames.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PerMessageDeflateTest {
    private static final int LIMIT = 100_000;
    private static final Random MASKS = new Random(7692);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(value = {
            "permessage-deflate|permessage-deflate; server_no_context_takeover",
            "permessage-deflate; client_max_window_bits|permessage-deflate; server_no_context_takeover",
            "permessage-deflate; client_no_context_takeover|permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            "permessage-deflate; server_no_context_takeover; client_max_window_bits=10|permessage-deflate; server_no_context_takeover",
            "permessage-deflate; server_max_window_bits=15|permessage-deflate; server_no_context_takeover",
            "permessage-deflate; server_max_window_bits=\"15\"|permessage-deflate; server_no_context_takeover",
            "PerMessage-Deflate ; Client_No_Context_Takeover|permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            // declined: a narrower server window, bad values, repeats, unknown parameters, other extensions
            "permessage-deflate; server_max_window_bits=10|",
            "permessage-deflate; server_max_window_bits|",
            "permessage-deflate; client_max_window_bits=16|",
            "permessage-deflate; client_max_window_bits=7|",
            "permessage-deflate; client_max_window_bits=010|",
            "permessage-deflate; client_no_context_takeover; client_no_context_takeover|",
            "permessage-deflate; server_no_context_takeover=1|",
            "permessage-deflate; mystery|",
            "x-webkit-deflate-frame|",
            "|",
            // the first acceptable offer wins
            "permessage-deflate; server_max_window_bits=9, permessage-deflate; client_no_context_takeover|permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            "foo, permessage-deflate|permessage-deflate; server_no_context_takeover"}, delimiter = '|')
    void negotiatesTheFirstOfferItCanHonour(String offer, String response) {
        PerMessageDeflate.Agreement agreed = PerMessageDeflate.negotiate(offer == null ? List.of() : List.of(offer));
        assertThat(agreed == null ? null : agreed.response()).isEqualTo(response);
    }

    /** RFC 7692 7.2.3.1 and 7.2.3.2: "Hello" compressed, then again with the context taken over. */
    @Test
    void inflatesTheExamplesOfRfc7692() {
        List<String> seen = new ArrayList<>();
        FrameReader reader = reader(seen, false);
        reader.read(ByteBuffer.wrap(masked(true, true, TEXT, HexFormat.of().parseHex("f248cdc9c90700"))));
        reader.read(ByteBuffer.wrap(masked(true, true, TEXT, HexFormat.of().parseHex("f200110000"))));
        // 7.2.3.3: a block with no compression; then a message in two fragments, RSV1 on the first only
        reader.read(ByteBuffer.wrap(masked(true, true, TEXT, HexFormat.of().parseHex("000500faff48656c6c6f00"))));
        reader.read(ByteBuffer.wrap(masked(false, true, TEXT, HexFormat.of().parseHex("f248cd"))));
        reader.read(ByteBuffer.wrap(masked(true, false, CONTINUATION, HexFormat.of().parseHex("c9c90700"))));
        assertThat(seen).containsExactly("text:Hello", "text:Hello", "text:Hello", "text:Hello");
    }

    /** What this side compresses inflates back, through frames split at every byte, with and without context takeover. */
    @Test
    void aCompressedMessageRoundTripsHoweverItsBytesArrive() {
        String text = "{\"event\":\"tick\",\"price\":\"12.50\",\"note\":\"\u00e9t\u00e9\"}".repeat(40);
        byte[] payload = PerMessageDeflate.compress(new Deflater(6, true), text.getBytes(StandardCharsets.UTF_8), 0,
                text.getBytes(StandardCharsets.UTF_8).length);
        assertThat(payload.length).isLessThan(text.length() / 5);
        byte[] wire = masked(true, true, TEXT, payload);
        for (int split = 0; split <= wire.length; split++) {
            List<String> seen = new ArrayList<>();
            FrameReader reader = reader(seen, true);
            byte[] copy = wire.clone();
            reader.read(ByteBuffer.wrap(copy, 0, split));
            reader.read(ByteBuffer.wrap(copy, split, copy.length - split));
            assertThat(seen).as("split at %d", split).containsExactly("text:" + text);
        }
    }

    /** The client's context kept between messages (no client_no_context_takeover): its second message refers back to the first. */
    @Test
    void theClientsContextIsKeptUnlessItAgreedOtherwise() {
        Deflater client = new Deflater(6, true);
        byte[] first = syncFlushed(client, "the same words, the same words".getBytes(StandardCharsets.US_ASCII));
        byte[] second = syncFlushed(client, "the same words, the same words".getBytes(StandardCharsets.US_ASCII));
        assertThat(second.length).as("a back reference").isLessThan(first.length);
        List<String> seen = new ArrayList<>();
        FrameReader keeping = reader(seen, false);
        keeping.read(ByteBuffer.wrap(masked(true, true, TEXT, first)));
        keeping.read(ByteBuffer.wrap(masked(true, true, TEXT, second)));
        assertThat(seen).containsExactly("text:the same words, the same words", "text:the same words, the same words");
        List<String> fresh = new ArrayList<>();
        FrameReader resetting = reader(fresh, true);
        resetting.read(ByteBuffer.wrap(masked(true, true, TEXT, first)));
        assertThat(failure(() -> resetting.read(ByteBuffer.wrap(masked(true, true, TEXT, second))))).isEqualTo(1007);
    }

    /** A bomb: 30 KB that inflates past the limit is refused while inflating, the buffer never past the limit. */
    @Test
    void aMessageThatInflatesPastTheLimitIs1009() {
        byte[] zeros = new byte[50 * LIMIT];
        byte[] bomb = PerMessageDeflate.compress(new Deflater(9, true), zeros, 0, zeros.length);
        assertThat(bomb.length).isLessThan(LIMIT / 2);
        List<String> seen = new ArrayList<>();
        assertThat(failure(() -> reader(seen, true).read(ByteBuffer.wrap(masked(true, true, BINARY, bomb))))).isEqualTo(1009);
        byte[] atLimit = new byte[LIMIT];
        byte[] fits = PerMessageDeflate.compress(new Deflater(9, true), atLimit, 0, atLimit.length);
        reader(seen, true).read(ByteBuffer.wrap(masked(true, true, BINARY, fits)));
        assertThat(seen).hasSize(1);
    }

    @Test
    void invalidTextOrDeflateDataIs1007() {
        byte[] notUtf8 = PerMessageDeflate.compress(new Deflater(6, true), new byte[] {'a', (byte) 0xC0, (byte) 0x80}, 0, 3);
        assertThat(failure(() -> reader(new ArrayList<>(), true).read(ByteBuffer.wrap(masked(true, true, TEXT, notUtf8))))).isEqualTo(1007);
        assertThat(failure(() -> reader(new ArrayList<>(), true).read(ByteBuffer.wrap(masked(true, true, TEXT, new byte[] {(byte) 0xFF, 0x11})))))
                .isEqualTo(1007);
    }

    @Test
    void anEmptyMessageCompressesToAnEmptyPayload() {
        assertThat(PerMessageDeflate.compress(new Deflater(6, true), new byte[0], 0, 0)).containsExactly(0x00);
        List<String> seen = new ArrayList<>();
        FrameReader reader = reader(seen, true);
        reader.read(ByteBuffer.wrap(masked(true, true, BINARY, new byte[] {0x00})));
        reader.read(ByteBuffer.wrap(masked(true, true, BINARY, new byte[0])));
        assertThat(seen).containsExactly("binary:", "binary:");
    }

    private static FrameReader reader(List<String> seen, boolean resetPerMessage) {
        MessageReaderTest.Events events = new MessageReaderTest.Events();
        MessageReader.Listener recording = new MessageReader.Listener() {
            @Override
            public void text(String message) {
                seen.add("text:" + message);
            }

            @Override
            public void binary(ByteBuffer message) {
                events.binary(message);
                seen.add(events.seen.removeLast());
            }

            @Override
            public void ping(ByteBuffer payload) {
            }

            @Override
            public void pong(ByteBuffer payload) {
            }

            @Override
            public void close(int code, String reason) {
            }
        };
        FrameReader reader = new FrameReader(new MessageReader(recording, LIMIT, new Inflater(true), resetPerMessage), true, LIMIT);
        reader.allowRsv1();
        return reader;
    }

    private static byte[] masked(boolean fin, boolean rsv1, int opcode, byte[] payload) {
        return WebSocketFrames.frame(fin, rsv1, opcode, payload, MASKS);
    }

    /** A client's compression that keeps its context: sync-flushed, the tail left off. */
    private static byte[] syncFlushed(Deflater deflater, byte[] message) {
        deflater.setInput(message);
        byte[] out = new byte[message.length + 64];
        int n = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        return Arrays.copyOf(out, n - 4);
    }

    private static int failure(Runnable read) {
        try {
            read.run();
        } catch (WebSocketException e) {
            return e.closeCode();
        }
        return -1;
    }
}
