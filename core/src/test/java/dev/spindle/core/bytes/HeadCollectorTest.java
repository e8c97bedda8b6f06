// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bytes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeadCollectorTest {
    private static final String HEAD = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n";

    /**
     * The head and what follows it ({@code after}, {@code times} over), cut before each index of the
     * head that the table names; the last piece ends the head and holds all that follows it.
     */
    @ParameterizedTest(name = "{0}: cut at {1}")
    @CsvSource(delimiter = '|', textBlock = """
            whole, nothing after      | ''          | ''                    | 1
            whole, bytes after        | ''          | rest                  | 1
            in the status line        | 5           | rest                  | 1
            before CRLFCRLF           | 52          | ''                    | 1
            after CR                  | 53          | rest                  | 1
            after CRLF                | 54          | rest                  | 1
            after CRLFCR              | 55          | rest                  | 1
            at each byte of CRLFCRLF  | 52 53 54 55 | rest                  | 1
            a blank line in the rest  | 20 40       | 'a rest\\r\\n\\r\\nx' | 1
            one byte at a time        | *           | rest                  | 1
            a rest over the first room| 10          | rest                  | 500
            a first piece over 512    | ''          | rest                  | 500
            """)
    void gathersTheHeadWhereverItIsCut(String what, String cuts, String after, int times) throws HeadCollector.TooLarge {
        String rest = after.replace("\\r", "\r").replace("\\n", "\n").repeat(times);
        HeadCollector collector = new HeadCollector();
        HeadCollector.Head head = null;
        List<ByteBuffer> pieces = pieces(bytes(HEAD + rest), cuts);
        for (int i = 0; i < pieces.size(); i++) {
            ByteBuffer piece = pieces.get(i);
            head = collector.collect(piece);
            assertThat(piece.hasRemaining()).as("every byte taken").isFalse();
            if (i < pieces.size() - 1) {
                assertThat(head).as("piece %d of %d", i + 1, pieces.size()).isNull();
                assertThat(collector.started()).isTrue();
            }
        }
        assertThat(head).isNotNull();
        assertThat(head.text()).isEqualTo(HEAD);
        assertThat(new String(head.rest(), StandardCharsets.ISO_8859_1)).isEqualTo(rest);
        assertThat(collector.started()).as("a whole head is let go").isFalse();
    }

    @Test
    void aHeadOfMaxBytesIsWholeWithWhatFollowsIt() throws HeadCollector.TooLarge {
        byte[] head = headOf(HeadCollector.MAX);
        byte[] bytes = Arrays.copyOf(head, head.length + 3);
        System.arraycopy("abc".getBytes(StandardCharsets.ISO_8859_1), 0, bytes, head.length, 3);
        HeadCollector.Head whole = new HeadCollector().collect(ByteBuffer.wrap(bytes));
        assertThat(whole.text()).hasSize(HeadCollector.MAX);
        assertThat(new String(whole.rest(), StandardCharsets.ISO_8859_1)).isEqualTo("abc");
    }

    @ParameterizedTest(name = "in pieces of {0} bytes")
    @CsvSource({"100", "4096", "16384", "20000"})
    void aHeadOverMaxBytesIsTooLarge(int piece) {
        byte[] bytes = headOf(HeadCollector.MAX + 1);
        HeadCollector collector = new HeadCollector();
        assertThatThrownBy(() -> {
            for (int at = 0; at < bytes.length; at += piece) {
                ByteBuffer src = ByteBuffer.wrap(bytes, at, Math.min(piece, bytes.length - at));
                try {
                    assertThat(collector.collect(src)).isNull();
                } finally {
                    assertThat(src.hasRemaining()).as("every byte taken").isFalse();
                }
            }
        }).isInstanceOf(HeadCollector.TooLarge.class).hasMessage("a head over 16384 bytes");
        assertThat(collector.started()).isFalse();
    }

    @Test
    void theNextHeadStartsAfresh() throws HeadCollector.TooLarge {
        HeadCollector collector = new HeadCollector();
        assertThat(collector.collect(ByteBuffer.wrap(bytes("HTTP/1.1 200 OK\r\n\r\n"))).text()).isEqualTo("HTTP/1.1 200 OK\r\n\r\n");
        assertThat(collector.collect(ByteBuffer.wrap(bytes("HTTP/1.1 101 S\r\n")))).isNull();
        assertThat(collector.collect(ByteBuffer.wrap(bytes("\r\n"))).text()).isEqualTo("HTTP/1.1 101 S\r\n\r\n");
    }

    /** {@code bytes} cut before each index in {@code cuts} (blank: none; {@code *}: every byte of the head). */
    private static List<ByteBuffer> pieces(byte[] bytes, String cuts) {
        List<Integer> at = new ArrayList<>();
        if (cuts.equals("*")) {
            for (int i = 1; i < HEAD.length(); i++) {
                at.add(i);
            }
        } else if (!cuts.isBlank()) {
            for (String cut : cuts.trim().split(" +")) {
                at.add(Integer.parseInt(cut));
            }
        }
        at.add(bytes.length);
        List<ByteBuffer> pieces = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            pieces.add(ByteBuffer.wrap(Arrays.copyOfRange(bytes, from, to)));
            from = to;
        }
        return pieces;
    }

    /** A head of exactly {@code n} bytes: a status line, one long field, the blank line. */
    private static byte[] headOf(int n) {
        String start = "HTTP/1.1 200 OK\r\nX: ";
        return bytes(start + "x".repeat(n - start.length() - 4) + "\r\n\r\n");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
