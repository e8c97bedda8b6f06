// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * CI's check on the JMH benchmarks: they compile (the generator ran) and each runs one short
 * iteration in this JVM, including its {@code @Setup} sanity checks. No timing is asserted;
 * measurements are {@code scripts/jmh.sh}'s job.
 */
class BenchmarkSmokeTest {
    @Test
    void everyCoreBenchmarkRunsOneShortIteration() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("^dev\\.spindle\\.core\\.bench\\.")
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
        // parse 3 + route 2 + encode 1 + HTTP/1.1 round trip 3 routes + HTTP/2 round trip 2 routes + client 2
        // + compression 3 codings
        assertThat(results).hasSize(16);
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore())
                    .as(r.getParams().getBenchmark() + " " + r.getParams().getParam("route") + " " + r.getParams().getParam("coding"))
                    .isPositive();
        }
    }
}
