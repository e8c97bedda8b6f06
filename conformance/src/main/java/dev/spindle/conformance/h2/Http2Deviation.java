// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

/**
 * How a server knowingly departs from one case of {@link Http2Cases}: what it answers instead (held
 * to that, so a change in its behaviour still shows), or, where no {@link Expectation} can say it,
 * that the case is skipped. Either way with the reason.
 *
 * @param instead what the server answers instead, or null: the case is skipped
 * @param reason why, as a sentence a reader of the report understands
 */
public record Http2Deviation(Expectation instead, String reason) {
    /**
     * The server answers {@code instead}, and the case holds it to that.
     *
     * @param instead what it answers
     * @param reason why
     * @return the deviation
     */
    public static Http2Deviation answers(Expectation instead, String reason) {
        return new Http2Deviation(instead, reason);
    }

    /**
     * The case is skipped for this server.
     *
     * @param reason why
     * @return the deviation
     */
    public static Http2Deviation skipped(String reason) {
        return new Http2Deviation(null, reason);
    }
}
