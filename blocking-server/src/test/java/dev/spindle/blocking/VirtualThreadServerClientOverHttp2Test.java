// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

/** The client suite on {@link VirtualThreadServer} with every client speaking HTTP/2 by prior knowledge (h2c) to its downstreams. */
class VirtualThreadServerClientOverHttp2Test extends VirtualThreadServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2C;
    }
}
