// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HpackHuffmanTest {
    /**
     * RFC 7541 Appendix B as printed: each symbol's code (hex, aligned to the least significant
     * bit) and its length, in symbol order, EOS last. The class derives the codes from the lengths
     * alone, so this checks both.
     */
    private static final String APPENDIX_B = """
            1ff8:13 7fffd8:23 fffffe2:28 fffffe3:28 fffffe4:28 fffffe5:28 fffffe6:28 fffffe7:28
            fffffe8:28 ffffea:24 3ffffffc:30 fffffe9:28 fffffea:28 3ffffffd:30 fffffeb:28 fffffec:28
            fffffed:28 fffffee:28 fffffef:28 ffffff0:28 ffffff1:28 ffffff2:28 3ffffffe:30 ffffff3:28
            ffffff4:28 ffffff5:28 ffffff6:28 ffffff7:28 ffffff8:28 ffffff9:28 ffffffa:28 ffffffb:28
            14:6 3f8:10 3f9:10 ffa:12 1ff9:13 15:6 f8:8 7fa:11
            3fa:10 3fb:10 f9:8 7fb:11 fa:8 16:6 17:6 18:6
            0:5 1:5 2:5 19:6 1a:6 1b:6 1c:6 1d:6
            1e:6 1f:6 5c:7 fb:8 7ffc:15 20:6 ffb:12 3fc:10
            1ffa:13 21:6 5d:7 5e:7 5f:7 60:7 61:7 62:7
            63:7 64:7 65:7 66:7 67:7 68:7 69:7 6a:7
            6b:7 6c:7 6d:7 6e:7 6f:7 70:7 71:7 72:7
            fc:8 73:7 fd:8 1ffb:13 7fff0:19 1ffc:13 3ffc:14 22:6
            7ffd:15 3:5 23:6 4:5 24:6 5:5 25:6 26:6
            27:6 6:5 74:7 75:7 28:6 29:6 2a:6 7:5
            2b:6 76:7 2c:6 8:5 9:5 2d:6 77:7 78:7
            79:7 7a:7 7b:7 7ffe:15 7fc:11 3ffd:14 1ffd:13 ffffffc:28
            fffe6:20 3fffd2:22 fffe7:20 fffe8:20 3fffd3:22 3fffd4:22 3fffd5:22 7fffd9:23
            3fffd6:22 7fffda:23 7fffdb:23 7fffdc:23 7fffdd:23 7fffde:23 ffffeb:24 7fffdf:23
            ffffec:24 ffffed:24 3fffd7:22 7fffe0:23 ffffee:24 7fffe1:23 7fffe2:23 7fffe3:23
            7fffe4:23 1fffdc:21 3fffd8:22 7fffe5:23 3fffd9:22 7fffe6:23 7fffe7:23 ffffef:24
            3fffda:22 1fffdd:21 fffe9:20 3fffdb:22 3fffdc:22 7fffe8:23 7fffe9:23 1fffde:21
            7fffea:23 3fffdd:22 3fffde:22 fffff0:24 1fffdf:21 3fffdf:22 7fffeb:23 7fffec:23
            1fffe0:21 1fffe1:21 3fffe0:22 1fffe2:21 7fffed:23 3fffe1:22 7fffee:23 7fffef:23
            fffea:20 3fffe2:22 3fffe3:22 3fffe4:22 7ffff0:23 3fffe5:22 3fffe6:22 7ffff1:23
            3ffffe0:26 3ffffe1:26 fffeb:20 7fff1:19 3fffe7:22 7ffff2:23 3fffe8:22 1ffffec:25
            3ffffe2:26 3ffffe3:26 3ffffe4:26 7ffffde:27 7ffffdf:27 3ffffe5:26 fffff1:24 1ffffed:25
            7fff2:19 1fffe3:21 3ffffe6:26 7ffffe0:27 7ffffe1:27 3ffffe7:26 7ffffe2:27 fffff2:24
            1fffe4:21 1fffe5:21 3ffffe8:26 3ffffe9:26 ffffffd:28 7ffffe3:27 7ffffe4:27 7ffffe5:27
            fffec:20 fffff3:24 fffed:20 1fffe6:21 3fffe9:22 1fffe7:21 1fffe8:21 7ffff3:23
            3fffea:22 3fffeb:22 1ffffee:25 1ffffef:25 fffff4:24 fffff5:24 3ffffea:26 7ffff4:23
            3ffffeb:26 7ffffe6:27 3ffffec:26 3ffffed:26 7ffffe7:27 7ffffe8:27 7ffffe9:27 7ffffea:27
            7ffffeb:27 ffffffe:28 7ffffec:27 7ffffed:27 7ffffee:27 7ffffef:27 7fffff0:27 3ffffee:26
            3fffffff:30
            """;

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String decode(byte[] coded) throws HpackException {
        byte[] out = new byte[HpackHuffman.maxDecodedLength(coded.length)];
        int n = HpackHuffman.decode(coded, 0, coded.length, out, 0);
        return new String(out, 0, n, StandardCharsets.ISO_8859_1);
    }

    private static byte[] encode(byte[] plain) {
        WireBuffer out = new WireBuffer(16);
        HpackHuffman.encode(plain, 0, plain.length, out);
        return out.toArray();
    }

    @Test
    void everyCodeIsTheOneAppendixBPrints() {
        String[] entries = APPENDIX_B.trim().split("\\s+");
        assertThat(entries).hasSize(257);
        for (int symbol = 0; symbol <= HpackHuffman.EOS; symbol++) {
            String[] codeAndLength = entries[symbol].split(":");
            assertThat(Integer.toHexString(HpackHuffman.code(symbol))).as("code of %d", symbol).isEqualTo(codeAndLength[0]);
            assertThat(HpackHuffman.codeLength(symbol)).as("length of %d", symbol).isEqualTo(Integer.parseInt(codeAndLength[1]));
        }
    }

    /** The Huffman-coded strings of RFC 7541 C.4 and C.6. */
    static Stream<Arguments> rfcStrings() {
        return Stream.of(
                Arguments.of("www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"),
                Arguments.of("no-cache", "a8eb 1064 9cbf"),
                Arguments.of("custom-key", "25a8 49e9 5ba9 7d7f"),
                Arguments.of("custom-value", "25a8 49e9 5bb8 e8b4 bf"),
                Arguments.of("302", "6402"),
                Arguments.of("307", "640e ff"),
                Arguments.of("private", "aec3 771a 4b"),
                Arguments.of("Mon, 21 Oct 2013 20:13:21 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"),
                Arguments.of("Mon, 21 Oct 2013 20:13:22 GMT", "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff"),
                Arguments.of("https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"),
                Arguments.of("gzip", "9bd9 ab"),
                Arguments.of("foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
                        "94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"),
                Arguments.of("", ""));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @MethodSource("rfcStrings")
    void encodesAndDecodesTheRfcExamples(String plain, String coded) throws HpackException {
        byte[] bytes = hex(coded);
        assertThat(encode(latin1(plain))).isEqualTo(bytes);
        assertThat(HpackHuffman.encodedLength(latin1(plain), 0, plain.length())).isEqualTo(bytes.length);
        assertThat(HpackHuffman.encodedLength(plain)).isEqualTo(bytes.length);
        assertThat(decode(bytes)).isEqualTo(plain);
    }

    @Test
    void everyOctetSurvivesARoundTrip() throws HpackException {
        Random random = new Random(7541);
        for (int round = 0; round < 2000; round++) {
            byte[] plain = new byte[random.nextInt(40)];
            random.nextBytes(plain);
            byte[] coded = encode(plain);
            byte[] out = new byte[HpackHuffman.maxDecodedLength(coded.length) + 3];
            // decoding at an offset into a larger array, as the decoder's scratch does
            int n = HpackHuffman.decode(coded, 0, coded.length, out, 3);
            assertThat(Arrays.copyOfRange(out, 3, 3 + n)).isEqualTo(plain);
        }
    }

    @Test
    void decodingNeverWritesPastTheLongestPossibleString() throws HpackException {
        // twelve octets of '0' (5 bits each) pack 19 symbols and one bit of padding; the bound says 19
        byte[] plain = latin1("0".repeat(19));
        byte[] coded = encode(plain);
        assertThat(coded).hasSize(12);
        byte[] out = new byte[HpackHuffman.maxDecodedLength(coded.length)];
        assertThat(out).hasSize(19);
        assertThat(HpackHuffman.decode(coded, 0, coded.length, out, 0)).isEqualTo(19);
    }

    /** RFC 7541 5.2: EOS is an error, and padding is at most 7 bits of the most significant bits of EOS (ones). */
    static Stream<Arguments> malformedStrings() {
        return Stream.of(
                Arguments.of("EOS alone", "ffff fffc", "holds EOS"),
                Arguments.of("EOS after a symbol", "1fff ffff ff", "holds EOS"),
                Arguments.of("EOS between symbols ('0', EOS, '0')", "07ff ffff fe00", "holds EOS"),
                Arguments.of("a whole octet of padding", "ff", "longer than 7 bits"),
                Arguments.of("11 bits of padding after a symbol ('a' then 11 ones)", "1fff", "longer than 7 bits"),
                Arguments.of("padding of zeros", "00 00", "not the most significant bits of EOS"),
                Arguments.of("padding of ones then a zero ('0' then 110)", "06", "not the most significant bits of EOS"),
                Arguments.of("16 ones: more than 7 bits of a code cut short", "ffff", "longer than 7 bits"),
                Arguments.of("the first 16 of the 19 bits of '\\', which are not all ones", "fffe", "not the most significant bits of EOS"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedStrings")
    void malformedStringsAreRefused(String what, String coded, String message) {
        byte[] bytes = hex(coded);
        byte[] out = new byte[HpackHuffman.maxDecodedLength(bytes.length)];
        assertThatThrownBy(() -> HpackHuffman.decode(bytes, 0, bytes.length, out, 0))
                .isInstanceOf(HpackException.class).hasMessageContaining(message);
    }
}
