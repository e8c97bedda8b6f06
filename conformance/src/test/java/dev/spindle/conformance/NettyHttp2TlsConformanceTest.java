// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

/** {@link NettyHttp2ConformanceTest} over TLS: h2 chosen by ALPN, every case through the TLS layer. */
class NettyHttp2TlsConformanceTest extends NettyHttp2ConformanceTest {
    @Override
    protected boolean overTls() {
        return true;
    }
}
