// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.conformance.Http2ClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/** The HTTP/2 client suite on {@link SingleLoopServer}. */
class SingleLoopServerHttp2ClientTest extends Http2ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new SingleLoopServer(config, router);
    }
}
