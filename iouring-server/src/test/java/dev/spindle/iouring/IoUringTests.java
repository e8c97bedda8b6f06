// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import org.junit.jupiter.api.Assumptions;

/** Shared test helpers. */
final class IoUringTests {
    private IoUringTests() {
    }

    /** Skips the calling test, with the reason, where the kernel or the system forbids io_uring. */
    static void assumeAvailable() {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available: " + IoUring.unavailabilityCause());
    }
}
