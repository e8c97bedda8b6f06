// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.conformance.ClientSuite;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/** The client suite on {@link MultiLoopServer} with every client speaking HTTP/2 (h2c) to its downstreams. */
class MultiLoopServerClientOverHttp2Test extends ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new MultiLoopServer(config, router);
    }

    @Override
    protected boolean handlersOnEventLoop() {
        return true;
    }

    @Override
    protected ClientConfig protocol(ClientConfig defaults) {
        return defaults.h2cPriorKnowledge(true);
    }
}
