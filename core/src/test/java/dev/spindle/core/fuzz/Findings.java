// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import java.util.Arrays;

/** A broken property becomes an {@link AssertionError}, which Jazzer records as a finding with its input. */
final class Findings {
    private Findings() {
    }

    static void require(boolean property, String what, Object... context) {
        if (!property) {
            throw new AssertionError(what + ": " + Arrays.deepToString(context));
        }
    }
}
