// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ServerConfig;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The shared command line: {@code <port> [workers]}. */
class LauncherTest {
    private static final int DEFAULT_WORKERS = Runtime.getRuntime().availableProcessors();

    static Stream<Arguments> validArguments() {
        return Stream.of(
                Arguments.of(new String[] {"8080"}, 8080, DEFAULT_WORKERS),
                Arguments.of(new String[] {"0", "4"}, 0, 4),
                Arguments.of(new String[] {"0"}, 0, DEFAULT_WORKERS),
                Arguments.of(new String[] {"65535", "1"}, 65535, 1),
                Arguments.of(new String[] {"80", "256"}, 80, 256));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validArguments")
    void validArguments(String[] args, int port, int workers) {
        ServerConfig c = Launcher.parse(args);
        assertThat(c).isNotNull();
        assertThat(c.port()).isEqualTo(port);
        assertThat(c.workers()).isEqualTo(workers);
        assertThat(c.host()).isEqualTo("127.0.0.1");
    }

    static Stream<Arguments> invalidArguments() {
        return Stream.of(
                Arguments.of((Object) new String[] {}),
                Arguments.of((Object) new String[] {"80", "4", "x"}),
                Arguments.of((Object) new String[] {"-1"}),
                Arguments.of((Object) new String[] {"65536"}),
                Arguments.of((Object) new String[] {"abc"}),
                Arguments.of((Object) new String[] {""}),
                Arguments.of((Object) new String[] {"8080.0"}),
                Arguments.of((Object) new String[] {"99999999999"}),
                Arguments.of((Object) new String[] {"80", "0"}),
                Arguments.of((Object) new String[] {"80", "-2"}),
                Arguments.of((Object) new String[] {"80", "x"}),
                Arguments.of((Object) new String[] {"80", ""}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidArguments")
    void invalidArgumentsGiveNull(String[] args) {
        assertThat(Launcher.parse(args)).isNull();
    }
}
