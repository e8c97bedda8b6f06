// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

/**
 * The benchmark app's bounds, restated for the references (which do not depend on Spindle);
 * {@code BenchmarkLimitsTest} fails the build if they drift from Spindle's {@code BenchmarkApp}.
 */
public final class BenchmarkLimits {
    /** Upper bound for {@code /blocking/{ms}}: a larger value sleeps this long. */
    public static final int MAX_BLOCKING_MS = 10_000;
    /** Upper bound for {@code /delay/{ms}}. */
    public static final int MAX_DELAY_MS = 10_000;
    /** The length of the file {@code /download} serves. */
    public static final int DOWNLOAD_BYTES = 1 << 20;

    private BenchmarkLimits() {
    }

    /**
     * A wait as a route's path gives it ({@code /blocking/{ms}}, {@code /delay/{ms}}), capped.
     *
     * @param raw the path segment
     * @param max the cap, {@link #MAX_BLOCKING_MS} or {@link #MAX_DELAY_MS}
     * @return the milliseconds, at most {@code max}; -1 when {@code raw} is not a non-negative number (a 400)
     */
    public static int cappedMillis(String raw, int max) {
        int ms;
        try {
            ms = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            return -1;
        }
        return ms < 0 ? -1 : Math.min(ms, max);
    }
}
