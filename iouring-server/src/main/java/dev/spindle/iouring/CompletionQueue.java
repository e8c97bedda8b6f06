// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_cq;
import dev.spindle.iouring.ffi.io_uring_cqe;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The completion side of a {@link Ring}, read in Java as liburing's {@code static inline}
 * {@code io_uring_for_each_cqe} does: the tail with an acquire load, the CQEs in place, then the
 * head advanced once per batch with a release store ({@code io_uring_cq_advance}).
 */
@SuppressWarnings("restricted") // FFM: views of the kernel-mapped rings
final class CompletionQueue {
    /** Receives each completion; must not keep the values beyond the call. */
    interface Handler {
        void completed(long userData, int res, int flags);
    }

    private static final long CQE_SIZE = io_uring_cqe.sizeof();
    private static final long USER_DATA = io_uring_cqe.user_data$offset();
    private static final long RES = io_uring_cqe.res$offset();
    private static final long FLAGS = io_uring_cqe.flags$offset();
    /** The kernel's {@code unsigned} head and tail: {@code io_uring_smp_load_acquire}/{@code io_uring_smp_store_release}. */
    private static final VarHandle U32 = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment khead;
    private final MemorySegment ktail;
    private final MemorySegment cqes;
    private final int mask;

    CompletionQueue(MemorySegment ring) {
        MemorySegment cq = io_uring.cq(ring);
        int entries = io_uring_cq.ring_entries(cq);
        this.mask = io_uring_cq.ring_mask(cq);
        this.khead = io_uring_cq.khead(cq).reinterpret(Integer.BYTES);
        this.ktail = io_uring_cq.ktail(cq).reinterpret(Integer.BYTES);
        this.cqes = io_uring_cq.cqes(cq).reinterpret(entries * CQE_SIZE);
    }

    /** Hands every posted completion to {@code handler}, then releases them to the kernel; returns how many. */
    int drain(Handler handler) {
        int head = khead.get(ValueLayout.JAVA_INT, 0);
        int tail = (int) U32.getAcquire(ktail, 0L);
        int count = tail - head;
        if (count == 0) {
            return 0;
        }
        int h = head;
        try {
            while (h != tail) {
                long offset = (h & mask) * CQE_SIZE;
                h++;
                handler.completed(cqes.get(ValueLayout.JAVA_LONG, offset + USER_DATA),
                        cqes.get(ValueLayout.JAVA_INT, offset + RES),
                        cqes.get(ValueLayout.JAVA_INT, offset + FLAGS));
            }
        } finally {
            // a handler that throws loses only its own CQE, never the rest of the batch's
            U32.setRelease(khead, 0L, h);
        }
        return count;
    }

    /** Completions posted and not yet drained ({@code io_uring_cq_ready}). */
    int ready() {
        return (int) U32.getAcquire(ktail, 0L) - khead.get(ValueLayout.JAVA_INT, 0);
    }
}
