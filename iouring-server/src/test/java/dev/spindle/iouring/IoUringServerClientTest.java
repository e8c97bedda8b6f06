// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.ClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Assumptions;

/** The client suite on {@link IoUringServer}: handlers call another server through the ring's own pool. */
class IoUringServerClientTest extends ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
        return new IoUringServer(config, router);
    }

    @Override
    protected boolean handlersOnEventLoop() {
        return true;
    }
}
