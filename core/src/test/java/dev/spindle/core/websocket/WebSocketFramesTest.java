// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WebSocketFramesTest {
    /** RFC 6455 5.7's examples: a server's unmasked "Hello", a client's masked one. */
    @Test
    void writesTheFramesOfRfc6455Section57() {
        assertThat(HexFormat.of().formatHex(WebSocketFrames.frame(true, false, WebSocketFrames.TEXT,
                "Hello".getBytes(StandardCharsets.US_ASCII), null))).isEqualTo("810548656c6c6f");
        ByteBuffer masked = ByteBuffer.allocate(11);
        WebSocketFrames.writeHeader(masked, true, false, WebSocketFrames.TEXT, 5, true, 0x37fa213d);
        masked.put("Hello".getBytes(StandardCharsets.US_ASCII));
        WebSocketFrames.mask(masked, 6, 11, 0x37fa213d, 0);
        assertThat(HexFormat.of().formatHex(masked.array())).isEqualTo("818537fa213d7f9f4d5158");
    }

    @ParameterizedTest(name = "payload {0}: header {1}")
    @CsvSource({"0, 8100", "125, 817d", "126, 817e007e", "65535, 817effff", "65536, 817f0000000000010000"})
    void theLengthTakesTheShortestForm(long length, String header) {
        ByteBuffer out = ByteBuffer.allocate(WebSocketFrames.MAX_HEADER_LENGTH);
        WebSocketFrames.writeHeader(out, true, false, WebSocketFrames.TEXT, length, false, 0);
        assertThat(HexFormat.of().formatHex(out.array(), 0, out.position())).isEqualTo(header);
        assertThat(WebSocketFrames.headerLength(length, false)).isEqualTo(out.position());
        assertThat(WebSocketFrames.headerLength(length, true)).isEqualTo(out.position() + 4);
    }

    /** Masking in pieces, at every phase and in either byte order, equals masking byte by byte. */
    @Test
    void maskingInPiecesEqualsMaskingWhole() {
        Random random = new Random(5);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[random.nextInt(40)];
            random.nextBytes(data);
            int mask = random.nextInt();
            byte[] expected = data.clone();
            for (int i = 0; i < expected.length; i++) {
                expected[i] ^= (byte) (mask >>> (8 * (3 - (i & 3))));
            }
            ByteBuffer buf = ByteBuffer.wrap(data.clone()).order(round % 2 == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
            int split = data.length == 0 ? 0 : random.nextInt(data.length + 1);
            WebSocketFrames.mask(buf, 0, split, mask, 0);
            WebSocketFrames.mask(buf, split, data.length, mask, split);
            assertThat(buf.array()).isEqualTo(expected);
        }
    }

    @Test
    void aCloseReasonIsCutWhereACharacterEndsToFit125Bytes() {
        byte[] payload = WebSocketFrames.closePayload(1001, "\u00e9".repeat(100));
        assertThat(payload).hasSize(124);   // the code, then 61 two-byte characters: a 62nd would make 126
        assertThat(ByteBuffer.wrap(payload).getShort()).isEqualTo((short) 1001);
        assertThat(WebSocketFrames.reason(ByteBuffer.wrap(payload))).isEqualTo("\u00e9".repeat(61));
        assertThat(WebSocketFrames.closePayload(1000, null)).containsExactly(0x03, 0xE8);
        assertThatThrownBy(() -> WebSocketFrames.closePayload(1005, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1005");
    }
}
