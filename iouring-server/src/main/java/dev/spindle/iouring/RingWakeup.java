// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How other threads make a {@link RingWorker}'s thread leave its wait: they write to an eventfd on
 * which the ring keeps a read armed, whose completion ends the wait. They cannot submit to the
 * ring themselves (a ring set up with {@code SINGLE_ISSUER} takes submissions from its own thread
 * only). One write while no wakeup is pending: the flag is cleared when the read completes, before
 * the ring drains what the other threads queued for it. Only {@link #wake} is for other threads.
 */
final class RingWakeup {
    private static final Logger log = LoggerFactory.getLogger(RingWakeup.class);

    private static final MethodHandle EVENTFD = Errno.capturing(Libc.eventfd$address(), Libc.eventfd$descriptor());
    private static final long EVENTFD_DATA = UserData.encode(UserData.EVENTFD, 0, 0);

    private final String name;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile int eventFd = -1;
    private SubmissionQueue sq;
    private MemorySegment buffer;
    private boolean armed;

    /** A wakeup for the worker called {@code name}, for logging; it does nothing until {@link #open}. */
    RingWakeup(String name) {
        this.name = name;
    }

    /** Creates the eventfd and arms the read on the ring that {@code sq} submits to; the read's buffer lives in {@code arena}. */
    void open(Arena arena, SubmissionQueue sq) throws IOException {
        this.sq = sq;
        buffer = arena.allocate(ValueLayout.JAVA_LONG);
        eventFd = Errno.check("eventfd", () -> (int) EVENTFD.invokeExact(0, Libc.EFD_CLOEXEC()));
        arm();
    }

    /** From any thread: makes the ring's current or next wait end. */
    void wake() {
        int fd = eventFd;
        if (fd >= 0 && !pending.getAndSet(true)) {
            Libc.eventfd_write(fd, 1L);
        }
    }

    void arm() {
        sq.read(eventFd, buffer, Long.BYTES, EVENTFD_DATA);
        armed = true;
    }

    /** Takes the read's completion; the ring re-arms it ({@link #arm}) unless it is terminating. */
    void completed(int res) {
        armed = false;
        pending.set(false);
        if (res < 0 && res != -Libc.ECANCELED() && res != -Libc.EINTR() && res != -Libc.EAGAIN()) {
            log.warn("{}: eventfd read failed: {}", name, Errno.describe(-res));
        }
    }

    /** Cancels the armed read, if any; {@link #armed()} stays true until its completion arrives. */
    void cancel() {
        if (armed) {
            sq.cancel(EVENTFD_DATA, UserData.CANCEL_DATA);
        }
    }

    /** Whether the read is armed: the kernel may still write into its buffer. */
    boolean armed() {
        return armed;
    }

    /** Closes the eventfd; later wakes do nothing. */
    void close() {
        int fd = eventFd;
        eventFd = -1;
        Sockets.closeQuietly(fd);
    }
}
