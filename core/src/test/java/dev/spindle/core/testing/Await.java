// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits in tests for what another thread brings about, polling, with a bound. */
public final class Await {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private Await() {
    }

    /**
     * Polls {@code condition} every 10 ms until it holds.
     *
     * @param condition what to wait for
     * @param what the condition in words, for the failure
     * @throws AssertionError if it does not hold within 10 s
     * @throws InterruptedException if interrupted while waiting
     */
    public static void until(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }
}
