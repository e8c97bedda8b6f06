package dev.spindle.iouring;

import dev.spindle.core.conformance.LargeTransferCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link IoUringServer} in its own {@code -Xmx256m} JVM: 1 GiB down and up, and a slow reader, in bounded memory. */
@Timeout(300)
class LargeTransferTest {
    @Test
    void gibibyteStreamsPassInBoundedMemory() throws Exception {
        IoUringTests.assumeAvailable();
        try (LargeTransferCheck check = LargeTransferCheck.start(IoUringServer.class)) {
            check.downloads("/stream/");
            check.uploads();
            check.slowReaderDoesNotGrowTheHeap();
        }
    }
}
