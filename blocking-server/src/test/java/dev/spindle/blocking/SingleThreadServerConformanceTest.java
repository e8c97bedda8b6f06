// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

class SingleThreadServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new SingleThreadServer(config, router);
    }

    @Override
    protected boolean keepsConnectionsOpen() {
        return false;
    }

    @Override
    protected boolean servesOthersWhileClientsStall() {
        return false;
    }

    @Override
    protected int concurrentConnections() {
        return 1;
    }
}
