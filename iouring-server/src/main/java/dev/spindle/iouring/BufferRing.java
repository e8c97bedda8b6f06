// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.io_uring_buf;
import dev.spindle.iouring.ffi.io_uring_buf_reg;
import dev.spindle.iouring.ffi.io_uring_buf_ring;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A provided-buffer ring ({@code IORING_REGISTER_PBUF_RING}, registered with
 * {@code io_uring_register_buf_ring}; liburing 2.3 has no {@code io_uring_setup_buf_ring}): the
 * kernel picks a buffer for each multishot-recv completion and names it in the CQE; the ring
 * thread hands the bytes to the connection and {@link #recycle}s the buffer at once, and
 * {@link #publish} makes all recycled buffers visible with one release store of the tail per batch.
 * Filling and publishing entries are liburing's {@code static inline} {@code io_uring_buf_ring_add}
 * and {@code io_uring_buf_ring_advance}, done here in Java.
 */
final class BufferRing {
    /** The ring's {@code __u16 tail}, published with a release store ({@code io_uring_smp_store_release}). */
    private static final VarHandle U16 = ValueLayout.JAVA_SHORT.varHandle();
    private static final long TAIL = io_uring_buf_ring.tail$offset();

    final int bgid;
    final int entries;
    final int bufferSize;
    private final int mask;
    private final MemorySegment ring;
    private final MemorySegment buffers;
    private int added;

    BufferRing(Ring owner, Arena arena, int bgid, int entries, int bufferSize) throws IOException {
        this.bgid = bgid;
        this.entries = entries;
        this.bufferSize = bufferSize;
        this.mask = entries - 1; // io_uring_buf_ring_mask
        this.ring = arena.allocate(entries * io_uring_buf.sizeof(), 4096).fill((byte) 0);
        this.buffers = arena.allocate((long) entries * bufferSize, 4096);
        MemorySegment reg = io_uring_buf_reg.allocate(arena).fill((byte) 0);
        io_uring_buf_reg.ring_addr(reg, ring.address());
        io_uring_buf_reg.ring_entries(reg, entries);
        io_uring_buf_reg.bgid(reg, (short) bgid);
        int ret = LibUring.io_uring_register_buf_ring(owner.ring, reg, 0);
        if (ret < 0) {
            throw new IOException("io_uring_register_buf_ring failed: " + Errno.describe(-ret));
        }
        for (int bid = 0; bid < entries; bid++) {
            recycle(bid);
        }
        publish();
    }

    /** The memory of every buffer; buffer {@code bid} starts at {@link #offset}. */
    MemorySegment memory() {
        return buffers;
    }

    /** Where buffer {@code bid} starts in {@link #memory}; its bytes stay valid until recycled. */
    long offset(int bid) {
        return (long) bid * bufferSize;
    }

    /** Gives buffer {@code bid} back ({@code io_uring_buf_ring_add}); the kernel sees it after {@link #publish}. */
    void recycle(int bid) {
        MemorySegment buf = io_uring_buf.asSlice(ring, (tail() + added++) & mask);
        io_uring_buf.addr(buf, buffers.address() + (long) bid * bufferSize);
        io_uring_buf.len(buf, bufferSize);
        io_uring_buf.bid(buf, (short) bid);
    }

    /** Makes the recycled buffers visible to the kernel ({@code io_uring_buf_ring_advance}). */
    void publish() {
        if (added > 0) {
            U16.setRelease(ring, TAIL, (short) (tail() + added));
            added = 0;
        }
    }

    void unregister(Ring owner) {
        LibUring.io_uring_unregister_buf_ring(owner.ring, bgid);
    }

    int tail() {
        return Short.toUnsignedInt(io_uring_buf_ring.tail(ring));
    }
}
