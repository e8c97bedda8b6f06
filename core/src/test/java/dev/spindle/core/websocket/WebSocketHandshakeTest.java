// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WebSocketHandshakeTest {
    /** RFC 6455 1.3's example. */
    @Test
    void acceptsTheKeyOfRfc6455Section13() {
        assertThat(WebSocketHandshake.accept("dGhlIHNhbXBsZSBub25jZQ==")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(value = {"dGhlIHNhbXBsZSBub25jZQ==|true", "AAAAAAAAAAAAAAAAAAAAAA==|true", "dGhlIHNhbXBsZSBub25jZQ|false",
            "dGhlIHNhbXBsZSBub25jZQ===|false", "dGhlIHNhbXBsZSBub25jZ!==|false", "dGhlIHNhbXBsZSBub25jZXg=|false", "|false"},
            delimiter = '|')
    void aKeyIsBase64OfSixteenBytes(String key, boolean valid) {
        assertThat(WebSocketHandshake.validKey(key)).isEqualTo(valid);
    }

    @ParameterizedTest(name = "{0} has {1}: {2}")
    @CsvSource(value = {"Upgrade|upgrade|true", "keep-alive, Upgrade|upgrade|true", "keep-alive,\tUPGRADE |upgrade|true",
            "keep-alive|upgrade|false", "upgraded|upgrade|false", "websocket, h2c|websocket|true", "|websocket|false",
            "x-upgrade, close|upgrade|false"}, delimiter = '|')
    void findsATokenInAList(String list, String token, boolean found) {
        assertThat(dev.spindle.core.bytes.Ascii.listHasToken(list, token)).isEqualTo(found);
    }
}
