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
}
