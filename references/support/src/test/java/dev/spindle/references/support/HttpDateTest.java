// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HttpDateTest {
    @Test
    void formatsAnImfFixdateWithATwoDigitDay() {
        // RFC 9110 5.6.7's example
        assertThat(HttpDate.format(784111777L)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
    }

    @Test
    void nowIsTheCurrentSecond() {
        long before = System.currentTimeMillis() / 1000;
        String now = new HttpDate().now();
        long after = System.currentTimeMillis() / 1000;
        assertThat(now).isIn(HttpDate.format(before), HttpDate.format(after));
    }
}
