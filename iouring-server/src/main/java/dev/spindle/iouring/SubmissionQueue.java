package dev.spindle.iouring;

import static dev.spindle.iouring.ffi.LibUringInline.io_uring_prep_cancel64;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_prep_multishot_accept;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_prep_read;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_prep_recv_multishot;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_prep_send;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_sqe_set_buf_group;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_sqe_set_data64;
import static dev.spindle.iouring.ffi.LibUringInline.io_uring_sqe_set_flags;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.LibUringInline;
import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_sq;
import dev.spindle.iouring.ffi.io_uring_sqe;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The submission side of a {@link Ring}: {@code _io_uring_get_sqe} in Java on cached views of
 * the mapped SQ (it advances {@code ring->sq.sqe_tail}, which liburing's submit publishes), and
 * the operations the server prepares. Nothing reaches the kernel before the ring's next
 * {@link Ring#submitAndWait}; if the SQ fills up first it is submitted early.
 */
@SuppressWarnings("restricted") // FFM: views of the kernel-mapped rings
final class SubmissionQueue {
    private static final long SQE_TAIL = io_uring.sq$offset() + io_uring_sq.sqe_tail$offset();
    private static final long SQE_SIZE = io_uring_sqe.sizeof();

    private final Ring owner;
    private final MemorySegment ring;
    private final MemorySegment khead;
    private final MemorySegment sqes;
    private final int mask;
    private final int entries;
    private final int cancelFlags;
    /** Times the SQ filled up within one loop iteration and was submitted early. */
    long submittedEarly;

    SubmissionQueue(Ring owner) {
        this.owner = owner;
        this.ring = owner.ring;
        MemorySegment sq = io_uring.sq(ring);
        this.entries = io_uring_sq.ring_entries(sq);
        this.mask = io_uring_sq.ring_mask(sq);
        this.khead = io_uring_sq.khead(sq).reinterpret(Integer.BYTES);
        this.sqes = io_uring_sq.sqes(sq).reinterpret(entries * SQE_SIZE);
        this.cancelFlags = owner.hasFeature(LibUring.IORING_FEAT_CQE_SKIP()) ? LibUring.IOSQE_CQE_SKIP_SUCCESS() : 0;
    }

    /** A free SQE; submits what is queued if the SQ is full. */
    MemorySegment next() {
        MemorySegment sqe = tryNext();
        if (sqe == null) {
            submittedEarly++;
            int ret = owner.submit();
            sqe = tryNext();
            if (sqe == null) {
                throw new IllegalStateException("io_uring submission queue full (submit returned " + ret + ")");
            }
        }
        return sqe;
    }

    private MemorySegment tryNext() {
        int tail = ring.get(ValueLayout.JAVA_INT, SQE_TAIL);
        int head = LibUringInline.load_acquire(khead);
        if (tail + 1 - head > entries) {
            return null;
        }
        ring.set(ValueLayout.JAVA_INT, SQE_TAIL, tail + 1);
        return sqes.asSlice((tail & mask) * SQE_SIZE, SQE_SIZE);
    }

    void multishotAccept(int listenFd, int flags, long userData) {
        MemorySegment sqe = next();
        io_uring_prep_multishot_accept(sqe, listenFd, MemorySegment.NULL, MemorySegment.NULL, flags);
        io_uring_sqe_set_data64(sqe, userData);
    }

    /** A multishot recv that picks its buffers from the provided-buffer group {@code bgid}. */
    void multishotRecv(int fd, int bgid, long userData) {
        MemorySegment sqe = next();
        io_uring_prep_recv_multishot(sqe, fd, MemorySegment.NULL, 0, 0);
        io_uring_sqe_set_flags(sqe, LibUring.IOSQE_BUFFER_SELECT());
        io_uring_sqe_set_buf_group(sqe, bgid);
        io_uring_sqe_set_data64(sqe, userData);
    }

    void send(int fd, MemorySegment buffer, int length, int msgFlags, long userData) {
        MemorySegment sqe = next();
        io_uring_prep_send(sqe, fd, buffer, length, msgFlags);
        io_uring_sqe_set_data64(sqe, userData);
    }

    void read(int fd, MemorySegment buffer, int length, long userData) {
        MemorySegment sqe = next();
        io_uring_prep_read(sqe, fd, buffer, length, 0L);
        io_uring_sqe_set_data64(sqe, userData);
    }

    /** Cancels the operation submitted with {@code target}; a successful cancel posts no CQE where the kernel allows skipping it. */
    void cancel(long target, long userData) {
        MemorySegment sqe = next();
        io_uring_prep_cancel64(sqe, target, 0);
        io_uring_sqe_set_flags(sqe, cancelFlags);
        io_uring_sqe_set_data64(sqe, userData);
    }
}
