// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import dev.spindle.iouring.ffi.pollfd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RingWorker}'s SO_REUSEPORT listening socket and the multishot accept on it, touched by
 * the ring thread only. The accept is re-armed whenever the kernel ends it (a completion without
 * {@code IORING_CQE_F_MORE}); an accept that fails for want of descriptors or memory is cancelled
 * and re-armed only after a back-off ({@link #rearmIfDue}), rather than failing again at once.
 * What it accepts is the worker's to serve. At shutdown the worker stops it only once nothing waits
 * in the socket's queue ({@link #queued}), since closing the socket resets what is still queued.
 */
final class RingAcceptor {
    private static final Logger log = LoggerFactory.getLogger(RingAcceptor.class);

    private static final long BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long ACCEPT_DATA = UserData.encode(UserData.ACCEPT, 0, 0);

    private final String name;
    private final int listenFd;
    private SubmissionQueue sq;
    private MemorySegment pollFd;
    private boolean listening;
    private boolean armed;
    private long pausedUntil;

    /** Accepts on {@code listenFd}, which it owns from now on; {@code name} is the worker's, for logging. */
    RingAcceptor(String name, int listenFd) {
        this.name = name;
        this.listenFd = listenFd;
    }

    /** Starts listening: arms the accept on the ring that {@code sq} submits to. */
    void start(Arena arena, SubmissionQueue sq) {
        this.sq = sq;
        pollFd = pollfd.allocate(arena);
        pollfd.fd(pollFd, listenFd);
        pollfd.events(pollFd, (short) Libc.POLLIN());
        listening = true;
        arm();
    }

    /** Closes the socket of a ring that never served (discarded, or failed to set up). */
    void abandon() {
        listening = false;
        Sockets.closeQuietly(listenFd);
    }

    private void arm() {
        sq.multishotAccept(listenFd, Libc.SOCK_CLOEXEC(), ACCEPT_DATA);
        armed = true;
    }

    /**
     * Takes an accept completion: the accepted fd, for the worker to serve, or -1 when it failed
     * (logged, and a back-off from {@code now} begins if it failed for want of resources).
     */
    int completed(int res, int flags, long now) {
        if ((flags & LibUring.IORING_CQE_F_MORE()) == 0) {
            armed = false;
        }
        if (res >= 0) {
            return res;
        }
        if (res == -Libc.EMFILE() || res == -Libc.ENFILE() || res == -Libc.ENOBUFS() || res == -Libc.ENOMEM()) {
            log.warn("{}: accept failed: {}; pausing accepts briefly", name, Errno.describe(-res));
            pausedUntil = now + BACKOFF_NANOS;
            if (armed) {
                sq.cancel(ACCEPT_DATA, UserData.CANCEL_DATA);
            }
        } else if (res != -Libc.ECANCELED()) {
            log.debug("{}: accept failed: {}", name, Errno.describe(-res));
        }
        return -1;
    }

    /** Re-arms the accept if it ended while listening and no back-off is running at {@code now}. */
    void rearmIfDue(long now) {
        if (listening && !armed && now - pausedUntil >= 0) {
            arm();
        }
    }

    /** Stops listening (once): cancels the accept and closes the socket, which resets what is still queued on it. */
    void stop() {
        if (!listening) {
            return;
        }
        listening = false;
        if (armed) {
            sq.cancel(ACCEPT_DATA, UserData.CANCEL_DATA);
        }
        Sockets.closeQuietly(listenFd);
    }

    /**
     * Whether connections the kernel completed wait in the socket's queue, not yet taken by the
     * accept (with SQPOLL the kernel's SQ thread takes them, on its own time).
     */
    boolean queued() {
        pollfd.revents(pollFd, (short) 0);
        return listening && Libc.poll(pollFd, 1, 0) > 0 && (pollfd.revents(pollFd) & Libc.POLLIN()) != 0;
    }

    boolean listening() {
        return listening;
    }

    /** Whether an accept is armed, or its cancellation not yet completed: the kernel may still complete it. */
    boolean armed() {
        return armed;
    }

    /** Stopped, and the accept completed for the last time: no connection can come from it any more. */
    boolean finished() {
        return !listening && !armed;
    }
}
