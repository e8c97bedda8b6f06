package dev.spindle.nio;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.HttpConformanceSuite;

class MultiLoopServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new MultiLoopServer(config, router);
    }
}
