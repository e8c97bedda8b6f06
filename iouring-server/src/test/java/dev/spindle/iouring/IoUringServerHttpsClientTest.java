// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.HttpsClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Assumptions;

class IoUringServerHttpsClientTest extends HttpsClientSuite {
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
