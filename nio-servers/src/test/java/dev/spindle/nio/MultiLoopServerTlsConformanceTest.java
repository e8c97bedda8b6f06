// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

/** The conformance suite over TLS (the core's TLS layer) on {@link MultiLoopServer}. */
class MultiLoopServerTlsConformanceTest extends MultiLoopServerConformanceTest {
    @Override
    protected boolean overTls() {
        return true;
    }
}
