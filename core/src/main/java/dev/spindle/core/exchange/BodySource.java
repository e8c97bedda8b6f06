// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import java.io.IOException;

/** Pulls more request bytes on the consumer's own thread, for strategies that run handlers inline. */
@FunctionalInterface
public interface BodySource {
    /**
     * Reads more input for the body.
     *
     * @return false when none will come (the body has ended or failed)
     * @throws IOException when reading fails
     */
    boolean pull() throws IOException;
}
