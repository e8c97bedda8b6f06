// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.LargeTransferSuite;

/**
 * The blocking family's large-transfer check, on {@link VirtualThreadServer}: the upload is read by
 * a blocking handler on a virtual thread of its own, fed by the connection's thread.
 */
class LargeTransferTest extends LargeTransferSuite {
    @Override
    protected Class<?> serverClass() {
        return VirtualThreadServer.class;
    }
}
