// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

/** The client suite on {@link SingleLoopServer} with every client speaking HTTP/2 by prior knowledge (h2c) to its downstreams. */
class SingleLoopServerClientOverHttp2Test extends SingleLoopServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2C;
    }
}
