// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

/** The client suite on {@link VirtualThreadServer} with every downstream reached over TLS offering h2 by ALPN (the Spindle ones choose it, the raw ones fall back to HTTP/1.1). */
class VirtualThreadServerClientOverHttp2TlsTest extends VirtualThreadServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2_TLS;
    }
}
