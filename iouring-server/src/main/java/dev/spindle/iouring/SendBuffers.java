// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Native buffers for sends, pooled per ring by size class: a connection copies its pending output
 * into the smallest buffer that holds it when it submits a send and gives it back when the send
 * completes, so only connections with a send in flight hold one. Output larger than
 * {@value #SMALL} bytes takes a {@code large} one, and what does not fit goes in the next send.
 *
 * <p>The classes matter for fan-out: a broadcast puts one small send in flight on each of
 * thousands of connections at once. Each used to take a 16 KiB buffer, and beyond the pool's bound
 * every burst allocated (and left to the GC) a buffer per connection, 156 MiB per event to 10,000
 * sockets, whose reservations against the direct-memory limit ended in full GCs ({@code System.gc()}
 * from the JDK's reservation when the limit is reached).
 * Buffers under {@value #SMALL} bytes are cut from {@value #SLAB}-byte slabs, one native allocation
 * for many. Each class keeps at most {@value #IDLE_BYTES} bytes of idle buffers (the large class
 * {@value #MAX_IDLE_LARGE} buffers); beyond that they are left to the GC ({@link Arena#ofAuto()}),
 * safe because a buffer is only released once the kernel is done with it.
 */
final class SendBuffers {
    static final int SMALL = 16 * 1024;
    /** The classes up to {@link #SMALL}; the large class comes after them. */
    private static final int[] SMALL_CLASSES = {256, 2048, SMALL};
    static final int SLAB = 64 * 1024;
    static final int IDLE_BYTES = 4 << 20;
    static final int MAX_IDLE_LARGE = 256;

    private final int[] sizes;
    private final int[] maxIdle;
    private final ArrayDeque<MemorySegment>[] idle;

    @SuppressWarnings("unchecked")
    SendBuffers(int large) {
        int largeSize = Math.max(large, SMALL);
        int classes = largeSize > SMALL ? SMALL_CLASSES.length + 1 : SMALL_CLASSES.length;
        sizes = new int[classes];
        maxIdle = new int[classes];
        idle = (ArrayDeque<MemorySegment>[]) new ArrayDeque<?>[classes];
        for (int k = 0; k < classes; k++) {
            sizes[k] = k < SMALL_CLASSES.length ? SMALL_CLASSES[k] : largeSize;
            maxIdle[k] = sizes[k] > SMALL ? MAX_IDLE_LARGE : IDLE_BYTES / sizes[k];
            idle[k] = new ArrayDeque<>();
        }
    }

    /** A buffer for {@code pending} bytes of output: the smallest that holds them, or the largest there is. */
    MemorySegment acquire(int pending) {
        int k = 0;
        while (k < sizes.length - 1 && sizes[k] < pending) {
            k++;
        }
        MemorySegment buffer = idle[k].pollLast();
        return buffer != null ? buffer : allocate(k);
    }

    private MemorySegment allocate(int k) {
        int size = sizes[k];
        if (size >= SMALL) {
            return Arena.ofAuto().allocate(size, 64);
        }
        // the slab lives while any of its slices does
        MemorySegment slab = Arena.ofAuto().allocate(SLAB, 64);
        for (int at = size; at + size <= SLAB && idle[k].size() < maxIdle[k]; at += size) {
            idle[k].addLast(slab.asSlice(at, size));
        }
        return slab.asSlice(0, size);
    }

    void release(MemorySegment buffer) {
        long size = buffer.byteSize();
        for (int k = 0; k < sizes.length; k++) {
            if (sizes[k] == size) {
                if (idle[k].size() < maxIdle[k]) {
                    idle[k].addLast(buffer);
                }
                return;
            }
        }
    }

    /** {@return how many idle buffers of {@code size} bytes the pool holds}, for tests */
    int idle(int size) {
        for (int k = 0; k < sizes.length; k++) {
            if (sizes[k] == size) {
                return idle[k].size();
            }
        }
        return 0;
    }
}
