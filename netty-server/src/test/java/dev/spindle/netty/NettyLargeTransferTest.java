package dev.spindle.netty;

import dev.spindle.conformance.LargeTransferSuite;

/**
 * The Netty reference's large-transfer check, on its default (best available) transport: files go
 * as file regions, input streams and writers through {@code ChunkedWriteHandler}.
 */
class NettyLargeTransferTest extends LargeTransferSuite {
    @Override
    protected Class<?> serverClass() {
        return NettyServer.class;
    }
}
