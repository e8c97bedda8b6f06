// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.testing.SystemProperties.withProperty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServerConfigTest {

    @Test
    void defaultsMatchTheDocumentedTable() {
        ServerConfig c = ServerConfig.defaults();
        assertThat(c.host()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isZero();
        assertThat(c.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(c.maxRequestLineLength()).isEqualTo(8192);
        assertThat(c.maxHeaderSize()).isEqualTo(32 * 1024);
        assertThat(c.maxHeaderCount()).isEqualTo(128);
        assertThat(c.maxBodySize()).isEqualTo(16L * 1024 * 1024);
        assertThat(c.maxStreamedBodySize()).as("streamed bodies: no limit").isEqualTo(Long.MAX_VALUE);
        assertThat(c.bufferedBodyBudget()).as("a quarter of the heap").isEqualTo(Runtime.getRuntime().maxMemory() / 4);
        assertThat(c.keepAlive()).isTrue();
        assertThat(c.shutdownHook()).isTrue();
        assertThat(c.headerTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.writeTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.drainTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.drainDelay()).as("no drain delay: a close drains at once").isEqualTo(Duration.ZERO);
        assertThat(c.blockedLoopThreshold()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.maxConnections()).isEqualTo(10_000);
        assertThat(c.readBufferSize()).isEqualTo(16 * 1024);
        assertThat(c.writeHighWaterMark()).isEqualTo(64 * 1024);
        assertThat(c.backlog()).isEqualTo(1024);
        assertThat(ServerConfig.defaults().port(8080).port()).isEqualTo(8080);
    }

    /** name, change, getter, expected value */
    static Stream<Arguments> withers() {
        return Stream.of(
                w("port", c -> c.port(8080), ServerConfig::port, 8080),
                w("host", c -> c.host("0.0.0.0"), ServerConfig::host, "0.0.0.0"),
                w("workers", c -> c.workers(3), ServerConfig::workers, 3),
                w("maxRequestLineLength", c -> c.maxRequestLineLength(100), ServerConfig::maxRequestLineLength, 100),
                w("maxHeaderSize", c -> c.maxHeaderSize(200), ServerConfig::maxHeaderSize, 200),
                w("maxHeaderCount", c -> c.maxHeaderCount(5), ServerConfig::maxHeaderCount, 5),
                w("maxBodySize", c -> c.maxBodySize(0), ServerConfig::maxBodySize, 0L),
                w("maxStreamedBodySize", c -> c.maxStreamedBodySize(1L << 40), ServerConfig::maxStreamedBodySize, 1L << 40),
                w("bufferedBodyBudget", c -> c.bufferedBodyBudget(0), ServerConfig::bufferedBodyBudget, 0L),
                w("keepAlive", c -> c.keepAlive(false), ServerConfig::keepAlive, false),
                w("shutdownHook", c -> c.shutdownHook(false), ServerConfig::shutdownHook, false),
                w("headerTimeout", c -> c.headerTimeout(Duration.ofMillis(5)), ServerConfig::headerTimeout, Duration.ofMillis(5)),
                w("idleTimeout", c -> c.idleTimeout(Duration.ofMillis(6)), ServerConfig::idleTimeout, Duration.ofMillis(6)),
                w("writeTimeout", c -> c.writeTimeout(Duration.ofMillis(7)), ServerConfig::writeTimeout, Duration.ofMillis(7)),
                w("drainTimeout", c -> c.drainTimeout(Duration.ofMillis(8)), ServerConfig::drainTimeout, Duration.ofMillis(8)),
                w("drainDelay", c -> c.drainDelay(Duration.ofMillis(2000)), ServerConfig::drainDelay, Duration.ofMillis(2000)),
                w("drainDelay back to zero", c -> c.drainDelay(Duration.ofSeconds(1)).drainDelay(Duration.ZERO), ServerConfig::drainDelay,
                        Duration.ZERO),
                w("blockedLoopThreshold", c -> c.blockedLoopThreshold(Duration.ofMillis(15)), ServerConfig::blockedLoopThreshold, Duration.ofMillis(15)),
                w("blockedLoopThreshold off", c -> c.blockedLoopThreshold(Duration.ZERO), ServerConfig::blockedLoopThreshold, Duration.ZERO),
                w("maxConnections", c -> c.maxConnections(9), ServerConfig::maxConnections, 9),
                w("readBufferSize", c -> c.readBufferSize(11), ServerConfig::readBufferSize, 11),
                w("writeHighWaterMark", c -> c.writeHighWaterMark(12), ServerConfig::writeHighWaterMark, 12),
                w("backlog", c -> c.backlog(14), ServerConfig::backlog, 14));
    }

    private static Arguments w(String name, UnaryOperator<ServerConfig> change, Function<ServerConfig, Object> get, Object value) {
        return Arguments.of(name, change, get, value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withers")
    void withersReturnChangedCopies(String name, UnaryOperator<ServerConfig> change, Function<ServerConfig, Object> get,
            Object value) {
        ServerConfig original = ServerConfig.defaults();
        String before = original.toString();
        Object originalValue = get.apply(original);
        ServerConfig changed = change.apply(original);
        assertThat(changed).isNotSameAs(original);
        assertThat(get.apply(changed)).isEqualTo(value);
        assertThat(get.apply(original)).as("the original is unchanged").isEqualTo(originalValue);
        assertThat(original.toString()).isEqualTo(before);
        // Other settings are carried over.
        ServerConfig twice = change.apply(ServerConfig.defaults().workers(7).port(1234).maxHeaderCount(3));
        assertThat(get.apply(twice)).isEqualTo(value);
        if (!name.equals("workers")) {
            assertThat(twice.workers()).isEqualTo(7);
        }
        if (!name.equals("port")) {
            assertThat(twice.port()).isEqualTo(1234);
        }
        if (!name.equals("maxHeaderCount")) {
            assertThat(twice.maxHeaderCount()).isEqualTo(3);
        }
    }

    static Stream<Arguments> invalidSettings() {
        return Stream.of(
                Arguments.of("negative workers", (UnaryOperator<ServerConfig>) c -> c.workers(-1)),
                Arguments.of("zero workers", (UnaryOperator<ServerConfig>) c -> c.workers(0)),
                Arguments.of("port -1", (UnaryOperator<ServerConfig>) c -> c.port(-1)),
                Arguments.of("port 65536", (UnaryOperator<ServerConfig>) c -> c.port(65536)),
                Arguments.of("maxRequestLineLength 0", (UnaryOperator<ServerConfig>) c -> c.maxRequestLineLength(0)),
                Arguments.of("maxHeaderSize -1", (UnaryOperator<ServerConfig>) c -> c.maxHeaderSize(-1)),
                Arguments.of("maxHeaderCount 0", (UnaryOperator<ServerConfig>) c -> c.maxHeaderCount(0)),
                Arguments.of("maxBodySize -1", (UnaryOperator<ServerConfig>) c -> c.maxBodySize(-1)),
                Arguments.of("maxBodySize beyond an array", (UnaryOperator<ServerConfig>) c -> c.maxBodySize(Integer.MAX_VALUE)),
                Arguments.of("maxStreamedBodySize -1", (UnaryOperator<ServerConfig>) c -> c.maxStreamedBodySize(-1)),
                Arguments.of("bufferedBodyBudget -1", (UnaryOperator<ServerConfig>) c -> c.bufferedBodyBudget(-1)),
                Arguments.of("zero headerTimeout", (UnaryOperator<ServerConfig>) c -> c.headerTimeout(Duration.ZERO)),
                Arguments.of("negative idleTimeout", (UnaryOperator<ServerConfig>) c -> c.idleTimeout(Duration.ofSeconds(-1))),
                Arguments.of("zero writeTimeout", (UnaryOperator<ServerConfig>) c -> c.writeTimeout(Duration.ZERO)),
                Arguments.of("zero drainTimeout", (UnaryOperator<ServerConfig>) c -> c.drainTimeout(Duration.ZERO)),
                Arguments.of("negative drainDelay", (UnaryOperator<ServerConfig>) c -> c.drainDelay(Duration.ofMillis(-1))),
                Arguments.of("negative blockedLoopThreshold", (UnaryOperator<ServerConfig>) c -> c.blockedLoopThreshold(Duration.ofMillis(-1))),
                Arguments.of("maxConnections 0", (UnaryOperator<ServerConfig>) c -> c.maxConnections(0)),
                Arguments.of("readBufferSize 0", (UnaryOperator<ServerConfig>) c -> c.readBufferSize(0)),
                Arguments.of("writeHighWaterMark -5", (UnaryOperator<ServerConfig>) c -> c.writeHighWaterMark(-5)),
                Arguments.of("backlog 0", (UnaryOperator<ServerConfig>) c -> c.backlog(0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSettings")
    void invalidSettingsAreRejectedAndLeaveTheOriginalAlone(String name, UnaryOperator<ServerConfig> change) {
        ServerConfig original = ServerConfig.defaults();
        String before = original.toString();
        assertThatThrownBy(() -> change.apply(original)).isInstanceOf(IllegalArgumentException.class);
        assertThat(original.toString()).isEqualTo(before);
        assertThat(original.workers()).isPositive();
    }

    @Test
    void nullsAreRejected() {
        ServerConfig c = ServerConfig.defaults();
        assertThatThrownBy(() -> c.host(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> c.headerTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> c.idleTimeout(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void portFactoryValidates() {
        assertThatThrownBy(() -> ServerConfig.defaults().port(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerConfig.defaults().port(70000)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ServerConfig.defaults().port(0).workers(2).port()).isZero();
    }

    @Test
    void systemPropertiesOverrideDefaults() {
        withProperty("spindle.maxHeaderCount", " 7 ", () -> {
            assertThat(ServerConfig.fromSystemProperties().maxHeaderCount()).isEqualTo(7);
        });
        withProperty("spindle.maxStreamedBodySize", "1073741824", () -> {
            assertThat(ServerConfig.fromSystemProperties().maxStreamedBodySize()).isEqualTo(1L << 30);
        });
        withProperty("spindle.bufferedBodyBudget", "33554432", () -> {
            assertThat(ServerConfig.fromSystemProperties().bufferedBodyBudget()).isEqualTo(32L << 20);
        });
        withProperty("spindle.keepAlive", "false", () -> {
            assertThat(ServerConfig.fromSystemProperties().keepAlive()).isFalse();
        });
        withProperty("spindle.shutdownHook", "false", () -> {
            assertThat(ServerConfig.fromSystemProperties().shutdownHook()).isFalse();
        });
        withProperty("spindle.idleTimeoutMs", "1500", () -> {
            assertThat(ServerConfig.fromSystemProperties().idleTimeout()).isEqualTo(Duration.ofMillis(1500));
        });
        withProperty("spindle.drainDelayMs", "2000", () -> {
            assertThat(ServerConfig.fromSystemProperties().drainDelay()).isEqualTo(Duration.ofMillis(2000));
        });
        withProperty("spindle.blockedLoopThresholdMs", "0", () -> {
            assertThat(ServerConfig.fromSystemProperties().blockedLoopThreshold()).isEqualTo(Duration.ZERO);
        });
        withProperty("spindle.backlog", "4096", () -> {
            assertThat(ServerConfig.fromSystemProperties().backlog()).isEqualTo(4096);
        });
        withProperty("spindle.maxHeaderCount", "  ", () -> {
            assertThat(ServerConfig.fromSystemProperties().maxHeaderCount()).isEqualTo(128);
        });
    }

    @Test
    void malformedOrInvalidSystemPropertiesAreRejected() {
        withProperty("spindle.maxHeaderCount", "many", () ->
                assertThatThrownBy(ServerConfig::fromSystemProperties)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.maxHeaderCount"));
        withProperty("spindle.readBufferSize", "0", () ->
                assertThatThrownBy(ServerConfig::fromSystemProperties).isInstanceOf(IllegalArgumentException.class));
        withProperty("spindle.drainDelayMs", "-5", () ->
                assertThatThrownBy(ServerConfig::fromSystemProperties)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drainDelay"));
        // Read leniently before, a bad backlog fell back to the default or was clamped to 1: now it fails the start.
        withProperty("spindle.backlog", "lots", () ->
                assertThatThrownBy(ServerConfig::fromSystemProperties)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spindle.backlog"));
    }


    @Test
    void noStaticMethodSharesItsNameWithAnInstanceMethod() {
        // a static port(int) once let defaults().host(h).workers(n).port(p) compile and drop h and n
        java.util.Map<String, java.util.Set<Boolean>> kinds = new java.util.HashMap<>();
        for (java.lang.reflect.Method m : ServerConfig.class.getMethods()) {
            if (m.getDeclaringClass() == ServerConfig.class) {
                kinds.computeIfAbsent(m.getName(), k -> new java.util.HashSet<>())
                        .add(java.lang.reflect.Modifier.isStatic(m.getModifiers()));
            }
        }
        assertThat(kinds.entrySet()).filteredOn(e -> e.getValue().size() > 1).isEmpty();
    }

    @Test
    void aChainEndingInPortKeepsEverySetting() {
        ServerConfig c = ServerConfig.defaults().host("0.0.0.0").workers(3).port(19530);
        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.workers()).isEqualTo(3);
        assertThat(c.port()).isEqualTo(19530);
    }
}
