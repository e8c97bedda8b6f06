package dev.spindle.iouring;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.HttpConformanceSuite;
import org.junit.jupiter.api.Assumptions;

/** The conformance suite with the SQPOLL option (a kernel thread per ring polls its submission queue). */
class IoUringServerSqpollConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        if (!IoUring.isAvailable()) {
            System.err.println("SKIPPED " + getClass().getSimpleName() + ": io_uring is not available: " + IoUring.unavailabilityCause());
        }
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
        return new IoUringServer(config, router, Tuning.fromSystemProperties(config).withSqpoll(true));
    }
}
