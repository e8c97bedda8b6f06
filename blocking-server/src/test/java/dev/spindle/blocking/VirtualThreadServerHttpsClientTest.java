// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.HttpsClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

class VirtualThreadServerHttpsClientTest extends HttpsClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new VirtualThreadServer(config, router);
    }

    @Override
    protected boolean handlersOnEventLoop() {
        return false;
    }
}
