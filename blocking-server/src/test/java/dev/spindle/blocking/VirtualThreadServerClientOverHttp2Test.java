// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.ClientSuite;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/** The client suite on {@link VirtualThreadServer} with every client speaking HTTP/2 (h2c) to its downstreams. */
class VirtualThreadServerClientOverHttp2Test extends ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new VirtualThreadServer(config, router);
    }

    @Override
    protected boolean handlersOnEventLoop() {
        return false;
    }

    @Override
    protected ClientConfig protocol(ClientConfig defaults) {
        return defaults.h2cPriorKnowledge(true);
    }
}
