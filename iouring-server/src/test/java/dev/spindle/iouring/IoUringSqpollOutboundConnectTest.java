// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;

/**
 * The outbound cases on a ring with SQPOLL: the kernel's SQ thread, not the ring thread, takes the
 * connects (and reads their {@code sockaddr}) on its own time, and the cancels of those that
 * stall.
 */
class IoUringSqpollOutboundConnectTest extends IoUringOutboundConnectTest {
    @Override
    IoUringServer newLoopServer(ServerConfig config, Router router) {
        return new IoUringServer(config, router, Tuning.defaults(config).sqpoll(true));
    }
}
