// SPDX-License-Identifier: Apache-2.0
package dev.spindle.micrometer.bench;

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
 * The JMH round trip compiles (the generator ran) and runs one short iteration per setting in this
 * JVM, its {@code @Setup} and {@code @TearDown} checks included. No timing is asserted.
 */
class BenchmarkSmokeTest {
    @Test
    void theMetricsRoundTripRunsOneShortIterationPerSetting() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("^dev\\.spindle\\.micrometer\\.bench\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        // JMH's machine-wide lock would fail this test while a measurement runs; this one measures nothing
        System.setProperty("jmh.ignoreLock", "true");
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(3);
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore()).as(r.getParams().getParam("metrics")).isPositive();
        }
    }
}
