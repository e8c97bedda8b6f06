// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

/** The client suite on {@link MultiLoopServer} with every client speaking HTTP/2 by prior knowledge (h2c) to its downstreams. */
class MultiLoopServerClientOverHttp2Test extends MultiLoopServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2C;
    }
}
