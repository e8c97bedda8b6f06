// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.conformance.HttpsClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

class SingleLoopServerHttpsClientTest extends HttpsClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new SingleLoopServer(config, router);
    }

    @Override
    protected boolean handlersOnEventLoop() {
        return true;
    }
}
