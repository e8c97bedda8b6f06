// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Native buffers for sends, pooled per ring in two sizes: a connection copies its pending output
 * into one when it submits a send and gives it back when the send completes, so only connections
 * with a send in flight hold one. Small responses (a pipelined batch of them included) take a
 * {@value #SMALL}-byte buffer; larger output a {@code large}-byte one, and what does not fit goes
 * in the next send. Idle buffers beyond {@value #MAX_IDLE} per size are left to the GC
 * ({@link Arena#ofAuto()}), safe because a buffer is only released once the kernel is done with it.
 */
final class SendBuffers {
    static final int SMALL = 16 * 1024;
    static final int MAX_IDLE = 256;

    private final int large;
    private final ArrayDeque<MemorySegment> smallIdle = new ArrayDeque<>();
    private final ArrayDeque<MemorySegment> largeIdle = new ArrayDeque<>();

    SendBuffers(int large) {
        this.large = Math.max(large, SMALL);
    }

    /** A buffer for {@code pending} bytes of output: it may be smaller than that. */
    MemorySegment acquire(int pending) {
        boolean small = pending <= SMALL;
        MemorySegment buffer = (small ? smallIdle : largeIdle).pollLast();
        if (buffer == null) {
            buffer = Arena.ofAuto().allocate(small ? SMALL : large, 64);
        }
        return buffer;
    }

    void release(MemorySegment buffer) {
        ArrayDeque<MemorySegment> idle = buffer.byteSize() == SMALL ? smallIdle : largeIdle;
        if (idle.size() < MAX_IDLE) {
            idle.addLast(buffer);
        }
    }
}
