// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HpackDecoderTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    /** A sink that keeps each field as "name: value", copying out of arrays that are only valid during the call. */
    static HpackDecoder.Sink collect(List<String> fields) {
        return (name, nameOffset, nameLength, value, valueOffset, valueLength) -> fields.add(
                new String(name, nameOffset, nameLength, StandardCharsets.ISO_8859_1) + ": "
                        + new String(value, valueOffset, valueLength, StandardCharsets.ISO_8859_1));
    }

    private static List<String> decode(HpackDecoder decoder, String block) throws HpackException {
        List<String> fields = new ArrayList<>();
        byte[] bytes = hex(block);
        assertThat(decoder.decode(bytes, 0, bytes.length, collect(fields))).isTrue();
        return fields;
    }

    /** The dynamic table, newest first, as "name: value". */
    static List<String> dynamicTable(HpackTable table) {
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < table.dynamicLength(); i++) {
            int index = HpackTable.STATIC_LENGTH + 1 + i;
            entries.add(new String(table.name(index), StandardCharsets.ISO_8859_1) + ": "
                    + new String(table.value(index), StandardCharsets.ISO_8859_1));
        }
        return entries;
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

    /** RFC 7541 C.4: the requests of C.3 again, with Huffman-coded strings; the table comes out the same. */
    @Test
    void appendixC4() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        assertThat(decode(decoder, "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com");
        assertThat(dynamicTable(decoder.table())).containsExactly(":authority: www.example.com");
        assertThat(decoder.tableSize()).isEqualTo(57);
        assertThat(decode(decoder, "8286 84be 5886 a8eb 1064 9cbf"))
                .containsExactly(":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache");
        assertThat(dynamicTable(decoder.table())).containsExactly("cache-control: no-cache", ":authority: www.example.com");
        assertThat(decoder.tableSize()).isEqualTo(110);
        assertThat(decode(decoder, "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"))
                .containsExactly(":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com",
                        "custom-key: custom-value");
        assertThat(dynamicTable(decoder.table()))
                .containsExactly("custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com");
        assertThat(decoder.tableSize()).isEqualTo(164);
    }

    /** RFC 7541 C.5 and C.6: three responses with a 256-octet table, so entries are evicted; plain, then Huffman-coded. */
    static Stream<Arguments> appendixC5AndC6() {
        return Stream.of(
                Arguments.of("C.5", RfcResponses.C5_1, RfcResponses.C5_2, RfcResponses.C5_3),
                Arguments.of("C.6", RfcResponses.C6_1, RfcResponses.C6_2, RfcResponses.C6_3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("appendixC5AndC6")
    void appendixC5AndC6(String section, String first, String second, String third) throws HpackException {
        HpackDecoder decoder = new HpackDecoder(256, 65536);
        assertThat(decode(decoder, first)).containsExactlyElementsOf(RfcResponses.FIRST);
        assertThat(dynamicTable(decoder.table())).containsExactly("location: https://www.example.com",
                "date: Mon, 21 Oct 2013 20:13:21 GMT", "cache-control: private", ":status: 302");
        assertThat(decoder.tableSize()).isEqualTo(222);
        assertThat(decode(decoder, second)).containsExactlyElementsOf(RfcResponses.SECOND);
        assertThat(dynamicTable(decoder.table())).containsExactly(":status: 307", "location: https://www.example.com",
                "date: Mon, 21 Oct 2013 20:13:21 GMT", "cache-control: private");
        assertThat(decoder.tableSize()).isEqualTo(222);
        assertThat(decode(decoder, third)).containsExactlyElementsOf(RfcResponses.THIRD);
        assertThat(dynamicTable(decoder.table())).containsExactly(
                "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
                "content-encoding: gzip", "date: Mon, 21 Oct 2013 20:13:22 GMT");
        assertThat(decoder.tableSize()).isEqualTo(215);
    }

    /** A Huffman-coded name and value in one literal: the value must not overwrite the name in the scratch, even when it grows. */
    @Test
    void aHuffmanNameAndValueInOneFieldStayApart() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        String name = "x-" + "n".repeat(60);
        String value = "v".repeat(300);
        WireBuffer block = new WireBuffer(64);
        block.put(0x40);
        for (String s : new String[] {name, value}) {
            byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
            HpackEncoder.integer(block, 0x80, 7, HpackHuffman.encodedLength(bytes, 0, bytes.length));
            HpackHuffman.encode(bytes, 0, bytes.length, block);
        }
        byte[] bytes = block.toArray();
        List<String> fields = new ArrayList<>();
        assertThat(decoder.decode(bytes, 0, bytes.length, collect(fields))).isTrue();
        assertThat(fields).containsExactly(name + ": " + value);
        assertThat(dynamicTable(decoder.table())).containsExactly(name + ": " + value);
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
                Arguments.of("a Huffman-coded string past the end", "0085 ff ff", "runs past the end"));
    }

    /** Huffman-coded names and values that RFC 7541 5.2 makes errors, each as a literal with a Huffman name or value. */
    static Stream<Arguments> malformedHuffman() {
        return Stream.of(
                Arguments.of("EOS in a value", "04 84 ffff fffc", "holds EOS"),
                Arguments.of("EOS in a name", "00 85 1fff ffff ff 01 61", "holds EOS"),
                Arguments.of("more than 7 bits of padding in a value", "04 81 ff", "longer than 7 bits"),
                Arguments.of("more than 7 bits of padding in a name", "40 82 1fff 01 61", "longer than 7 bits"),
                Arguments.of("padding that is not ones in a value", "04 81 06", "not the most significant bits of EOS"),
                Arguments.of("padding that is not ones in a name", "00 82 0000 01 61", "not the most significant bits of EOS"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedHuffman")
    void malformedHuffmanStringsAreCompressionErrors(String what, String block, String message) {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        byte[] bytes = hex(block);
        assertThatThrownBy(() -> decoder.decode(bytes, 0, bytes.length, (n, no, nl, v, vo, vl) -> { }))
                .isInstanceOf(HpackException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBlocks")
    void malformedBlocksAreCompressionErrors(String what, String block, String message) {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        byte[] bytes = hex(block);
        assertThatThrownBy(() -> decoder.decode(bytes, 0, bytes.length, (n, no, nl, v, vo, vl) -> { }))
                .isInstanceOf(HpackException.class).hasMessageContaining(message);
    }

    /** Any bytes decode or fail with an HpackException: never another exception, never a write past the scratch. */
    @Test
    void randomBlocksDecodeOrFailWithACompressionError() {
        Random random = new Random(7541);
        byte[] block = new byte[64];
        int failures = 0;
        for (int round = 0; round < 20_000; round++) {
            HpackDecoder decoder = new HpackDecoder(256, 4096);
            int length = random.nextInt(block.length + 1);
            random.nextBytes(block);
            // often a Huffman-coded value after an indexed name, so that the Huffman decoder sees random bits too
            if (length > 2 && random.nextBoolean()) {
                block[0] = 0x04;
                block[1] = (byte) (0x80 | (length - 2));
            }
            try {
                decoder.decode(block, 0, length, (n, no, nl, v, vo, vl) -> { });
            } catch (HpackException e) {
                failures++;
            }
        }
        assertThat(failures).as("most random blocks are malformed").isGreaterThan(1000);
    }

    /** Decoding fields that are not indexed, Huffman-coded or not, allocates nothing once the scratch has grown. */
    @Test
    void decodingAllocatesNothingButTableEntries() throws Exception {
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        decode(decoder, "4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf");
        // indexed fields (static and dynamic), a plain literal without indexing, a Huffman one never indexed
        byte[] block = hex("8286 84be 040c 2f73 616d 706c 652f 7061 7468 1088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf");
        long[] octets = new long[1];
        HpackDecoder.Sink sink = (n, no, nl, v, vo, vl) -> octets[0] += nl + vl;
        for (int i = 0; i < 20_000; i++) {
            decoder.decode(block, 0, block.length, sink);
        }
        long allocated = Allocations.of(() -> {
            for (int i = 0; i < 10_000; i++) {
                decoder.decode(block, 0, block.length, sink);
            }
        });
        // one String per field would be well over a megabyte
        assertThat(allocated).isLessThan(10_000);
        assertThat(octets[0]).isPositive();
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
        assertThat(decoder.decode(block, 0, block.length, collect(fields))).isFalse();
        assertThat(fields).containsExactly(":method: GET", "custom-key: custom-value");
        assertThat(decoder.tableLength()).isEqualTo(1);
        assertThat(decode(decoder, "be")).containsExactly("custom-key: custom-value");
    }
}
