// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class ReadBufferTest {
    /** A flood dropped by a lingering connection takes few reads, and no dropping connection holds a buffer of its own. */
    @Test
    void droppingConnectionsShareOneBufferAndDropAFloodInFewReads() throws IOException {
        ReadBuffer buffer = new ReadBuffer(64 * 1024, false);
        buffer.drop();
        assertThat(buffer.capacity()).isZero();
        InputStream flood = new ByteArrayInputStream(new byte[300 * 1024 * 1024]);
        int reads = 0;
        while (buffer.readFrom(flood) > 0) {
            reads++;
        }
        // 300 MiB in 64 KiB reads (it took 614,400 reads of 512 bytes)
        assertThat(reads).isEqualTo(4_800);
        ReadBuffer rejected = new ReadBuffer(64 * 1024, true);
        assertThat(rejected.capacity()).isZero();
        assertThat(rejected.readFrom(new ByteArrayInputStream(new byte[] {1, 2, 3}))).isEqualTo(3);
        assertThat(rejected.filled(3).remaining()).as("what the read brought, for the connection to drop").isEqualTo(3);
    }

    @Test
    void aServingBufferGrowsToItsMaximumAndStays() throws IOException {
        ReadBuffer buffer = new ReadBuffer(64 * 1024, false);
        assertThat(buffer.capacity()).isEqualTo(4096);
        InputStream flood = new ByteArrayInputStream(new byte[1 << 20]);
        while (buffer.readFrom(flood) > 0) {
            assertThat(buffer.capacity()).isLessThanOrEqualTo(64 * 1024);
        }
        assertThat(buffer.capacity()).isEqualTo(64 * 1024);
    }
}
