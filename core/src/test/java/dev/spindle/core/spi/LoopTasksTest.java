// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.core.testing.FixedBytesConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The queues behind a loop's execute and resume: bounded per pass, refused after the stop, failures contained. */
class LoopTasksTest {
    private final FailureLog failures = new FailureLog(LoggerFactory.getLogger(LoopTasksTest.class));
    private final LoopTasks tasks = new LoopTasks("loop-0", failures, 2);
    private final List<String> ran = new ArrayList<>();
    private final List<OutboundConnection> resumed = new ArrayList<>();

    @Test
    void wakeupsFirstThenAtMostTheBoundOfTasksPerPassInOrder() {
        var connection = new FixedBytesConnection("x");
        for (int i = 1; i <= 3; i++) {
            String name = "task " + i;
            tasks.execute(() -> ran.add(name));
        }
        assertThat(tasks.resume(connection)).isTrue();
        assertThat(tasks.hasQueued()).isTrue();

        tasks.runQueued(c -> {
            assertThat(ran).as("wakeups are handed over before tasks run").isEmpty();
            resumed.add(c);
        });
        assertThat(resumed).containsExactly(connection);
        assertThat(ran).containsExactly("task 1", "task 2");
        assertThat(tasks.hasQueued()).isTrue();

        tasks.runQueued(resumed::add);
        assertThat(ran).containsExactly("task 1", "task 2", "task 3");
        assertThat(tasks.hasQueued()).isFalse();
    }

    @Test
    void aFailingTaskIsLoggedAndTheNextOnesRun() {
        tasks.execute(() -> {
            throw new IllegalStateException("a task failing on purpose");
        });
        tasks.execute(() -> ran.add("after"));
        tasks.runQueued(resumed::add);
        assertThat(ran).containsExactly("after");
    }

    @Test
    void aFatalErrorIsRethrownOnceLogged() {
        tasks.execute(() -> {
            throw new InternalError("simulated");
        });
        assertThatThrownBy(() -> tasks.runQueued(resumed::add)).isInstanceOf(InternalError.class);
    }

    @Test
    void afterTheStopTasksAreRefusedWakeupsIgnoredAndWhatWasAcceptedStillRuns() {
        var connection = new FixedBytesConnection("x");
        for (int i = 1; i <= 3; i++) {
            String name = "task " + i;
            tasks.execute(() -> ran.add(name));
        }
        tasks.resume(connection);
        tasks.stop();

        assertThat(tasks.stopped()).isTrue();
        assertThatThrownBy(() -> tasks.execute(() -> ran.add("late")))
                .isInstanceOf(RejectedExecutionException.class).hasMessage("loop-0 has stopped");
        assertThat(tasks.resume(connection)).isFalse();

        tasks.runRemaining();
        assertThat(ran).as("every accepted task, beyond the per-pass bound").containsExactly("task 1", "task 2", "task 3");
        assertThat(tasks.hasQueued()).as("the wakeups are dropped").isFalse();
    }
}
