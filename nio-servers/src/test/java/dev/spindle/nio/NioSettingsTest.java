// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static dev.spindle.core.testing.SystemProperties.withProperty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class NioSettingsTest {

    @Test
    void defaultsMatchTheDocumentedTable() {
        NioSettings s = NioSettings.defaults();
        assertThat(s.directBuffers()).isTrue();
        assertThat(s.busyPoll()).isFalse();
        assertThat(s.busyPollSpins()).isEqualTo(1000);
    }

    /** name, change, getter, expected value */
    static Stream<Arguments> withers() {
        return Stream.of(
                w("directBuffers", s -> s.directBuffers(false), NioSettings::directBuffers, false),
                w("busyPoll", s -> s.busyPoll(true), NioSettings::busyPoll, true),
                w("busyPollSpins", s -> s.busyPollSpins(13), NioSettings::busyPollSpins, 13));
    }

    private static Arguments w(String name, UnaryOperator<NioSettings> change, Function<NioSettings, Object> get, Object value) {
        return Arguments.of(name, change, get, value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withers")
    void withersReturnChangedCopiesAndKeepTheRest(String name, UnaryOperator<NioSettings> change,
            Function<NioSettings, Object> get, Object value) {
        NioSettings original = NioSettings.defaults();
        NioSettings changed = change.apply(original);
        assertThat(get.apply(changed)).isEqualTo(value);
        assertThat(original).as("the original is unchanged").isEqualTo(NioSettings.defaults());
        // every other setting is carried over from a non-default start
        NioSettings start = new NioSettings(false, true, 7);
        NioSettings both = change.apply(start);
        assertThat(get.apply(both)).isEqualTo(value);
        for (Arguments other : withers().toList()) {
            if (!other.get()[0].equals(name)) {
                @SuppressWarnings("unchecked")
                Function<NioSettings, Object> otherGet = (Function<NioSettings, Object>) other.get()[2];
                assertThat(otherGet.apply(both)).as(name + " keeps " + other.get()[0]).isEqualTo(otherGet.apply(start));
            }
        }
    }

    @Test
    void nonPositiveSpinsAreRejected() {
        assertThatThrownBy(() -> NioSettings.defaults().busyPollSpins(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("busyPollSpins");
        assertThatThrownBy(() -> new NioSettings(true, true, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** property, value, getter, expected value */
    static Stream<Arguments> properties() {
        return Stream.of(
                p("spindle.directBuffers", "false", NioSettings::directBuffers, false),
                p("spindle.directBuffers", " TRUE ", NioSettings::directBuffers, true),
                p("spindle.busyPoll", "true", NioSettings::busyPoll, true),
                p("spindle.busyPoll", "  ", NioSettings::busyPoll, false),
                p("spindle.busyPollSpins", " 50 ", NioSettings::busyPollSpins, 50),
                p("spindle.busyPollSpins", "", NioSettings::busyPollSpins, 1000));
    }

    private static Arguments p(String property, String value, Function<NioSettings, Object> get, Object expected) {
        return Arguments.of(property, value, get, expected);
    }

    @ParameterizedTest(name = "-D{0}=\"{1}\"")
    @MethodSource("properties")
    void systemPropertiesOverrideDefaults(String property, String value, Function<NioSettings, Object> get, Object expected) {
        withProperty(property, value, () -> assertThat(get.apply(NioSettings.fromSystemProperties())).isEqualTo(expected));
    }

    @Test
    void noPropertiesMeansTheDefaults() {
        assertThat(NioSettings.fromSystemProperties()).isEqualTo(NioSettings.defaults());
    }

    @ParameterizedTest(name = "-Dspindle.busyPollSpins={0}")
    @ValueSource(strings = {"many", "0", "-3"})
    void malformedOrInvalidSpinsAreRejectedNamingTheProperty(String value) {
        withProperty("spindle.busyPollSpins", value, () ->
                assertThatThrownBy(NioSettings::fromSystemProperties)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.busyPollSpins"));
    }

    @Test
    void aServerMadeWithoutSettingsReadsTheProperties() {
        Router router = Router.builder().build();
        ServerConfig config = ServerConfig.defaults().port(0);
        withProperty("spindle.busyPollSpins", "lots", () -> {
            assertThatThrownBy(() -> new MultiLoopServer(config, router))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.busyPollSpins");
            // given settings, the properties are not read
            assertThat(new MultiLoopServer(config, router, NioSettings.defaults())).isNotNull();
        });
    }
}
