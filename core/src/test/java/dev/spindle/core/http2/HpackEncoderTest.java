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

class HpackEncoderTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Encodes one response block from "name: value" lines, :status through {@link HpackEncoder#status}. */
    private static byte[] block(HpackEncoder encoder, List<String> fields) {
        WireBuffer out = new WireBuffer(16);
        encoder.beginBlock(out);
        for (String field : fields) {
            int colon = field.indexOf(": ", 1);
            String name = field.substring(0, colon);
            String value = field.substring(colon + 2);
            if (name.equals(":status")) {
                encoder.status(Integer.parseInt(value), out);
            } else {
                encoder.header(latin1(name), latin1(value), out);
            }
        }
        return out.toArray();
    }

    private static byte[] single(HpackEncoder encoder, String name, String value) {
        WireBuffer out = new WireBuffer(16);
        encoder.beginBlock(out);
        encoder.header(name, value, out);
        return out.toArray();
    }

    private static List<String> decode(HpackDecoder decoder, byte[] block) throws HpackException {
        List<String> fields = new ArrayList<>();
        assertThat(decoder.decode(block, 0, block.length, HpackDecoderTest.collect(fields))).isTrue();
        return fields;
    }

    /**
     * RFC 7541 C.5 (no Huffman) and C.6 (Huffman) byte for byte, with the examples' choices: every
     * literal indexed, every string Huffman-coded or none, a 256-octet table. ("When shorter" would
     * differ in C.6.2, whose "307" is three octets either way.)
     */
    static Stream<Arguments> appendixC5AndC6() {
        return Stream.of(
                Arguments.of("C.5", HpackEncoder.Huffman.NEVER, RfcResponses.C5_1, RfcResponses.C5_2, RfcResponses.C5_3),
                Arguments.of("C.6", HpackEncoder.Huffman.ALWAYS, RfcResponses.C6_1, RfcResponses.C6_2, RfcResponses.C6_3));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("appendixC5AndC6")
    void appendixC5AndC6(String section, HpackEncoder.Huffman huffman, String first, String second, String third) {
        HpackEncoder encoder = new HpackEncoder(256, true, huffman);
        assertThat(block(encoder, RfcResponses.FIRST)).isEqualTo(hex(first));
        assertThat(encoder.tableSize()).isEqualTo(222);
        assertThat(block(encoder, RfcResponses.SECOND)).isEqualTo(hex(second));
        assertThat(encoder.tableSize()).isEqualTo(222);
        assertThat(block(encoder, RfcResponses.THIRD)).isEqualTo(hex(third));
        assertThat(encoder.tableSize()).isEqualTo(215);
        assertThat(HpackDecoderTest.dynamicTable(encoder.table())).containsExactly(
                "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
                "content-encoding: gzip", "date: Mon, 21 Oct 2013 20:13:22 GMT");
    }

    /** The default policy's choice per field, and what it is the second time, each on a fresh encoder. */
    static Stream<Arguments> representations() {
        return Stream.of(
                // a whole static entry: one index, the table untouched
                Arguments.of("a static field", "accept-ranges", "", "92", "92", 0),
                Arguments.of("a static name with a new value", "cache-control", "private",
                        "58 85 aec3 771a 4b", "be", 52),
                Arguments.of("date is indexed: it holds for a second", "date", "Mon, 21 Oct 2013 20:13:21 GMT",
                        "61 96 d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff", "be", 65),
                Arguments.of("content-length is not indexed, with its static name", "content-length", "1234",
                        "0f0d 83 0899 6b", "0f0d 83 0899 6b", 0),
                Arguments.of("content-range is not indexed", "content-range", "bytes 0-9/10",
                        "0f0f 89 8fd2 4a85 00b3 ec04 1f", "0f0f 89 8fd2 4a85 00b3 ec04 1f", 0),
                Arguments.of("a new name: literal, indexed", "custom-key", "custom-value",
                        "40 88 25a8 49e9 5ba9 7d7f 89 25a8 49e9 5bb8 e8b4 bf", "be", 54),
                Arguments.of("a string Huffman would lengthen is sent as is", "x-b", "{}",
                        "40 03 782d 62 02 7b7d", "be", 37),
                Arguments.of("a field of more than half the table is not indexed", "x-big", "v".repeat(2020),
                        null, null, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("representations")
    void theDefaultPolicyChoosesARepresentationPerField(String what, String name, String value, String first,
            String second, long tableSize) throws HpackException {
        HpackEncoder encoder = new HpackEncoder(4096);
        HpackDecoder decoder = new HpackDecoder(4096, 1 << 20);
        byte[] firstBlock = single(encoder, name, value);
        if (first != null) {
            assertThat(firstBlock).isEqualTo(hex(first));
        }
        assertThat(encoder.tableSize()).isEqualTo(tableSize);
        byte[] secondBlock = single(encoder, name, value);
        if (second != null) {
            assertThat(secondBlock).isEqualTo(hex(second));
        } else {
            assertThat(secondBlock).isEqualTo(firstBlock);
        }
        assertThat(decode(decoder, firstBlock)).containsExactly(name + ": " + value);
        assertThat(decode(decoder, secondBlock)).containsExactly(name + ": " + value);
        assertThat(decoder.tableSize()).isEqualTo(tableSize);
    }

    static Stream<Arguments> statuses() {
        return Stream.of(
                Arguments.of(200, "88", "88"), Arguments.of(204, "89", "89"), Arguments.of(206, "8a", "8a"),
                Arguments.of(304, "8b", "8b"), Arguments.of(400, "8c", "8c"), Arguments.of(404, "8d", "8d"),
                Arguments.of(500, "8e", "8e"),
                // not in the static table: the static name and the value, indexed, so one octet next time
                // (503 is as long Huffman-coded as plain, so plain)
                Arguments.of(302, "48 82 6402", "be"), Arguments.of(103, "48 82 0819", "be"),
                Arguments.of(503, "48 03 353033", "be"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void status(int code, String first, String second) throws HpackException {
        HpackEncoder encoder = new HpackEncoder(4096);
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        for (String expected : new String[] {first, second}) {
            WireBuffer out = new WireBuffer(8);
            encoder.beginBlock(out);
            encoder.status(code, out);
            assertThat(out.toArray()).isEqualTo(hex(expected));
            assertThat(decode(decoder, out.toArray())).containsExactly(":status: " + code);
        }
    }

    @Test
    void aStatusOutsideThreeDigitsIsRefused() {
        HpackEncoder encoder = new HpackEncoder(4096);
        assertThatThrownBy(() -> encoder.status(1000, new WireBuffer(8))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> encoder.status(99, new WireBuffer(8))).isInstanceOf(IllegalArgumentException.class);
    }

    /** Sensitive fields: never indexed (0x10 with a 4-bit name index), with the name index when there is one, every time. */
    @Test
    void aSensitiveFieldIsNeverIndexed() throws HpackException {
        HpackEncoder encoder = new HpackEncoder(4096);
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        for (int i = 0; i < 2; i++) {
            WireBuffer out = new WireBuffer(16);
            encoder.beginBlock(out);
            encoder.headerNeverIndexed(latin1("set-cookie"), latin1("id=1"), out);
            encoder.headerNeverIndexed("x-token", "ab", out);
            // set-cookie is static 55 = 15 + 40; x-token has no index and goes as a literal name
            assertThat(out.toArray()).isEqualTo(hex("1f28 83 3490 07 10 86 f2b2 4fd4 b57f 02 6162"));
            assertThat(decode(decoder, out.toArray())).containsExactly("set-cookie: id=1", "x-token: ab");
        }
        assertThat(encoder.tableSize()).isZero();
        assertThat(decoder.tableSize()).isZero();
    }

    @Test
    void aSensitiveFieldAlreadyInTheTableIsStillSentAsNeverIndexed() {
        HpackEncoder encoder = new HpackEncoder(4096, false, HpackEncoder.Huffman.NEVER);
        single(encoder, "x-a", "b");
        WireBuffer out = new WireBuffer(16);
        encoder.headerNeverIndexed("x-a", "b", out);
        // the name by its dynamic index, 62 = 15 + 47
        assertThat(out.toArray()).isEqualTo(hex("1f2f 01 62"));
    }

    @Test
    void upperCaseNamesAndCharactersBeyondLatin1AreRefused() {
        HpackEncoder encoder = new HpackEncoder(4096);
        WireBuffer out = new WireBuffer(16);
        assertThatThrownBy(() -> encoder.header(latin1("Content-Type"), latin1("text/plain"), out))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upper case");
        assertThatThrownBy(() -> encoder.header("x-a", "\u20ac", out)).isInstanceOf(IllegalArgumentException.class);
        assertThat(out.pending()).isZero();
    }

    @Test
    void aByteRangeHeaderUsesOnlyItsRange() throws HpackException {
        HpackEncoder encoder = new HpackEncoder(4096);
        byte[] both = latin1("..x-name..value..");
        WireBuffer out = new WireBuffer(16);
        encoder.beginBlock(out);
        encoder.header(both, 2, 6, both, 10, 5, out);
        // the array is reused afterwards: the table keeps its own copy
        both[10] = 'V';
        encoder.header(latin1("x-name"), latin1("value"), out);
        assertThat(decode(new HpackDecoder(4096, 65536), out.toArray())).containsExactly("x-name: value", "x-name: value");
        assertThat(out.toArray()[out.pending() - 1]).isEqualTo((byte) 0xbe);
    }

    /** Size updates (RFC 7541 4.2, 6.3): at the start of the next block, the lowest first if the size went down and up. */
    static Stream<Arguments> sizeUpdates() {
        return Stream.of(
                Arguments.of("none at first", 4096, new long[] {}, ""),
                Arguments.of("none at first for a smaller table either", 256, new long[] {}, ""),
                Arguments.of("down", 4096, new long[] {100}, "3f45"),
                Arguments.of("down to zero", 4096, new long[] {0}, "20"),
                Arguments.of("down and up again: the minimum first", 4096, new long[] {0, 4096}, "20 3fe11f"),
                Arguments.of("down, lower, up a little", 4096, new long[] {1000, 10, 100}, "2a 3f45"),
                Arguments.of("the same value again: nothing to say", 4096, new long[] {4096}, ""),
                Arguments.of("above our own maximum: our own", 4096, new long[] {65536}, ""),
                Arguments.of("own maximum below the peer's: said once the peer speaks", 256, new long[] {4096}, "3fe101"),
                Arguments.of("a peer setting below our maximum", 256, new long[] {100}, "3f45"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sizeUpdates")
    void sizeUpdates(String what, int ownMax, long[] peerValues, String expected) throws HpackException {
        HpackEncoder encoder = new HpackEncoder(ownMax);
        HpackDecoder decoder = new HpackDecoder(65536, 65536);
        for (long value : peerValues) {
            encoder.peerMaxTableSize(value);
        }
        WireBuffer out = new WireBuffer(8);
        encoder.beginBlock(out);
        assertThat(out.toArray()).isEqualTo(hex(expected));
        encoder.status(200, out);
        assertThat(decode(decoder, out.toArray())).containsExactly(":status: 200");
        WireBuffer next = new WireBuffer(8);
        encoder.beginBlock(next);
        assertThat(next.pending()).as("owed once only").isZero();
    }

    @Test
    void aSmallerTableEvictsOnBothSides() throws HpackException {
        HpackEncoder encoder = new HpackEncoder(4096);
        HpackDecoder decoder = new HpackDecoder(4096, 65536);
        decode(decoder, single(encoder, "x-one", "1"));
        decode(decoder, single(encoder, "x-two", "2"));
        assertThat(encoder.table().dynamicLength()).isEqualTo(2);
        // room for one 38-octet entry, then back up: x-one is gone on both sides
        encoder.peerMaxTableSize(40);
        encoder.peerMaxTableSize(4096);
        byte[] block = single(encoder, "x-one", "1");
        assertThat(block[0]).as("a size update first").isEqualTo((byte) 0x3f);
        assertThat(decode(decoder, block)).containsExactly("x-one: 1");
        assertThat(HpackDecoderTest.dynamicTable(decoder.table())).containsExactly("x-one: 1", "x-two: 2");
        assertThat(HpackDecoderTest.dynamicTable(encoder.table())).containsExactly("x-one: 1", "x-two: 2");
    }

    /** Encoding a response whose fields are in the table, or never indexed, allocates nothing. */
    @Test
    void encodingAllocatesNothingOnceFieldsAreInTheTable() throws Exception {
        HpackEncoder encoder = new HpackEncoder(4096);
        byte[] contentType = latin1("content-type");
        byte[] json = latin1("application/json");
        byte[] contentLength = latin1("content-length");
        byte[] length = latin1("1234");
        byte[] setCookie = latin1("set-cookie");
        byte[] cookie = latin1("id=12345");
        WireBuffer out = new WireBuffer(256);
        Allocations.Body response = () -> {
            encoder.beginBlock(out);
            encoder.status(200, out);
            encoder.status(302, out);
            encoder.header(contentType, json, out);
            encoder.header("server", "spindle", out);
            encoder.header(contentLength, length, out);
            encoder.headerNeverIndexed(setCookie, cookie, out);
            out.written(out.pending());
        };
        for (int i = 0; i < 20_000; i++) {
            response.run();
        }
        long allocated = Allocations.of(() -> {
            for (int i = 0; i < 10_000; i++) {
                response.run();
            }
        });
        assertThat(allocated).isLessThan(10_000);
    }

    static Stream<Arguments> roundTrips() {
        return Stream.of(
                Arguments.of(4096, false, HpackEncoder.Huffman.WHEN_SHORTER),
                Arguments.of(256, false, HpackEncoder.Huffman.WHEN_SHORTER),
                Arguments.of(0, false, HpackEncoder.Huffman.WHEN_SHORTER),
                Arguments.of(512, true, HpackEncoder.Huffman.ALWAYS),
                Arguments.of(300, true, HpackEncoder.Huffman.NEVER));
    }

    /**
     * Random header lists (fixed seed) through the encoder and back through the decoder, over many
     * blocks on one connection, with the peer's table size changing now and then: every list comes
     * back as sent, and the encoder's table is always the newest part of the decoder's.
     */
    @ParameterizedTest(name = "own table {0}, index everything {1}, Huffman {2}")
    @MethodSource("roundTrips")
    void roundTrips(int ownMax, boolean indexEverything, HpackEncoder.Huffman huffman) throws HpackException {
        Random random = new Random(7541L * 31 + ownMax);
        HpackEncoder encoder = new HpackEncoder(ownMax, indexEverything, huffman);
        HpackDecoder decoder = new HpackDecoder(4096, 1 << 20);
        String[] names = {"content-type", "cache-control", "date", "server", "set-cookie", "x-request-id", "vary",
            "content-length", "etag", "x-custom", "location", "content-encoding", "x-" + "long".repeat(20)};
        String[] values = {"text/plain", "application/json", "no-cache", "gzip", "spindle", "", "accept-encoding",
            "Mon, 21 Oct 2013 20:13:21 GMT", "\"abc\"", "v".repeat(500)};
        int[] statuses = {200, 204, 301, 302, 304, 404, 418, 500, 503};
        for (int blockNumber = 0; blockNumber < 400; blockNumber++) {
            if (random.nextInt(10) == 0) {
                for (int changes = 1 + random.nextInt(2); changes > 0; changes--) {
                    encoder.peerMaxTableSize(random.nextInt(5) == 0 ? 0 : random.nextInt(4097));
                }
            }
            WireBuffer out = new WireBuffer(64);
            List<String> sent = new ArrayList<>();
            encoder.beginBlock(out);
            int status = statuses[random.nextInt(statuses.length)];
            encoder.status(status, out);
            sent.add(":status: " + status);
            for (int fields = random.nextInt(12); fields > 0; fields--) {
                String name = names[random.nextInt(names.length)];
                String value = switch (random.nextInt(4)) {
                    case 0 -> Integer.toString(random.nextInt(100_000));
                    case 1 -> randomLatin1(random);
                    default -> values[random.nextInt(values.length)];
                };
                switch (random.nextInt(4)) {
                    case 0 -> encoder.header(name, value, out);
                    case 1 -> encoder.headerNeverIndexed(latin1(name), latin1(value), out);
                    default -> encoder.header(latin1(name), latin1(value), out);
                }
                sent.add(name + ": " + value);
            }
            assertThat(decode(decoder, out.toArray())).as("block %d", blockNumber).containsExactlyElementsOf(sent);
            List<String> encoderTable = HpackDecoderTest.dynamicTable(encoder.table());
            List<String> decoderTable = HpackDecoderTest.dynamicTable(decoder.table());
            assertThat(decoderTable.size()).as("block %d", blockNumber).isGreaterThanOrEqualTo(encoderTable.size());
            assertThat(decoderTable.subList(0, encoderTable.size()))
                    .as("block %d", blockNumber).isEqualTo(encoderTable);
            assertThat(encoder.tableSize()).isLessThanOrEqualTo(encoder.table().maxSize());
        }
    }

    private static String randomLatin1(Random random) {
        char[] chars = new char[random.nextInt(30)];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) (random.nextBoolean() ? 0x20 + random.nextInt(0x5f) : random.nextInt(0x100));
        }
        return new String(chars);
    }

    /**
     * Fields sent by identity ({@code headerConstant}) decode as sent through every table change:
     * a repeated one is one indexed octet, a new date array replaces the last, and an entry evicted
     * by later ones (a 256-octet table) is never referred to again.
     */
    @Test
    void constantFieldsAreFoundByIdentityAndNeverReferToAnEvictedEntry() throws HpackException {
        byte[] server = "server".getBytes(StandardCharsets.US_ASCII);
        byte[] spindle = "spindle".getBytes(StandardCharsets.US_ASCII);
        byte[] date = "date".getBytes(StandardCharsets.US_ASCII);
        HpackEncoder encoder = new HpackEncoder(256);
        HpackDecoder decoder = new HpackDecoder(256, 65536);
        byte[] today = null;
        for (int block = 0; block < 200; block++) {
            if (block % 7 == 0) {
                today = ("Fri, 27 Nov 2026 02:" + (10 + block / 7) + ":00 GMT").getBytes(StandardCharsets.US_ASCII);
            }
            WireBuffer out = new WireBuffer(64);
            encoder.beginBlock(out);
            encoder.headerConstant(server, spindle, out);
            encoder.headerConstant(date, today, out);
            // fields of its own in between push older entries out of the small table
            encoder.header(("x-" + block).getBytes(StandardCharsets.US_ASCII), "v".repeat(40 + block % 50).getBytes(StandardCharsets.US_ASCII), out);
            encoder.contentLength(Integer.toString(block).getBytes(StandardCharsets.US_ASCII), out);
            byte[] bytes = out.toArray();
            assertThat(decode(decoder, bytes)).as("block %d", block).containsExactly("server: spindle",
                    "date: " + new String(today, StandardCharsets.US_ASCII), "x-" + block + ": " + "v".repeat(40 + block % 50),
                    "content-length: " + block);
            if (block == 1) {
                assertThat(bytes[0] & 0x80).as("a repeated constant is an indexed field").isNotZero();
            }
        }
    }
}
