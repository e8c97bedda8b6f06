// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BenchmarkLimitsTest {
    @Test
    void restatesTheBenchmarkAppsBounds() {
        assertThat(BenchmarkLimits.MAX_BLOCKING_MS).isEqualTo(BenchmarkApp.MAX_BLOCKING_MS);
        assertThat(BenchmarkLimits.MAX_DELAY_MS).isEqualTo(BenchmarkApp.MAX_DELAY_MS);
        assertThat(BenchmarkLimits.DOWNLOAD_BYTES).isEqualTo(BenchmarkApp.DOWNLOAD_BYTES);
    }

    @Test
    void quotesAsSpindlesJsonDoes() {
        for (String s : new String[] {"plain", "a\"b", "back\\slash", "line\nbreak\ttab\r", "\u0001\u001f\u2028\u2029 é"}) {
            assertThat(Fixtures.quote(s)).as(s).isEqualTo(dev.spindle.core.Json.quote(s));
        }
    }

    @ParameterizedTest(name = "{0} capped at {1} -> {2}")
    @CsvSource({
        "0, 100, 0",
        "42, 100, 42",
        "100, 100, 100",
        "101, 100, 100",
        "2147483647, 10000, 10000",
        "-1, 100, -1",
        "2147483648, 100, -1",
        "12a, 100, -1",
        "'', 100, -1",
        "+5, 100, 5",
    })
    void capsAWaitFromThePathOrRefusesIt(String raw, int max, int expected) {
        assertThat(BenchmarkLimits.cappedMillis(raw, max)).isEqualTo(expected);
    }
}
