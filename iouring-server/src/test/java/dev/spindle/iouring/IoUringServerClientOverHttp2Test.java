// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

/** The client suite on {@link IoUringServer} with every client speaking HTTP/2 by prior knowledge (h2c) to its downstreams. */
class IoUringServerClientOverHttp2Test extends IoUringServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2C;
    }
}
