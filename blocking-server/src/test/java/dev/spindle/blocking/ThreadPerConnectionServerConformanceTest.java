// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

class ThreadPerConnectionServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new ThreadPerConnectionServer(config, router);
    }

    /** Each connection has its platform thread, parked while its asynchronous handler waits. */
    @Override
    protected boolean holdsNoThreadWhileWaiting() {
        return false;
    }
}
