package dev.spindle.nio;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.HttpConformanceSuite;

/** The multi-loop server with busy-polling and direct read buffers, as the benchmark matrix runs it. */
class MultiLoopServerBusyPollDirectConformanceTest extends HttpConformanceSuite {
    @Override
    protected ServerConfig config() {
        return super.config().busyPoll(true).directBuffers(true);
    }

    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new MultiLoopServer(config, router);
    }
}
