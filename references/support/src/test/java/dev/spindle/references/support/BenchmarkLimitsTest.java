package dev.spindle.references.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.spi.BenchmarkApp;
import org.junit.jupiter.api.Test;

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
}
