package dev.spindle.blocking;

import dev.spindle.core.conformance.LargeTransferCheck;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The blocking family's large-transfer check: a {@link VirtualThreadServer} in its own
 * {@code -Xmx256m} JVM streams 1 GiB down (input stream, writer, file) and up (read by a handler
 * on the connection's thread through the input pump) byte-exact, and a slow reader does not grow
 * its heap.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class LargeTransferTest {
    private LargeTransferCheck check;

    @BeforeAll
    void start() throws Exception {
        check = LargeTransferCheck.start(VirtualThreadServer.class);
    }

    @AfterAll
    void stop() {
        if (check != null) {
            check.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/stream/", "/writer/", "/file/"})
    void downloads(String route) throws Exception {
        check.downloads(route);
    }

    @Test
    void uploads() throws Exception {
        check.uploads();
    }

    @Test
    void slowReaderDoesNotGrowTheHeap() throws Exception {
        check.slowReaderDoesNotGrowTheHeap();
    }
}
