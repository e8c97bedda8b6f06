// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

/** The conformance suite over TLS (the core's TLS layer) on {@link VirtualThreadServer}. */
class VirtualThreadServerTlsConformanceTest extends VirtualThreadServerConformanceTest {
    @Override
    protected boolean overTls() {
        return true;
    }
}
