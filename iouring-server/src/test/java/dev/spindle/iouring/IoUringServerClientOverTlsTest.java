// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

/** The client suite on {@link IoUringServer} with every downstream, the raw ones too, reached over TLS (HTTP/1.1). */
class IoUringServerClientOverTlsTest extends IoUringServerClientTest {
    @Override
    protected Wire wire() {
        return Wire.TLS;
    }
}
