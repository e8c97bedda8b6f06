// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

class ThreadPoolServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new ThreadPoolServer(config, router);
    }

    @Override
    protected boolean servesOthersWhileClientsStall() {
        return false;
    }

    @Override
    protected int concurrentConnections() {
        return config().workers();
    }
}
