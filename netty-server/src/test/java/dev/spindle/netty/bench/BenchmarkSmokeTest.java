// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * CI's check on the Netty anchor benchmarks (HTTP/1.1 and HTTP/2): they compile and run one short iteration per
 * parameter set in this JVM, including its {@code @Setup} check of the response. No timing is
 * asserted.
 */
class BenchmarkSmokeTest {
    @Test
    void theNettyAnchorRunsOneShortIteration() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("^dev\\.spindle\\.netty\\.bench\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        // JMH's machine-wide lock would fail this test while scripts/jmh.sh measures; the smoke
        // run measures nothing, so it need not wait for the lock.
        System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(8); // HTTP/1.1: 3 routes x 2 pipelines; HTTP/2: 2 routes
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore()).isPositive();
        }
    }
}
