// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

/** The client suite on {@link VirtualThreadServer} with every downstream, the raw ones too, reached over TLS (HTTP/1.1). */
class VirtualThreadServerClientOverTlsTest extends VirtualThreadServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.TLS;
    }
}
