// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One server of a family in its own {@code -Xmx128m} JVM ({@link LargeTransferCheck}): 512 MiB
 * streamed down from an input stream, a writer and a file, 512 MiB streamed up, byte-exact, and a
 * slow reader of 1 GiB that does not grow its heap. A module subclasses it and names its server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
public abstract class LargeTransferSuite {
    private LargeTransferCheck check;

    /** The server class to run; it needs a {@code (ServerConfig, Router)} constructor. */
    protected abstract Class<?> serverClass();

    /** Extra JVM options for the server's process. */
    protected String[] jvmOptions() {
        return new String[0];
    }

    /** Skips the class (with a reason) where the server cannot run here. */
    protected void assumeRunnable() {
    }

    @BeforeAll
    void start() throws Exception {
        assumeRunnable();
        check = LargeTransferCheck.start(serverClass(), jvmOptions());
    }

    @AfterAll
    void stop() {
        if (check != null) {
            check.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/stream/", "/writer/", "/file/"})
    void downloadOfFourHeapsArrivesByteExact(String route) throws Exception {
        check.downloads(route);
    }

    @Test
    void uploadOfFourHeapsArrivesByteExact() throws Exception {
        check.uploads();
    }

    @Test
    void slowReaderDoesNotGrowTheHeap() throws Exception {
        check.slowReaderDoesNotGrowTheHeap();
    }
}
