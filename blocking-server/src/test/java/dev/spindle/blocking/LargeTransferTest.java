// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.conformance.LargeTransferSuite;

/**
 * The blocking family's large-transfer check, on {@link VirtualThreadServer}: the upload is read by
 * a handler on the connection's own thread through the input pump.
 */
class LargeTransferTest extends LargeTransferSuite {
    @Override
    protected Class<?> serverClass() {
        return VirtualThreadServer.class;
    }
}
