// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import dev.spindle.iouring.ffi.__kernel_timespec;
import dev.spindle.iouring.ffi.io_uring;
import dev.spindle.iouring.ffi.io_uring_params;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code struct io_uring} set up by liburing, with its {@link SubmissionQueue} and
 * {@link CompletionQueue}. Created, used and closed by one thread: the ring is
 * {@code IORING_SETUP_SINGLE_ISSUER}, and with {@code DEFER_TASKRUN} only that thread may wait
 * on it; {@code io_uring_register_ring_fd} is per thread too.
 */
final class Ring implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Ring.class);

    /** What the server asks for first; {@link #open} falls back for older kernels. */
    static final int PREFERRED_FLAGS = LibUring.IORING_SETUP_SINGLE_ISSUER() | LibUring.IORING_SETUP_DEFER_TASKRUN()
            | LibUring.IORING_SETUP_SUBMIT_ALL() | LibUring.IORING_SETUP_COOP_TASKRUN();

    final MemorySegment ring;
    final SubmissionQueue sq;
    final CompletionQueue cq;
    final int flags;
    final int features;
    private final MemorySegment cqePtr;
    private final MemorySegment timeout;
    private boolean ringFdRegistered;
    private boolean closed;

    private Ring(Arena arena, MemorySegment ring, int flags, int features) {
        this.ring = ring;
        this.flags = flags;
        this.features = features;
        this.sq = new SubmissionQueue(this);
        this.cq = new CompletionQueue(ring);
        this.cqePtr = arena.allocate(ValueLayout.ADDRESS);
        this.timeout = __kernel_timespec.allocate(arena);
    }

    /**
     * Sets up a ring of {@code entries} SQEs and {@code cqEntries} CQEs with {@code flags} plus
     * {@code IORING_SETUP_CQSIZE}; if the kernel rejects a flag, retries with fewer (no
     * DEFER_TASKRUN/COOP_TASKRUN, then no SINGLE_ISSUER/SUBMIT_ALL). Never uses
     * {@code IORING_SETUP_NO_SQARRAY}, which liburing 2.3 does not understand.
     */
    static Ring open(Arena arena, int entries, int cqEntries, int flags, int sqpollIdleMillis) throws IOException {
        int[] attempts = flags == PREFERRED_FLAGS
                ? new int[] {flags, flags & ~(LibUring.IORING_SETUP_DEFER_TASKRUN() | LibUring.IORING_SETUP_COOP_TASKRUN()),
                        flags & ~(LibUring.IORING_SETUP_DEFER_TASKRUN() | LibUring.IORING_SETUP_COOP_TASKRUN()
                                | LibUring.IORING_SETUP_SINGLE_ISSUER() | LibUring.IORING_SETUP_SUBMIT_ALL())}
                : new int[] {flags};
        int ret = 0;
        for (int attempt : attempts) {
            MemorySegment ring = io_uring.allocate(arena).fill((byte) 0);
            MemorySegment params = io_uring_params.allocate(arena).fill((byte) 0);
            io_uring_params.flags(params, attempt | LibUring.IORING_SETUP_CQSIZE());
            io_uring_params.cq_entries(params, cqEntries);
            if ((attempt & LibUring.IORING_SETUP_SQPOLL()) != 0) {
                io_uring_params.sq_thread_idle(params, sqpollIdleMillis);
            }
            ret = LibUring.io_uring_queue_init_params(entries, ring, params);
            if (ret == 0) {
                if (attempt != flags) {
                    log.info("io_uring: the kernel refused setup flags {}; using {}", Integer.toHexString(flags), Integer.toHexString(attempt));
                }
                return new Ring(arena, ring, io_uring.flags(ring), io_uring_params.features(params));
            }
            if (ret != -Libc.EINVAL()) {
                break;
            }
        }
        throw new IOException("io_uring_queue_init_params failed: " + Errno.describe(-ret));
    }

    /** {@code io_uring_register_ring_fd}: later enters skip the fd lookup. Best effort. */
    void registerRingFd() {
        int ret = LibUring.io_uring_register_ring_fd(ring);
        ringFdRegistered = ret == 1;
        if (!ringFdRegistered) {
            log.debug("io_uring_register_ring_fd failed: {}", Errno.describe(-ret));
        }
    }

    boolean hasFeature(int feature) {
        return (features & feature) != 0;
    }

    int fd() {
        return io_uring.ring_fd(ring);
    }

    /**
     * The one liburing call per loop iteration: submits everything prepared and waits for at
     * least one completion or {@code timeoutNanos}. Returns liburing's result: {@code >= 0},
     * {@code -ETIME} on timeout, or another {@code -errno}.
     */
    int submitAndWait(long timeoutNanos) {
        long nanos = Math.max(0, timeoutNanos);
        __kernel_timespec.tv_sec(timeout, nanos / 1_000_000_000L);
        __kernel_timespec.tv_nsec(timeout, nanos % 1_000_000_000L);
        return LibUring.io_uring_submit_and_wait_timeout(ring, cqePtr, 1, timeout, MemorySegment.NULL);
    }

    /** Submits without waiting; for when the SQ is full in the middle of an iteration. */
    int submit() {
        return LibUring.io_uring_submit(ring);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ringFdRegistered) {
            LibUring.io_uring_unregister_ring_fd(ring);
        }
        LibUring.io_uring_queue_exit(ring);
    }
}
