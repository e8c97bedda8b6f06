// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.conformance.HttpConformanceSuite;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * The multi-loop server with its two non-default options together: busy-polling, and heap read
 * buffers (requests parsed in place in the loop's array instead of copied from a direct buffer).
 */
class MultiLoopServerBusyPollHeapConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new MultiLoopServer(config, router, NioSettings.defaults().busyPoll(true).directBuffers(false));
    }
}
