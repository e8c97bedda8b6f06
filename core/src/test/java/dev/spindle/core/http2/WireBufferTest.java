// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WireBufferTest {
    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** A length patched after the pending bytes moved to the front of the array lands on the same byte. */
    @Test
    void aPositionSurvivesCompaction() {
        WireBuffer out = new WireBuffer(64);
        out.put(filled(40, 1), 0, 40);
        out.written(30);
        int at = out.position();
        out.putMedium(0);
        out.put(filled(40, 2), 0, 40);
        assertThat(out.capacity()).as("compacted, not grown").isEqualTo(64);
        out.patchMedium(at, 0x123456);
        byte[] pending = out.toArray();
        assertThat(pending).hasSize(53);
        assertThat(Arrays.copyOfRange(pending, 10, 13)).containsExactly(0x12, 0x34, 0x56);
        assertThat(Arrays.copyOfRange(pending, 13, 53)).containsOnly(2);
        assertThat(out.get(at + 1)).isEqualTo(0x34);
    }

    @Test
    void aPositionSurvivesGrowthAndEmptying() {
        WireBuffer out = new WireBuffer(16);
        out.put(filled(10, 1), 0, 10);
        out.written(10);
        out.put(filled(4, 3), 0, 4);
        out.written(2);
        int at = out.position();
        out.putInt(0);
        out.put(filled(100, 2), 0, 100);
        out.patchInt(at, 0x01020304);
        out.patch(at + 4, 9);
        byte[] pending = out.toArray();
        assertThat(Arrays.copyOfRange(pending, 0, 7)).containsExactly(3, 3, 1, 2, 3, 4, 9);
    }

    @Test
    void moveOpensAGap() {
        WireBuffer out = new WireBuffer(8);
        int at = out.position();
        out.put(new byte[] {1, 2, 3, 4}, 0, 4);
        out.skip(2);
        out.move(at + 2, at + 4, 2);
        out.patch(at + 2, 8);
        out.patch(at + 3, 9);
        assertThat(out.toArray()).containsExactly(1, 2, 8, 9, 3, 4);
    }

    @Test
    void bytesAlreadyWrittenCannotBePatched() {
        WireBuffer out = new WireBuffer(16);
        int at = out.position();
        out.putInt(0);
        out.put(1);
        out.written(4);
        assertThatThrownBy(() -> out.patchMedium(at, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> out.patch(out.position(), 1)).isInstanceOf(IllegalStateException.class);
    }
}
