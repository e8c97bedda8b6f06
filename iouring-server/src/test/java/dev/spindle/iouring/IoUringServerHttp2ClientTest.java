// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.Http2ClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import org.junit.jupiter.api.Assumptions;

/** The HTTP/2 client suite on {@link IoUringServer}: handlers call HTTP/2 downstreams through the ring's own pool. */
class IoUringServerHttp2ClientTest extends Http2ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
        return new IoUringServer(config, router);
    }
}
