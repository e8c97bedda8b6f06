// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

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

/** The settings alone: no ring is opened, so these run where io_uring is not available too. */
class TuningTest {
    private static final ServerConfig CONFIG = ServerConfig.defaults().readBufferSize(4096);

    @Test
    void defaultsMatchTheDocumentedTable() {
        assertThat(Tuning.defaults(CONFIG)).isEqualTo(new Tuning(2048, 8, 1024, 4096, 256 * 1024, false, 1000));
        assertThat(Tuning.fromSystemProperties(CONFIG)).as("no property set").isEqualTo(Tuning.defaults(CONFIG));
    }

    /** name, change, getter, expected value */
    static Stream<Arguments> withers() {
        return Stream.of(
                w("sqEntries", t -> t.sqEntries(64), Tuning::sqEntries, 64),
                w("cqFactor", t -> t.cqFactor(2), Tuning::cqFactor, 2),
                w("bufferRingEntries", t -> t.bufferRingEntries(4), Tuning::bufferRingEntries, 4),
                w("bufferSize", t -> t.bufferSize(256), Tuning::bufferSize, 256),
                w("sendChunk", t -> t.sendChunk(4096), Tuning::sendChunk, 4096),
                w("sqpoll", t -> t.sqpoll(true), Tuning::sqpoll, true),
                w("sqpollIdleMillis", t -> t.sqpollIdleMillis(10), Tuning::sqpollIdleMillis, 10));
    }

    private static Arguments w(String name, UnaryOperator<Tuning> change, Function<Tuning, Object> get, Object value) {
        return Arguments.of(name, change, get, value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withers")
    void withersChangeOneSettingAndKeepTheRest(String name, UnaryOperator<Tuning> change, Function<Tuning, Object> get, Object value) {
        Tuning original = Tuning.defaults(CONFIG);
        Tuning changed = change.apply(original);
        assertThat(get.apply(changed)).isEqualTo(value);
        assertThat(original).as("the original is unchanged").isEqualTo(Tuning.defaults(CONFIG));
        for (Arguments other : withers().toList()) {
            if (!other.get()[0].equals(name)) {
                @SuppressWarnings("unchecked")
                Function<Tuning, Object> otherGet = (Function<Tuning, Object>) other.get()[2];
                assertThat(otherGet.apply(changed)).as(name + " keeps " + other.get()[0]).isEqualTo(otherGet.apply(original));
            }
        }
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("sqEntries not a power of two", (UnaryOperator<Tuning>) t -> t.sqEntries(1000)),
                Arguments.of("sqEntries beyond 32768", (UnaryOperator<Tuning>) t -> t.sqEntries(65536)),
                Arguments.of("cqFactor 0", (UnaryOperator<Tuning>) t -> t.cqFactor(0)),
                Arguments.of("cqFactor 65", (UnaryOperator<Tuning>) t -> t.cqFactor(65)),
                Arguments.of("bufferRingEntries 0", (UnaryOperator<Tuning>) t -> t.bufferRingEntries(0)),
                Arguments.of("bufferSize 63", (UnaryOperator<Tuning>) t -> t.bufferSize(63)),
                Arguments.of("sendChunk 1023", (UnaryOperator<Tuning>) t -> t.sendChunk(1023)),
                Arguments.of("sqpollIdleMillis 0", (UnaryOperator<Tuning>) t -> t.sqpollIdleMillis(0)),
                Arguments.of("sqpollIdleMillis beyond a minute", (UnaryOperator<Tuning>) t -> t.sqpollIdleMillis(60_001)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void outOfRangeValuesAreRejected(String name, UnaryOperator<Tuning> change) {
        assertThatThrownBy(() -> change.apply(Tuning.defaults(CONFIG))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void propertiesOverrideTheDefaultsAndABadOneIsNamed() {
        withProperty("spindle.iouring.sqEntries", " 256 ", () ->
                assertThat(Tuning.fromSystemProperties(CONFIG).sqEntries()).isEqualTo(256));
        withProperty("spindle.iouring.sqpoll", "true", () ->
                assertThat(Tuning.fromSystemProperties(CONFIG).sqpoll()).isTrue());
        withProperty("spindle.iouring.sqpollIdleMillis", "50", () ->
                assertThat(Tuning.fromSystemProperties(CONFIG).sqpollIdleMillis()).isEqualTo(50));
        withProperty("spindle.iouring.sendChunk", "big", () ->
                assertThatThrownBy(() -> Tuning.fromSystemProperties(CONFIG))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.iouring.sendChunk"));
        withProperty("spindle.iouring.cqFactor", "lots", () ->
                assertThatThrownBy(() -> new IoUringServer(CONFIG, Router.builder().build()))
                        .as("a server made without Tuning reads the properties")
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.iouring.cqFactor"));
    }
}
