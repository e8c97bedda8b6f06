package dev.spindle.netty;

import dev.spindle.core.conformance.LargeTransferCheck;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link NettyServer} in a JVM of its own with {@code -Xmx256m}, on each transport: 1 GiB streamed
 * down from an input stream, a writer and a file (a file region, zero-copy), 1 GiB streamed up, and
 * a slow reader that does not grow the heap.
 */
@Timeout(600)
class NettyLargeTransferTest {
    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void gigabyteTransfersInBoundedMemory(NettyTransport transport) throws Exception {
        Assumptions.assumeTrue(transport.isAvailable(), () -> "Netty's " + transport + " transport is unavailable here");
        try (LargeTransferCheck check = LargeTransferCheck.start(NettyServer.class, "-D" + NettyTransport.PROPERTY + "=" + transport.id())) {
            check.downloads("/stream/");
            check.downloads("/writer/");
            check.downloads("/file/");
            check.uploads();
            check.slowReaderDoesNotGrowTheHeap();
        }
    }
}
