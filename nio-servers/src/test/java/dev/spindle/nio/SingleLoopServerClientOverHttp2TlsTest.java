// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

/** The client suite on {@link SingleLoopServer} with every downstream reached over TLS offering h2 by ALPN (the Spindle ones choose it, the raw ones fall back to HTTP/1.1). */
class SingleLoopServerClientOverHttp2TlsTest extends SingleLoopServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2_TLS;
    }
}
