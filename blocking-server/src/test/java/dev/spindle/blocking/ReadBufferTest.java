// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

class ReadBufferTest {
    /** A flood dropped by a lingering connection takes few reads; a quiet one holds 512 bytes again. */
    @Test
    void aDroppingBufferGrowsWhileFloodedAndShrinksWhenQuiet() throws IOException {
        ReadBuffer buffer = new ReadBuffer(64 * 1024, false);
        buffer.drop();
        assertThat(buffer.capacity()).isEqualTo(512);
        InputStream flood = new ByteArrayInputStream(new byte[300 * 1024 * 1024]);
        int reads = 0;
        while (buffer.readFrom(flood) > 0) {
            reads++;
            assertThat(buffer.capacity()).isLessThanOrEqualTo(64 * 1024);
        }
        // 300 MiB in 64 KiB reads, after a few growing ones (it took 614,400 reads of 512 bytes)
        assertThat(reads).isBetween(4_800, 4_810);
        InputStream trickle = new ByteArrayInputStream(new byte[100]);
        buffer.readFrom(trickle);
        buffer.readFrom(trickle);
        assertThat(buffer.capacity()).isEqualTo(512);
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
