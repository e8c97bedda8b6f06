// Hand-written: the static inline functions of <liburing.h> (liburing 2.3), which no library
// exports and jextract therefore cannot bind, done in Java on the same memory. Not regenerated.
package dev.spindle.iouring.ffi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Java versions of liburing's {@code static inline} helpers, named as in C: SQE preparation
 * ({@code io_uring_prep_*}) is plain field writes; {@link #io_uring_cq_advance} publishes the
 * CQ head with a release store and {@link #io_uring_buf_ring_advance} the buffer-ring tail, as
 * {@code io_uring_smp_store_release} does; the CQ tail and SQ head are read with acquire loads.
 *
 * <p>The {@code ring} arguments are {@code struct io_uring} segments of at least
 * {@link io_uring#sizeof()} bytes; {@code sqe}/{@code cqe} are segments of one entry.
 */
@SuppressWarnings({"checkstyle:MethodName", "restricted"})
public final class LibUringInline {
    /** {@code unsigned} at a native address, with acquire/release access. */
    private static final VarHandle U32 = ValueLayout.JAVA_INT.varHandle();
    /** The buffer ring's {@code __u16 tail}. */
    private static final VarHandle U16 = ValueLayout.JAVA_SHORT.varHandle();

    private LibUringInline() {
    }

    // memory ordering, as io_uring_smp_load_acquire / io_uring_smp_store_release

    /** {@code io_uring_smp_load_acquire(p)} for an {@code unsigned *}. */
    public static int load_acquire(MemorySegment p) {
        return (int) U32.getAcquire(p, 0L);
    }

    /** {@code io_uring_smp_store_release(p, v)} for an {@code unsigned *}. */
    public static void store_release(MemorySegment p, int v) {
        U32.setRelease(p, 0L, v);
    }

    private static MemorySegment u32(MemorySegment pointer) {
        return pointer.reinterpret(Integer.BYTES);
    }


    /**
     * {@code _io_uring_get_sqe}: the next free SQE, or {@link MemorySegment#NULL} when the SQ is
     * full. Advances {@code ring->sq.sqe_tail}, which {@code io_uring_submit*} then publishes.
     */
    public static MemorySegment io_uring_get_sqe(MemorySegment ring) {
        MemorySegment sq = io_uring.sq(ring);
        int next = io_uring_sq.sqe_tail(sq) + 1;
        int head = load_acquire(u32(io_uring_sq.khead(sq)));
        int entries = io_uring_sq.ring_entries(sq);
        if (Integer.compareUnsigned(next - head, entries) > 0) {
            return MemorySegment.NULL;
        }
        int shift = (io_uring.flags(ring) & LibUring.IORING_SETUP_SQE128()) != 0 ? 1 : 0;
        long index = (long) ((io_uring_sq.sqe_tail(sq) & io_uring_sq.ring_mask(sq)) << shift);
        MemorySegment sqes = io_uring_sq.sqes(sq).reinterpret((long) entries << shift << 6);
        io_uring_sq.sqe_tail(sq, next);
        return io_uring_sqe.asSlice(sqes, index).asSlice(0, io_uring_sqe.sizeof());
    }

    /** {@code io_uring_sq_ready}: SQEs prepared but not yet submitted. */
    public static int io_uring_sq_ready(MemorySegment ring) {
        MemorySegment sq = io_uring.sq(ring);
        return io_uring_sq.sqe_tail(sq) - load_acquire(u32(io_uring_sq.khead(sq)));
    }

    /** {@code io_uring_sq_space_left}. */
    public static int io_uring_sq_space_left(MemorySegment ring) {
        return io_uring_sq.ring_entries(io_uring.sq(ring)) - io_uring_sq_ready(ring);
    }

    /** {@code io_uring_prep_rw}: every field the kernel may read, set or cleared. */
    public static void io_uring_prep_rw(int op, MemorySegment sqe, int fd, long addr, int len, long offset) {
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
    }

    public static void io_uring_prep_nop(MemorySegment sqe) {
        io_uring_prep_rw(LibUring.IORING_OP_NOP(), sqe, -1, 0L, 0, 0L);
    }

    /** {@code ts} is a {@code struct __kernel_timespec} that must stay valid until submitted. */
    public static void io_uring_prep_timeout(MemorySegment sqe, MemorySegment ts, int count, int flags) {
        io_uring_prep_rw(LibUring.IORING_OP_TIMEOUT(), sqe, -1, ts.address(), 1, Integer.toUnsignedLong(count));
        io_uring_sqe.timeout_flags(sqe, flags);
    }

    public static void io_uring_prep_accept(MemorySegment sqe, int fd, MemorySegment addr, MemorySegment addrlen, int flags) {
        io_uring_prep_rw(LibUring.IORING_OP_ACCEPT(), sqe, fd, addr.address(), 0, addrlen.address());
        io_uring_sqe.accept_flags(sqe, flags);
    }

    public static void io_uring_prep_multishot_accept(MemorySegment sqe, int fd, MemorySegment addr, MemorySegment addrlen, int flags) {
        io_uring_prep_accept(sqe, fd, addr, addrlen, flags);
        io_uring_sqe.ioprio(sqe, (short) (io_uring_sqe.ioprio(sqe) | LibUring.IORING_ACCEPT_MULTISHOT()));
    }

    public static void io_uring_prep_cancel64(MemorySegment sqe, long user_data, int flags) {
        io_uring_prep_rw(LibUring.IORING_OP_ASYNC_CANCEL(), sqe, -1, 0L, 0, 0L);
        io_uring_sqe.addr(sqe, user_data);
        io_uring_sqe.cancel_flags(sqe, flags);
    }

    public static void io_uring_prep_read(MemorySegment sqe, int fd, MemorySegment buf, int nbytes, long offset) {
        io_uring_prep_rw(LibUring.IORING_OP_READ(), sqe, fd, buf.address(), nbytes, offset);
    }

    public static void io_uring_prep_send(MemorySegment sqe, int sockfd, MemorySegment buf, long len, int flags) {
        io_uring_prep_rw(LibUring.IORING_OP_SEND(), sqe, sockfd, buf.address(), (int) len, 0L);
        io_uring_sqe.msg_flags(sqe, flags);
    }

    public static void io_uring_prep_recv(MemorySegment sqe, int sockfd, MemorySegment buf, long len, int flags) {
        io_uring_prep_rw(LibUring.IORING_OP_RECV(), sqe, sockfd, buf.address(), (int) len, 0L);
        io_uring_sqe.msg_flags(sqe, flags);
    }

    /** With {@code buf} NULL and {@code len} 0, pair it with buffer selection ({@link LibUring#IOSQE_BUFFER_SELECT()}). */
    public static void io_uring_prep_recv_multishot(MemorySegment sqe, int sockfd, MemorySegment buf, long len, int flags) {
        io_uring_prep_recv(sqe, sockfd, buf, len, flags);
        io_uring_sqe.ioprio(sqe, (short) (io_uring_sqe.ioprio(sqe) | LibUring.IORING_RECV_MULTISHOT()));
    }

    public static void io_uring_prep_shutdown(MemorySegment sqe, int fd, int how) {
        io_uring_prep_rw(LibUring.IORING_OP_SHUTDOWN(), sqe, fd, 0L, how, 0L);
    }

    public static void io_uring_prep_close(MemorySegment sqe, int fd) {
        io_uring_prep_rw(LibUring.IORING_OP_CLOSE(), sqe, fd, 0L, 0, 0L);
    }

    public static void io_uring_sqe_set_data64(MemorySegment sqe, long data) {
        io_uring_sqe.user_data(sqe, data);
    }

    public static void io_uring_sqe_set_flags(MemorySegment sqe, int flags) {
        io_uring_sqe.flags(sqe, (byte) flags);
    }

    /** Buffer selection needs {@code IOSQE_BUFFER_SELECT} in the flags and the group here. */
    public static void io_uring_sqe_set_buf_group(MemorySegment sqe, int bgid) {
        io_uring_sqe.buf_group(sqe, (short) bgid);
    }


    public static long io_uring_cqe_get_data64(MemorySegment cqe) {
        return io_uring_cqe.user_data(cqe);
    }

    /** {@code io_uring_cq_ready}: completions posted and not yet consumed. */
    public static int io_uring_cq_ready(MemorySegment ring) {
        MemorySegment cq = io_uring.cq(ring);
        return load_acquire(u32(io_uring_cq.ktail(cq))) - u32(io_uring_cq.khead(cq)).get(ValueLayout.JAVA_INT, 0);
    }

    /** {@code io_uring_cq_advance}: hands {@code nr} consumed CQEs back to the kernel (release store of the head). */
    public static void io_uring_cq_advance(MemorySegment ring, int nr) {
        if (nr != 0) {
            MemorySegment khead = u32(io_uring_cq.khead(io_uring.cq(ring)));
            store_release(khead, khead.get(ValueLayout.JAVA_INT, 0) + nr);
        }
    }

    /** {@code io_uring_cqe_seen}. */
    public static void io_uring_cqe_seen(MemorySegment ring, MemorySegment cqe) {
        if (cqe.address() != 0) {
            io_uring_cq_advance(ring, 1);
        }
    }


    public static int io_uring_buf_ring_mask(int ring_entries) {
        return ring_entries - 1;
    }

    public static void io_uring_buf_ring_init(MemorySegment br) {
        io_uring_buf_ring.tail(br, (short) 0);
    }

    /** {@code io_uring_buf_ring_add}: fills the entry {@code offset} past the tail; not visible until advanced. */
    public static void io_uring_buf_ring_add(MemorySegment br, MemorySegment addr, int len, short bid, int mask, int buf_offset) {
        io_uring_buf_ring_add(br, addr.address(), len, bid, mask, buf_offset);
    }

    /** {@link #io_uring_buf_ring_add(MemorySegment, MemorySegment, int, short, int, int)} with a raw address. */
    public static void io_uring_buf_ring_add(MemorySegment br, long addr, int len, short bid, int mask, int buf_offset) {
        int index = (Short.toUnsignedInt(io_uring_buf_ring.tail(br)) + buf_offset) & mask;
        MemorySegment buf = io_uring_buf.asSlice(br, index);
        io_uring_buf.addr(buf, addr);
        io_uring_buf.len(buf, len);
        io_uring_buf.bid(buf, bid);
    }

    /** {@code io_uring_buf_ring_advance}: publishes {@code count} added buffers (release store of the tail). */
    public static void io_uring_buf_ring_advance(MemorySegment br, int count) {
        short newTail = (short) (io_uring_buf_ring.tail(br) + count);
        U16.setRelease(br, io_uring_buf_ring.tail$offset(), newTail);
    }
}
