// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.conformance.LargeTransferSuite;

/** The io_uring large-transfer check; skipped, with the reason, only where io_uring is unavailable. */
class LargeTransferTest extends LargeTransferSuite {
    @Override
    protected Class<?> serverClass() {
        return IoUringServer.class;
    }

    @Override
    protected void assumeRunnable() {
        IoUringTests.assumeAvailable();
    }
}
