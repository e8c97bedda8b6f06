// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Assumptions;

/**
 * The conformance suite with the SQPOLL option (a kernel thread per ring polls its submission queue).
 * The kernel threads sleep after 5 ms idle instead of a second: the suite's many pauses then exercise
 * their wake-ups, and they do not spin the CPUs the other tests of a parallel build run on.
 */
class IoUringServerSqpollConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        if (!IoUring.isAvailable()) {
            System.err.println("SKIPPED " + getClass().getSimpleName() + ": io_uring is not available: " + IoUring.unavailabilityCause());
        }
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
        return new IoUringServer(config, router, Tuning.fromSystemProperties(config).sqpoll(true).sqpollIdleMillis(5));
    }

    /**
     * With SQPOLL the kernel's SQ thread completes the multishot receives, not the ring thread:
     * while the ring thread is busy (answering the request before), the kernel fills every free
     * buffer of the ring's provided-buffer pool, and once more as the ring thread recycles them,
     * before its cancel lands. So the read-ahead is bounded by twice the pool, not by one request
     * (measured on 2 loaded cores: 2 to 16 MiB beyond the stuck request).
     */
    @Override
    protected long readAheadAllowance() {
        Tuning tuning = Tuning.fromSystemProperties(config());
        return 2L * tuning.bufferRingEntries() * tuning.bufferSize();
    }
}
