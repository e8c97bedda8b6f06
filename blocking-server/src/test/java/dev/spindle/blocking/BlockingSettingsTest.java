// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static dev.spindle.core.testing.SystemProperties.withProperty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BlockingSettingsTest {

    @Test
    void defaultsMatchTheDocumentedTable() {
        assertThat(BlockingSettings.defaults().queueCapacity()).isEqualTo(1024);
    }

    @Test
    void theWitherReturnsAChangedCopy() {
        BlockingSettings original = BlockingSettings.defaults();
        assertThat(original.queueCapacity(10).queueCapacity()).isEqualTo(10);
        assertThat(original).as("the original is unchanged").isEqualTo(BlockingSettings.defaults());
    }

    @ParameterizedTest(name = "queueCapacity {0}")
    @ValueSource(ints = {0, -1})
    void nonPositiveCapacitiesAreRejected(int capacity) {
        assertThatThrownBy(() -> BlockingSettings.defaults().queueCapacity(capacity))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queueCapacity");
    }

    @ParameterizedTest(name = "-Dspindle.queueCapacity=\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', value = {"1000|1000", "' 7 '|7", "'  '|1024", "''|1024"})
    void thePropertyOverridesTheDefault(String value, int expected) {
        withProperty("spindle.queueCapacity", value,
                () -> assertThat(BlockingSettings.fromSystemProperties().queueCapacity()).isEqualTo(expected));
    }

    @Test
    void noPropertyMeansTheDefaults() {
        assertThat(BlockingSettings.fromSystemProperties()).isEqualTo(BlockingSettings.defaults());
    }

    @ParameterizedTest(name = "-Dspindle.queueCapacity={0}")
    @ValueSource(strings = {"many", "0", "-5"})
    void malformedOrInvalidPropertiesAreRejectedNamingTheProperty(String value) {
        withProperty("spindle.queueCapacity", value, () ->
                assertThatThrownBy(BlockingSettings::fromSystemProperties)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.queueCapacity"));
    }

    @Test
    void aServerMadeWithoutSettingsReadsTheProperty() {
        Router router = Router.builder().build();
        ServerConfig config = ServerConfig.defaults().port(0).workers(1);
        withProperty("spindle.queueCapacity", "none", () -> {
            assertThatThrownBy(() -> new ThreadPoolServer(config, router))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.queueCapacity");
            // given settings, the property is not read
            assertThat(new ThreadPoolServer(config, router, BlockingSettings.defaults())).isNotNull();
        });
    }
}
