// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.spindle.core.testing.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A storm of failures becomes one full line and one count per window, per kind. */
class FailureLogTest {
    @RegisterExtension
    final LogCapture log = LogCapture.alone(FailureLogTest.class.getName() + ".storm");
    private long now = 1_000;
    private final FailureLog failures = new FailureLog(log.logger(), Duration.ofSeconds(10), () -> now);

    private void advance(long seconds) {
        now += TimeUnit.SECONDS.toNanos(seconds);
    }

    @Test
    void repeatsOfAKindAreCountedAndSummedUpOnceTheWindowHasPassed() {
        OutOfMemoryError oom = new OutOfMemoryError("simulated");
        assertThat(failures.warn("loop-0: connection failed; closing it", "conn-1", oom)).isTrue();
        for (int i = 0; i < 11_640; i++) {
            assertThat(failures.warn("loop-0: connection failed; closing it", "conn-" + i, oom)).isFalse();
        }
        assertThat(log.events()).hasSize(1);
        ILoggingEvent first = log.events().getFirst();
        assertThat(first.getLevel()).isEqualTo(Level.WARN);
        assertThat(first.getFormattedMessage()).isEqualTo("loop-0: connection failed; closing it (conn-1)");
        assertThat(first.getThrowableProxy().getClassName()).isEqualTo(OutOfMemoryError.class.getName());
        assertThat(first.getThrowableProxy().getStackTraceElementProxyArray()).as("logged with its stack").isNotEmpty();

        advance(9);
        failures.flush();
        assertThat(log.events()).as("no summary within the window").hasSize(1);
        advance(2);
        failures.flush();
        assertThat(log.events()).hasSize(2);
        ILoggingEvent summary = log.events().get(1);
        assertThat(summary.getLevel()).isEqualTo(Level.WARN);
        assertThat(summary.getFormattedMessage()).isEqualTo(
                "11640 more failures like this (loop-0: connection failed; closing it: java.lang.OutOfMemoryError) in the last 11 s");
        assertThat(summary.getThrowableProxy()).as("a summary has no stack").isNull();

        failures.flush();
        assertThat(log.events()).as("summed up once").hasSize(2);
        assertThat(failures.warn("loop-0: connection failed; closing it", "conn-2", oom)).as("a new window logs in full").isTrue();
        assertThat(log.events()).hasSize(3);
    }

    @Test
    void aRepeatAfterTheWindowSumsUpTheLastOneAndIsLoggedInFull() {
        RuntimeException boom = new IllegalStateException("boom");
        failures.error("loop-1: unexpected failure; the loop goes on", null, boom);
        failures.error("loop-1: unexpected failure; the loop goes on", null, boom);
        failures.error("loop-1: unexpected failure; the loop goes on", null, boom);
        advance(10);
        assertThat(failures.error("loop-1: unexpected failure; the loop goes on", null, boom)).isTrue();
        List<String> lines = log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).containsExactly(
                "loop-1: unexpected failure; the loop goes on",
                "2 more failures like this (loop-1: unexpected failure; the loop goes on: java.lang.IllegalStateException) in the last 10 s",
                "loop-1: unexpected failure; the loop goes on");
        assertThat(log.events()).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
    }

    @Test
    void kindsAreCountedApart() {
        failures.warn("connection failed", "a", new OutOfMemoryError());
        failures.warn("connection failed", "b", new IllegalStateException());
        failures.warn("accept failed", "c", new OutOfMemoryError());
        failures.warn("connection failed", "d", new OutOfMemoryError());
        assertThat(log.events()).extracting(ILoggingEvent::getFormattedMessage)
                .containsExactly("connection failed (a)", "connection failed (b)", "accept failed (c)");
    }

    @Test
    void onlyVirtualMachineErrorsBeyondMemoryAndStackAreFatal() {
        assertThat(FailureLog.isFatal(new InternalError())).isTrue();
        assertThat(FailureLog.isFatal(new UnknownError())).isTrue();
        assertThat(FailureLog.isFatal(new OutOfMemoryError())).isFalse();
        assertThat(FailureLog.isFatal(new StackOverflowError())).isFalse();
        assertThat(FailureLog.isFatal(new NoClassDefFoundError())).isFalse();
        assertThat(FailureLog.isFatal(new IllegalStateException())).isFalse();
    }
}
