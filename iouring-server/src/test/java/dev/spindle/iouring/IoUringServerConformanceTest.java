// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Assumptions;

/** The shared conformance suite on {@link IoUringServer}; skipped, with the reason, only where io_uring is unavailable. */
class IoUringServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        if (!IoUring.isAvailable()) {
            // surefire shows a class aborted in @BeforeAll as "0 tests": say why on the console too
            System.err.println("SKIPPED " + getClass().getSimpleName() + ": io_uring is not available: " + IoUring.unavailabilityCause());
        }
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
        return new IoUringServer(config, router);
    }
}
