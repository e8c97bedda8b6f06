package dev.spindle.core.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HpackDecoderTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static List<String> decode(HpackDecoder decoder, String block) throws HpackException {
        List<String> fields = new ArrayList<>();
        byte[] bytes = hex(block);
        assertThat(decoder.decode(bytes, 0, bytes.length, (n, v) -> fields.add(n + ": " + v))).isTrue();
        return fields;
    }

    /** RFC 7541 C.2: one field per block, each representation; the table size after it. */
    static Stream<Arguments> appendixC2() {
        return Stream.of(
                Arguments.of("C.2.1 literal with indexing", "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
                        "custom-key: custom-header", 55),
                Arguments.of("C.2.2 literal without indexing", "040c 2f73 616d 706c 652f 7061 7468", ":path: /sample/path", 0),
                Arguments.of("C.2.3 literal never indexed", "1008 7061 7373 776f 7264 0673 6563 7265 74", "password: secret", 0),
                Arguments.of("C.2.4 indexed", "82", ":method: GET", 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("appendixC2")
    void appendixC2(String example, String block, String field, long tableSize) throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        assertThat(decode(decoder, block)).containsExactly(field);
        assertThat(decoder.tableSize()).isEqualTo(tableSize);
    }

    /** RFC 7541 C.3: three requests on one connection, without Huffman coding; the table carries over. */
    @Test
    void appendixC3() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        assertThat(decode(decoder, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(decoder.tableSize()).isEqualTo(57);
        assertThat(decode(decoder, "8286 84be 5808 6e6f 2d63 6163 6865"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(decoder.tableSize()).isEqualTo(110);
        assertThat(decode(decoder, "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                        "custom-key: custom-value");
        assertThat(decoder.tableSize()).isEqualTo(164);
        assertThat(decoder.tableLength()).isEqualTo(3);
    }

    /** RFC 7541 C.1: integers with a prefix (10 in 5 bits, 1337 over three octets), here as a table size update and an index. */
    @Test
    void integersWithAPrefix() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        // 1337 = 0x1f 0x9a 0x0a with a 5-bit prefix: a size update to 1337, then :method GET
        assertThat(decode(decoder, "3f 9a 0a 82")).containsExactly(":method: GET");
        // index 10 in a 7-bit prefix: the static table's :status 206
        assertThat(decode(decoder, "8a")).containsExactly(":status: 206");
    }

    /** Evicting the oldest entries when a new one does not fit, and emptying the table for one larger than it. */
    @Test
    void theTableEvictsTheOldestEntries() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(110, 65536);
        decode(decoder, "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d");
        decode(decoder, "8286 84be 5808 6e6f 2d63 6163 6865");
        assertThat(decoder.tableSize()).isEqualTo(110);
        // custom-key: custom-value (54) evicts :authority (57), the oldest
        assertThat(decode(decoder, "400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65 be"))
                .containsExactly("custom-key: custom-value", "custom-key: custom-value");
        assertThat(decoder.tableSize()).isEqualTo(107);
        assertThat(decode(decoder, "bf")).containsExactly("cache-control: no-cache");
        // a size update to 0 empties it
        decode(decoder, "20");
        assertThat(decoder.tableLength()).isZero();
    }

    static Stream<Arguments> malformedBlocks() {
        return Stream.of(
                Arguments.of("index 0", "80", "index 0 is not in the table"),
                Arguments.of("an index past the table", "be", "index 62 is not in the table"),
                Arguments.of("a size update after a field", "82 20", "after a header field"),
                Arguments.of("a size update above the setting", "3fe21f", "update to 4097, above the 4096 allowed"),
                Arguments.of("a string past the end", "0003 6162", "runs past the end"),
                Arguments.of("a missing value", "0001 61", "missing at the end"),
                Arguments.of("an unfinished integer", "ff", "past the end of the block"),
                Arguments.of("an integer beyond 2^31-1", "ff ff ff ff ff 0f", "above 2^31-1"),
                Arguments.of("a Huffman-coded string", "0081 ff 00", "Huffman"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBlocks")
    void malformedBlocksAreCompressionErrors(String what, String block, String message) {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        byte[] bytes = hex(block);
        assertThatThrownBy(() -> decoder.decode(bytes, 0, bytes.length, (n, v) -> { }))
                .isInstanceOf(HpackException.class).hasMessageContaining(message);
    }

    /**
     * An HPACK bomb: fields past the header list limit are neither created nor handed on, yet the
     * block is decoded to its end, so an entry it indexed is there for the next block.
     */
    @Test
    void aHeaderListPastTheLimitStopsHandingOnFieldsButKeepsTheTableInStep() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 100);
        List<String> fields = new ArrayList<>();
        // :method GET (42), then custom-key: custom-value indexed (54): 96; then custom-key: custom-header
        // without indexing (55) passes 100
        byte[] block = hex("82 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"
                + " 000a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572 be");
        assertThat(decoder.decode(block, 0, block.length, (n, v) -> fields.add(n + ": " + v))).isFalse();
        assertThat(fields).containsExactly(":method: GET", "custom-key: custom-value");
        assertThat(decoder.tableLength()).isEqualTo(1);
        assertThat(decode(decoder, "be")).containsExactly("custom-key: custom-value");
    }
}
