// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ServerSentEventTest {
    static Stream<Arguments> events() {
        return Stream.of(
                Arguments.of(ServerSentEvent.data("hello"), "data: hello\n\n"),
                Arguments.of(ServerSentEvent.data(""), "data:\n\n"),
                Arguments.of(ServerSentEvent.data("a\nb"), "data: a\ndata: b\n\n"),
                Arguments.of(ServerSentEvent.data("a\r\nb\rc"), "data: a\ndata: b\ndata: c\n\n"),
                Arguments.of(ServerSentEvent.data("a\n"), "data: a\ndata:\n\n"),
                Arguments.of(ServerSentEvent.data("a\n\nb"), "data: a\ndata:\ndata: b\n\n"),
                Arguments.of(ServerSentEvent.data("\u00e9t\u00e9"), "data: \u00e9t\u00e9\n\n"),
                Arguments.of(ServerSentEvent.data(": not a comment"), "data: : not a comment\n\n"),
                Arguments.of(ServerSentEvent.data("{\"p\":1}").event("tick").id("42").retry(Duration.ofSeconds(3)),
                        "event: tick\ndata: {\"p\":1}\nid: 42\nretry: 3000\n\n"),
                Arguments.of(ServerSentEvent.data("x").id(""), "data: x\nid:\n\n"));
    }

    /** The wire form, and what the HTML standard's parser makes of it again: the same data, lines joined by \n. */
    @ParameterizedTest(name = "{1}")
    @MethodSource("events")
    void encodesFieldsThatParseBackToTheEvent(ServerSentEvent event, String wire) {
        assertThat(new String(event.encode(), StandardCharsets.UTF_8)).isEqualTo(wire);
        assertThat(parsedData(wire)).isEqualTo(event.data().replace("\r\n", "\n").replace('\r', '\n'));
    }

    @Test
    void anIdOrTypeThatWouldEndTheEventIsRefused() {
        ServerSentEvent e = ServerSentEvent.data("x");
        assertThatThrownBy(() -> e.id("1\ndata: injected")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one line");
        assertThatThrownBy(() -> e.id("1\r")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.id("a\0b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("U+0000");
        assertThatThrownBy(() -> e.event("tick\n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.event("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> e.retry(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerSentEvent.comment("a\nb")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new String(ServerSentEvent.comment("ping"), StandardCharsets.UTF_8)).isEqualTo(":ping\n\n");
    }

    /** The data of one event as the HTML standard's event-stream parser builds it. */
    private static String parsedData(String wire) {
        StringBuilder data = new StringBuilder();
        for (String line : wire.split("\n", -1)) {
            if (line.startsWith("data")) {
                String value = line.substring(4);
                if (value.startsWith(":")) {
                    value = value.substring(1);
                }
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                data.append(value).append('\n');
            }
        }
        return data.isEmpty() ? "" : data.substring(0, data.length() - 1);
    }
}
