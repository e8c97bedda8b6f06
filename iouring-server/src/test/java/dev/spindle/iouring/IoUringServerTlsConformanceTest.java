// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

/** The conformance suite over TLS (the core's TLS layer) on {@link IoUringServer}; skipped, with the reason, where io_uring is unavailable. */
class IoUringServerTlsConformanceTest extends IoUringServerConformanceTest {
    @Override
    protected boolean overTls() {
        return true;
    }
}
