// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Utf8ValidatorTest {
    static Stream<Arguments> sequences() {
        // hex bytes, whether UTF-8, where the first invalid byte is (-1: at the end, cut short; n/a when valid)
        return Stream.of(
                Arguments.of("", true, 0),
                Arguments.of("48656c6c6f", true, 0),
                Arguments.of("cebae1bdb9cf83cebcceb5", true, 0),                 // κόσμε
                Arguments.of("c2a0", true, 0),
                Arguments.of("dfbf", true, 0),
                Arguments.of("e0a080", true, 0),
                Arguments.of("ed9fbf", true, 0),                                 // U+D7FF, below the surrogates
                Arguments.of("ee8080", true, 0),                                 // U+E000, above them
                Arguments.of("efbfbf", true, 0),
                Arguments.of("f0908080", true, 0),
                Arguments.of("f48fbfbf", true, 0),                               // U+10FFFF
                Arguments.of("f09f9880", true, 0),                               // an emoji
                Arguments.of("80", false, 0),                                    // a continuation with nothing before
                Arguments.of("41bf", false, 1),
                Arguments.of("c080", false, 0),                                  // overlong NUL
                Arguments.of("c1bf", false, 0),
                Arguments.of("e08080", false, 1),                                // overlong three-byte
                Arguments.of("e09fbf", false, 1),
                Arguments.of("f08f8080", false, 1),                              // overlong four-byte
                Arguments.of("eda080", false, 1),                                // U+D800
                Arguments.of("edbfbf", false, 1),                                // U+DFFF
                Arguments.of("eda080edb080", false, 1),                          // a surrogate pair in CESU form
                Arguments.of("f4908080", false, 1),                              // U+110000
                Arguments.of("f5808080", false, 0),
                Arguments.of("fe", false, 0),
                Arguments.of("ff", false, 0),
                Arguments.of("c241", false, 1),                                  // a lead byte without its continuation
                Arguments.of("e28241", false, 2),
                Arguments.of("cebae1bdb9cf83cebcceb5eda080656469746564", false, 12),
                Arguments.of("e282", false, -1),                                 // cut short
                Arguments.of("f09f98", false, -1),
                Arguments.of("c2", false, -1));
    }

    /** Every sequence checked in two pieces split at every byte: the same verdict, at the same byte. */
    @ParameterizedTest(name = "{0}: UTF-8 {1}")
    @MethodSource("sequences")
    void validatesAtTheFirstInvalidByteWhereverTheInputIsSplit(String hex, boolean valid, int firstBad) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        for (int split = 0; split <= bytes.length; split++) {
            Utf8Validator v = new Utf8Validator();
            int rejectedAt = -1;
            for (int i = 0; i < bytes.length && rejectedAt < 0; i++) {
                boolean first = i < split;
                if (!(first ? v.accept(bytes, i, 1) : v.accept(ByteBuffer.wrap(bytes, i, 1)))) {
                    rejectedAt = i;
                }
            }
            if (valid) {
                assertThat(rejectedAt).as("split at %d", split).isEqualTo(-1);
                assertThat(v.complete()).isTrue();
            } else if (firstBad >= 0) {
                assertThat(rejectedAt).as("split at %d", split).isEqualTo(firstBad);
                assertThat(v.accept(new byte[] {0x41}, 0, 1)).as("refused for good").isFalse();
            } else {
                assertThat(rejectedAt).isEqualTo(-1);
                assertThat(v.complete()).as("cut short").isFalse();
            }
            Utf8Validator whole = new Utf8Validator();
            assertThat(whole.accept(bytes, 0, bytes.length) && whole.complete()).isEqualTo(valid);
        }
    }

    /** Against the JDK's decoder, on random bytes biased towards lead and continuation bytes. */
    @Test
    void agreesWithTheJdkDecoderOnRandomInput() {
        Random random = new Random(6455);
        int[] pool = {0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF};
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(7)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) pool[random.nextInt(pool.length)];
            }
            Utf8Validator v = new Utf8Validator();
            boolean ours = v.accept(ByteBuffer.wrap(bytes)) && v.complete();
            assertThat(ours).as(HexFormat.of().formatHex(bytes)).isEqualTo(jdkAccepts(bytes));
        }
    }

    @Test
    void resetForgetsAFailure() {
        Utf8Validator v = new Utf8Validator();
        assertThat(v.accept(new byte[] {(byte) 0xFF}, 0, 1)).isFalse();
        v.reset();
        assertThat(v.accept(new byte[] {0x41}, 0, 1)).isTrue();
        assertThat(v.complete()).isTrue();
    }

    private static boolean jdkAccepts(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
