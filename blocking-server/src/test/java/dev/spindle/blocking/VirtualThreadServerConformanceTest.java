package dev.spindle.blocking;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.Map;

class VirtualThreadServerConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new VirtualThreadServer(config, router);
    }

    @Override
    protected Map<Feature, String> lacks() {
        return BlockingLacks.LACKS;
    }
}
