// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.exchange.HttpStatus;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ResponseEncoderTest {
    /** Every status line is encoded once, with the status's reason phrase (none for an unregistered code). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {100, 200, 204, 304, 404, 418, 431, 499, 503, 599})
    void statusLinesCarryTheReasonPhrase(int status) {
        assertThat(new String(ResponseEncoder.statusLine(status), StandardCharsets.US_ASCII))
                .isEqualTo("HTTP/1.1 " + status + " " + HttpStatus.reason(status) + "\r\n");
    }
}
