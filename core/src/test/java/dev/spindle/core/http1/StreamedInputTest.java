// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.spi.BodyBudget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The input buffer under a streamed body that arrives faster than its consumer takes it (as
 * io_uring's multishot receive delivers it): a grown array stays while the body streams, instead
 * of being let go each time the consumer drains it and grown again from the initial size, and goes
 * with its reservation once the body ends.
 */
class StreamedInputTest {
    private static final int INITIAL = 16 * 1024;
    private static final int BURST = 2 * OutputBuffer.RETAIN_LIMIT;

    @Test
    void aGrownArrayStaysWhileTheBodyStreamsAndGoesWhenItEnds() {
        BodyBudget budget = new BodyBudget(1 << 30);
        InputBuffer in = new InputBuffer(INITIAL, budget);
        in.append(ByteBuffer.wrap(new byte[BURST]));
        byte[] grown = in.ownArray();
        assertThat(grown.length).as("the burst grew the array").isGreaterThanOrEqualTo(BURST);

        in.consumeBody(BURST);
        assertThat(in.ownArray()).as("drained by the body's consumer, kept").isSameAs(grown);
        in.append(ByteBuffer.wrap(new byte[BURST]));
        assertThat(in.ownArray()).as("the next burst fits without a new array").isSameAs(grown);
        in.consumeBody(BURST);

        in.bodyEnded();
        assertThat(in.capacity()).as("back to the initial size").isEqualTo(INITIAL);
        assertThat(budget.reserved()).as("the growth's reservation is given back").isZero();
    }

    @Test
    void outsideABodyADrainedLargeArrayGoesAtOnce() {
        InputBuffer in = new InputBuffer(INITIAL, new BodyBudget(1 << 30));
        in.append(ByteBuffer.wrap(new byte[BURST]));
        in.consume(BURST);
        assertThat(in.capacity()).isEqualTo(INITIAL);
    }

    @Test
    void aBodyEndingWhileMemoryIsLentLetsTheArrayGoWhenTheLendEnds() {
        BodyBudget budget = new BodyBudget(1 << 30);
        InputBuffer in = new InputBuffer(INITIAL, budget);
        in.append(ByteBuffer.wrap(new byte[BURST]));
        in.consumeBody(BURST);
        byte[] lent = new byte[64];
        in.lend(MemorySegment.ofArray(lent), lent, 0, lent.length);
        in.consumeBody(lent.length);

        in.bodyEnded();
        assertThat(budget.reserved()).as("still lent: nothing changes yet").isPositive();
        in.keepTail();
        assertThat(in.capacity()).isEqualTo(INITIAL);
        assertThat(budget.reserved()).isZero();
    }

    @Test
    void appendingFromNativeMemoryCopiesTheRangeAsABufferWould() {
        InputBuffer in = new InputBuffer(INITIAL);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(3 * INITIAL);
            for (int i = 0; i < memory.byteSize(); i++) {
                memory.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            in.append(memory, 5, 10);
            in.append(memory, INITIAL, 2 * INITIAL);
        }
        assertThat(in.available()).isEqualTo(10 + 2 * INITIAL);
        for (int i = 0; i < 10; i++) {
            assertThat(in.memory.get(ValueLayout.JAVA_BYTE, in.start + i)).isEqualTo((byte) (5 + i));
        }
        for (int i = 0; i < 2 * INITIAL; i++) {
            assertThat(in.memory.get(ValueLayout.JAVA_BYTE, in.start + 10 + i)).isEqualTo((byte) (INITIAL + i));
        }
    }
}
