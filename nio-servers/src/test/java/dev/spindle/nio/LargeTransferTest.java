// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.conformance.LargeTransferSuite;

/** The NIO family's large-transfer check, on {@link MultiLoopServer} (files go by {@code transferTo}). */
class LargeTransferTest extends LargeTransferSuite {
    @Override
    protected Class<?> serverClass() {
        return MultiLoopServer.class;
    }
}
