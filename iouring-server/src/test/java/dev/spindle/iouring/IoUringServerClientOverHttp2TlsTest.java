// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

/** The client suite on {@link IoUringServer} with every downstream reached over TLS offering h2 by ALPN (the Spindle ones choose it, the raw ones fall back to HTTP/1.1). */
class IoUringServerClientOverHttp2TlsTest extends IoUringServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.H2_TLS;
    }
}
