// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SendBuffersTest {
    private final SendBuffers buffers = new SendBuffers(256 * 1024);

    @ParameterizedTest(name = "{0} pending bytes take a {1}-byte buffer")
    @CsvSource({"1, 256", "40, 256", "256, 256", "257, 2048", "2048, 2048", "2049, 16384", "16384, 16384",
            "16385, 262144", "262144, 262144", "1048576, 262144"})
    void theSmallestClassThatHoldsThePendingBytes(int pending, long size) {
        assertThat(buffers.acquire(pending).byteSize()).isEqualTo(size);
    }

    @Test
    void aFanOutOfSmallSendsIsServedFromSlabsAndKeptForTheNextOne() {
        List<MemorySegment> inFlight = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            inFlight.add(buffers.acquire(40));
        }
        assertThat(buffers.idle(256)).as("what the last slab had left").isLessThan(SendBuffers.SLAB / 256);
        inFlight.forEach(buffers::release);
        assertThat(buffers.idle(256)).as("all 10,000 kept: 2.4 MiB, under the class's bound").isGreaterThanOrEqualTo(10_000);
        MemorySegment again = buffers.acquire(40);
        assertThat(inFlight).as("the next burst reuses them").anyMatch(b -> b.address() == again.address());
    }

    @Test
    void idleBuffersAreBoundedPerClass() {
        List<MemorySegment> inFlight = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            inFlight.add(buffers.acquire(16_000));
        }
        inFlight.forEach(buffers::release);
        assertThat(buffers.idle(16384)).isEqualTo(SendBuffers.IDLE_BYTES / 16384);
    }
}
