// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_sq;
import dev.spindle.iouring.ffi.io_uring_sqe;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The submission side of a {@link Ring}, in Java because liburing's helpers for it are
 * {@code static inline} (jextract cannot bind them): {@code io_uring_get_sqe} on cached views of
 * the mapped SQ (it advances {@code ring->sq.sqe_tail}, which liburing's submit publishes), and
 * the {@code io_uring_prep_*} field writes for the operations the server submits. Nothing reaches
 * the kernel before the ring's next {@link Ring#submitAndWait}; if the SQ fills up first it is
 * submitted early.
 */
@SuppressWarnings("restricted") // FFM: views of the kernel-mapped rings
final class SubmissionQueue {
    private static final long SQE_TAIL = io_uring.sq$offset() + io_uring_sq.sqe_tail$offset();
    private static final long SQE_SIZE = io_uring_sqe.sizeof();
    /** The kernel's {@code unsigned} SQ head, read with an acquire load ({@code io_uring_smp_load_acquire}). */
    private static final VarHandle U32 = ValueLayout.JAVA_INT.varHandle();

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
        int head = (int) U32.getAcquire(khead, 0L);
        if (tail + 1 - head > entries) {
            return null;
        }
        ring.set(ValueLayout.JAVA_INT, SQE_TAIL, tail + 1);
        return sqes.asSlice((tail & mask) * SQE_SIZE, SQE_SIZE);
    }

    /**
     * A free SQE prepared as {@code io_uring_prep_rw} does (every field the kernel may read set or
     * cleared), with {@code user_data} set ({@code io_uring_sqe_set_data64}).
     */
    private MemorySegment prepare(int op, int fd, long addr, int len, long offset, long userData) {
        MemorySegment sqe = next();
        io_uring_sqe.opcode(sqe, (byte) op);
        io_uring_sqe.flags(sqe, (byte) 0);
        io_uring_sqe.ioprio(sqe, (short) 0);
        io_uring_sqe.fd(sqe, fd);
        io_uring_sqe.off(sqe, offset);
        io_uring_sqe.addr(sqe, addr);
        io_uring_sqe.len(sqe, len);
        io_uring_sqe.rw_flags(sqe, 0);
        io_uring_sqe.buf_index(sqe, (short) 0);
        io_uring_sqe.personality(sqe, (short) 0);
        io_uring_sqe.file_index(sqe, 0);
        io_uring_sqe.addr3(sqe, 0L);
        io_uring_sqe.__pad2(sqe, 0, 0L);
        io_uring_sqe.user_data(sqe, userData);
        return sqe;
    }

    /** {@code io_uring_prep_multishot_accept} without the peer address. */
    void multishotAccept(int listenFd, int flags, long userData) {
        MemorySegment sqe = prepare(LibUring.IORING_OP_ACCEPT(), listenFd, 0L, 0, 0L, userData);
        io_uring_sqe.accept_flags(sqe, flags);
        io_uring_sqe.ioprio(sqe, (short) LibUring.IORING_ACCEPT_MULTISHOT());
    }

    /** {@code io_uring_prep_recv_multishot} picking its buffers from the provided-buffer group {@code bgid}. */
    void multishotRecv(int fd, int bgid, long userData) {
        MemorySegment sqe = prepare(LibUring.IORING_OP_RECV(), fd, 0L, 0, 0L, userData);
        io_uring_sqe.ioprio(sqe, (short) LibUring.IORING_RECV_MULTISHOT());
        io_uring_sqe.flags(sqe, (byte) LibUring.IOSQE_BUFFER_SELECT());
        io_uring_sqe.buf_group(sqe, (short) bgid);
    }

    /**
     * {@code io_uring_prep_recv} of one buffer picked from the provided-buffer group {@code bgid}
     * (length 0: the buffer's own), completing once.
     */
    void recv(int fd, int bgid, long userData) {
        MemorySegment sqe = prepare(LibUring.IORING_OP_RECV(), fd, 0L, 0, 0L, userData);
        io_uring_sqe.flags(sqe, (byte) LibUring.IOSQE_BUFFER_SELECT());
        io_uring_sqe.buf_group(sqe, (short) bgid);
    }

    /**
     * {@code io_uring_prep_connect}: connects {@code fd} to the {@code sockaddr} of {@code addrLength}
     * bytes at {@code addr}, which must stay allocated until the operation completes.
     */
    void connect(int fd, MemorySegment addr, int addrLength, long userData) {
        prepare(LibUring.IORING_OP_CONNECT(), fd, addr.address(), 0, addrLength, userData);
    }

    void send(int fd, MemorySegment buffer, int length, int msgFlags, long userData) {
        MemorySegment sqe = prepare(LibUring.IORING_OP_SEND(), fd, buffer.address(), length, 0L, userData);
        io_uring_sqe.msg_flags(sqe, msgFlags);
    }

    void read(int fd, MemorySegment buffer, int length, long userData) {
        prepare(LibUring.IORING_OP_READ(), fd, buffer.address(), length, 0L, userData);
    }

    /** Cancels the operation submitted with {@code target}; a successful cancel posts no CQE where the kernel allows skipping it. */
    void cancel(long target, long userData) {
        MemorySegment sqe = prepare(LibUring.IORING_OP_ASYNC_CANCEL(), -1, target, 0, 0L, userData);
        io_uring_sqe.flags(sqe, (byte) cancelFlags);
    }
}
