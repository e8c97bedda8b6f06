// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

/** The client suite on {@link MultiLoopServer} with every downstream, the raw ones too, reached over TLS (HTTP/1.1). */
class MultiLoopServerClientOverTlsTest extends MultiLoopServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.TLS;
    }
}
