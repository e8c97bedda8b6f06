// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.Http2ClientSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/** The HTTP/2 client suite on {@link VirtualThreadServer}: handlers off any loop share the blocking path's HTTP/2 connections. */
class VirtualThreadServerHttp2ClientTest extends Http2ClientSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new VirtualThreadServer(config, router);
    }
}
