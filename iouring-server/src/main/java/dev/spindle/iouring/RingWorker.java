package dev.spindle.iouring;

import dev.spindle.core.Connection;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ring on one platform thread, serving the connections its own SO_REUSEPORT listening socket
 * accepts. Each iteration makes one liburing call ({@link Ring#submitAndWait}: submit everything
 * prepared, wait for a completion or the next timer), then handles every completion, recycles the
 * receive buffers, resumes connections whose blocking handler finished, and prepares what the
 * connections that changed need: one send carrying all their pending output, or a (re-)armed
 * multishot recv. Back-pressure: when bytes arrive for a connection that does not want input
 * (output above the high-water mark, or a blocking handler running), its recv is cancelled, and
 * re-armed once the connection wants input again.
 *
 * <p>Operations: a multishot accept on the listening socket; per connection a multishot recv
 * with buffer selection from the worker's {@link BufferRing} (re-armed when a completion lacks
 * {@code IORING_CQE_F_MORE}, including after {@code ENOBUFS}) and at most one send; a read on an
 * eventfd that other threads write to wake the ring (a ring set up with {@code SINGLE_ISSUER}
 * takes submissions from its own thread only). Timers (idle, header, write and linger deadlines;
 * accept back-off; the shutdown drain) are checked by a scan every {@value #SCAN_MILLIS} ms, which
 * bounds each wait. A kernel error on one connection ({@code ECONNRESET}, {@code EPIPE},
 * {@code ECANCELED}, ...) closes that connection only.
 */
final class RingWorker implements Runnable, CompletionQueue.Handler {
    private static final Logger log = LoggerFactory.getLogger(RingWorker.class);

    static final long SCAN_MILLIS = 250;
    private static final long SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(SCAN_MILLIS);
    private static final long SHUTDOWN_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int LINGER_BYTES = 1 << 20;
    private static final long ACCEPT_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** How long termination waits for the kernel to finish cancelled operations. */
    private static final long TEARDOWN_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final int BGID = 0;
    private static final byte[] TOO_MANY_CONNECTIONS = Connection.rejection(503, "too many connections");
    private static final byte[] REQUEST_TIMEOUT = Connection.rejection(408, "request not received in time");

    private static final long ACCEPT_DATA = UserData.encode(UserData.ACCEPT, 0, 0);
    private static final long EVENTFD_DATA = UserData.encode(UserData.EVENTFD, 0, 0);
    private static final long CANCEL_DATA = UserData.encode(UserData.CANCEL, 0, 0);

    private final IoUringServer server;
    private final String name;
    private final Tuning tuning;
    private final int listenFd;
    private final long idleNanos;
    private final long headerNanos;
    private final long writeNanos;
    private final int highWater;
    final CompletableFuture<Void> ready = new CompletableFuture<>();

    private final Queue<RingConnection> resumed = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private volatile int eventFd = -1;

    private Arena arena;
    private Ring ring;
    private SubmissionQueue sq;
    private BufferRing buffers;
    private SendBuffers sendBuffers;
    private MemorySegment eventBuffer;
    private MemorySegment one;
    private RingConnection[] slots = new RingConnection[256];
    private int[] freeSlots = new int[256];
    private int freeCount;
    private int slotsUsed;
    private int generation;
    private RingConnection[] live = new RingConnection[256];
    private int liveCount;
    private RingConnection[] dirty = new RingConnection[256];
    private int dirtyCount;
    private boolean listening;
    private boolean acceptArmed;
    private long acceptPausedUntil;
    private boolean eventFdArmed;
    private boolean shuttingDown;
    private boolean terminating;
    private long now;
    private long nextScan;

    // statistics (written by the ring thread only)
    volatile long accepted;
    volatile long recvRearms;
    volatile long noBufferRearms;
    volatile long shortSends;
    volatile long backPressureCancels;

    RingWorker(IoUringServer server, String name, int listenFd, Tuning tuning) {
        this.server = server;
        this.name = name;
        this.listenFd = listenFd;
        this.tuning = tuning;
        ServerConfig config = server.config();
        this.idleNanos = config.idleTimeout().toNanos();
        this.headerNanos = config.headerTimeout().toNanos();
        this.writeNanos = config.writeTimeout().toNanos();
        this.highWater = config.writeHighWaterMark();
    }

    String name() {
        return name;
    }

    Router router() {
        return server.router();
    }

    ServerConfig config() {
        return server.config();
    }

    Executor blockingExecutor() {
        return server.blockingExecutor();
    }


    /** From a blocking handler's thread: the connection can go on; the ring resumes and sends it. */
    void resumeLater(RingConnection c) {
        resumed.offer(c);
        wake();
    }

    /**
     * Makes the ring thread leave its wait: one eventfd write while no wakeup is pending (the ring
     * clears the flag when the eventfd read completes, then drains the queue).
     */
    void wake() {
        int fd = eventFd;
        if (fd >= 0 && !wakePending.getAndSet(true)) {
            Libc.eventfd_write(fd, 1L);
        }
    }


    @Override
    public void run() {
        try {
            setUp();
        } catch (Throwable t) {
            // nothing was submitted yet: close the listening socket and free the ring right away
            listening = false;
            Sockets.closeQuietly(listenFd);
            tearDown(true);
            ready.completeExceptionally(t);
            return;
        }
        ready.complete(null);
        try {
            loop();
        } catch (Throwable t) {
            log.error("{}: ring loop failed; closing its connections", name, t);
        } finally {
            terminate();
        }
    }

    private void setUp() throws IOException {
        arena = Arena.ofConfined();
        int flags = tuning.sqpoll()
                ? LibUring.IORING_SETUP_SQPOLL() | LibUring.IORING_SETUP_SINGLE_ISSUER() | LibUring.IORING_SETUP_SUBMIT_ALL()
                : Ring.PREFERRED_FLAGS;
        ring = Ring.open(arena, tuning.sqEntries(), tuning.sqEntries() * tuning.cqFactor(), flags);
        ring.registerRingFd();
        sq = ring.sq;
        buffers = new BufferRing(ring, arena, BGID, tuning.bufferRingEntries(), tuning.bufferSize());
        sendBuffers = new SendBuffers(tuning.sendChunk());
        eventBuffer = arena.allocate(ValueLayout.JAVA_LONG);
        one = arena.allocate(ValueLayout.JAVA_INT);
        one.set(ValueLayout.JAVA_INT, 0, 1);
        int efd = Libc.eventfd(0, Libc.EFD_CLOEXEC());
        if (efd < 0) {
            throw new IOException("eventfd: " + Libc.describe(Libc.errno()));
        }
        eventFd = efd;
        listening = true;
        armEventFd();
        armAccept();
        log.debug("{}: ring fd {} flags {} features {}, {} x {} B provided buffers", name, ring.fd(),
                Integer.toHexString(ring.flags), Integer.toHexString(ring.features), buffers.entries, buffers.bufferSize);
    }

    private void loop() {
        now = System.nanoTime();
        nextScan = now + SCAN_NANOS;
        while (true) {
            if (!shuttingDown && server.isClosing()) {
                beginShutdown();
            }
            if (shuttingDown && (liveCount == 0 || now - server.drainDeadline() >= 0)) {
                return;
            }
            int ret = ring.submitAndWait(resumed.isEmpty() ? nextScan - now : 0);
            if (ret < 0 && ret != -Libc.ETIME() && ret != -Libc.EINTR() && ret != -Libc.EAGAIN() && ret != -Libc.EBUSY()) {
                log.warn("{}: io_uring_submit_and_wait_timeout: {}", name, Libc.describe(-ret));
                pause();
            }
            now = System.nanoTime();
            ring.cq.drain(this);
            buffers.publish();
            runResumed();
            flushDirty();
            if (now - nextScan >= 0) {
                scan();
                nextScan = now + (shuttingDown ? SHUTDOWN_SCAN_NANOS : SCAN_NANOS);
            }
        }
    }

    @Override
    public void completed(long userData, int res, int flags) {
        if (userData == UserData.LIBURING_TIMEOUT) {
            return;
        }
        switch (UserData.op(userData)) {
            case UserData.RECV -> onRecv(userData, res, flags);
            case UserData.SEND -> onSend(userData, res);
            case UserData.ACCEPT -> onAccept(res, flags);
            case UserData.EVENTFD -> onEventFd(res);
            case UserData.CANCEL -> {
                if (res < 0 && res != -Libc.ENOENT() && res != -Libc.EALREADY()) {
                    log.debug("{}: cancel failed: {}", name, Libc.describe(-res));
                }
            }
            default -> log.warn("{}: completion with unknown user_data {}", name, Long.toHexString(userData));
        }
    }

    /** The connection a completion belongs to, or null if it is stale (an earlier occupant of the slot). */
    private RingConnection lookup(long userData) {
        int slot = UserData.slot(userData);
        RingConnection c = slot < slots.length ? slots[slot] : null;
        return c != null && c.generation == UserData.generation(userData) ? c : null;
    }


    private void armRecv(RingConnection c) {
        sq.multishotRecv(c.fd, BGID, c.recvData);
        c.recvArmed = true;
        c.inflight++;
    }

    private void cancelRecv(RingConnection c) {
        sq.cancel(c.recvData, CANCEL_DATA);
        c.recvCancelling = true;
    }

    private void onRecv(long userData, int res, int flags) {
        int bid = (flags & LibUring.IORING_CQE_F_BUFFER()) != 0 ? flags >>> LibUring.IORING_CQE_BUFFER_SHIFT() : -1;
        RingConnection c = lookup(userData);
        try {
            if (c == null) {
                return;
            }
            boolean more = (flags & LibUring.IORING_CQE_F_MORE()) != 0;
            if (!more) {
                c.recvArmed = false;
                c.recvCancelling = false;
                c.inflight--;
            }
            if (c.state == RingConnection.CLOSED) {
                release(c);
                return;
            }
            if (res > 0) {
                c.lastActivity = now;
                if (c.state == RingConnection.LINGERING || c.finishing || c.core == null) {
                    c.lingerBytes += res;
                    if (c.lingerBytes > LINGER_BYTES) {
                        close(c);
                        return;
                    }
                } else {
                    boolean paused = !c.core.wantsInput();
                    c.core.received(buffers.memory(), buffers.offset(bid), res);
                    if (paused && c.recvArmed && !c.recvCancelling) {
                        // bytes keep coming while output is backed up or a handler runs: stop receiving
                        cancelRecv(c);
                        backPressureCancels++;
                    }
                }
            } else if (res == 0) {
                c.inputEnded = true;
                if (c.state == RingConnection.LINGERING) {
                    close(c);
                    return;
                }
                if (c.core != null && !c.finishing) {
                    c.core.endOfInput();
                }
            } else if (res == -Libc.ENOBUFS()) {
                noBufferRearms++;
            } else if (res != -Libc.ECANCELED() && res != -Libc.EINTR() && res != -Libc.EAGAIN()) {
                log.debug("{}: recv on {} failed: {}", name, c, Libc.describe(-res));
                close(c);
                return;
            }
            markDirty(c);
        } catch (RuntimeException e) {
            log.warn("{}: connection {} failed; closing it", name, c, e);
            close(c);
        } finally {
            if (bid >= 0) {
                buffers.recycle(bid);
            }
        }
    }


    /** Copies as much pending output as one send buffer holds into it and submits the send. */
    private void submitSend(RingConnection c) {
        byte[] array;
        int offset;
        int pending;
        boolean extra = c.core == null || !c.core.hasOutbound();
        if (extra) {
            array = c.extra;
            offset = c.extraSent;
            pending = array.length - offset;
        } else {
            ByteBuffer out = c.core.outbound();
            array = out.array();
            offset = out.arrayOffset() + out.position();
            pending = out.remaining();
        }
        MemorySegment buffer = sendBuffers.acquire(pending);
        int length = (int) Math.min(pending, buffer.byteSize());
        MemorySegment.copy(array, offset, buffer, ValueLayout.JAVA_BYTE, 0, length);
        sq.send(c.fd, buffer, length, Libc.MSG_NOSIGNAL(), c.sendData);
        c.sendBuffer = buffer;
        c.sendLength = length;
        c.sendingExtra = extra;
        c.sendInFlight = true;
        c.inflight++;
        if (c.writeDeadline == 0) {
            c.writeDeadline = now + writeNanos;
        }
    }

    private void onSend(long userData, int res) {
        RingConnection c = lookup(userData);
        if (c == null) {
            return;
        }
        c.sendInFlight = false;
        c.inflight--;
        if (c.sendBuffer != null) {
            sendBuffers.release(c.sendBuffer);
            c.sendBuffer = null;
        }
        if (c.state == RingConnection.CLOSED) {
            release(c);
            return;
        }
        try {
            if (res < 0) {
                if (res == -Libc.EAGAIN() || res == -Libc.EINTR()) {
                    markDirty(c);
                    return;
                }
                log.debug("{}: send on {} failed: {}", name, c, Libc.describe(-res));
                close(c);
                return;
            }
            if (c.sendingExtra) {
                c.extraSent += res;
                if (c.extraSent == c.extra.length) {
                    c.extra = null;
                    c.extraSent = 0;
                }
            } else {
                Connection core = c.core;
                boolean wasHigh = core.outboundBytes() >= highWater;
                core.written(res);
                if (wasHigh && core.outboundBytes() < highWater) {
                    core.resume();
                }
            }
            c.lastActivity = now;
            if (res < c.sendLength) {
                shortSends++;
            } else {
                c.writeDeadline = 0;
            }
            markDirty(c);
        } catch (RuntimeException e) {
            log.warn("{}: connection {} failed; closing it", name, c, e);
            close(c);
        }
    }


    private void markDirty(RingConnection c) {
        if (!c.dirty) {
            c.dirty = true;
            if (dirtyCount == dirty.length) {
                dirty = Arrays.copyOf(dirty, dirtyCount * 2);
            }
            dirty[dirtyCount++] = c;
        }
    }

    private void flushDirty() {
        for (int i = 0; i < dirtyCount; i++) {
            RingConnection c = dirty[i];
            dirty[i] = null;
            c.dirty = false;
            try {
                flush(c);
            } catch (RuntimeException e) {
                log.warn("{}: connection {} failed; closing it", name, c, e);
                close(c);
            }
        }
        dirtyCount = 0;
    }

    /**
     * Submits a send of pending output if none is in flight, finishes the connection once all is
     * sent, and re-arms the multishot recv when the connection wants input and has none armed.
     */
    private void flush(RingConnection c) {
        if (c.state == RingConnection.CLOSED) {
            return;
        }
        if (c.state == RingConnection.OPEN && !c.sendInFlight) {
            if (c.hasOutput()) {
                submitSend(c);
            } else if (c.isDone()) {
                finish(c);
                if (c.state == RingConnection.CLOSED) {
                    return;
                }
            } else if (shuttingDown && c.isIdle()) {
                close(c);
                return;
            }
        }
        boolean wantRecv;
        if (c.inputEnded) {
            wantRecv = false;
        } else if (c.state == RingConnection.LINGERING || c.core == null || c.finishing) {
            wantRecv = true; // discard what still arrives, so that it cannot turn the close into a reset
        } else {
            wantRecv = c.core.wantsInput();
        }
        // A connection that does not want input keeps its recv armed until bytes actually arrive
        // (then onRecv cancels it): a client that waits for its response costs no cancel and re-arm.
        if (wantRecv && !c.recvArmed) {
            armRecv(c);
            recvRearms++;
        }
        if (c.state == RingConnection.OPEN && wantRecv && c.core != null && !c.finishing && c.core.hasPartialRequest()) {
            if (c.requestStarted == 0) {
                c.requestStarted = now;
            }
        } else {
            c.requestStarted = 0;
        }
    }

    private void runResumed() {
        RingConnection c;
        while ((c = resumed.poll()) != null) {
            if (c.state != RingConnection.OPEN || c.core == null) {
                continue;
            }
            try {
                c.core.resume();
                c.lastActivity = now;
                markDirty(c);
            } catch (RuntimeException e) {
                log.warn("{}: connection {} failed; closing it", name, c, e);
                close(c);
            }
        }
    }


    /** All output is sent and the connection is done: close, lingering unless the peer already closed. */
    private void finish(RingConnection c) {
        if (c.inputEnded) {
            close(c);
            return;
        }
        if (Libc.shutdown(c.fd, Libc.SHUT_WR()) < 0) {
            close(c);
            return;
        }
        c.state = RingConnection.LINGERING;
        c.lingerDeadline = now + LINGER_NANOS;
        c.lingerBytes = 0;
        c.requestStarted = 0;
        c.writeDeadline = 0;
    }

    /**
     * Closes the fd at once and cancels the connection's operations; the slot is freed when the
     * last of them has completed ({@link #release}), so the kernel never writes into, or reads
     * from, memory of a later occupant.
     */
    private void close(RingConnection c) {
        if (c.state == RingConnection.CLOSED) {
            return;
        }
        c.state = RingConnection.CLOSED;
        if (c.recvArmed && !c.recvCancelling) {
            cancelRecv(c);
        }
        if (c.sendInFlight) {
            sq.cancel(c.sendData, CANCEL_DATA);
        }
        Libc.close(c.fd);
        removeLive(c);
        if (c.counted) {
            server.releaseConnection();
        }
        release(c);
    }

    private void release(RingConnection c) {
        if (c.state != RingConnection.CLOSED || c.inflight > 0 || slots[c.slot] != c) {
            return;
        }
        slots[c.slot] = null;
        slotsUsed--;
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeCount * 2);
        }
        freeSlots[freeCount++] = c.slot;
    }


    private void armAccept() {
        sq.multishotAccept(listenFd, Libc.SOCK_CLOEXEC(), ACCEPT_DATA);
        acceptArmed = true;
    }

    private void onAccept(int res, int flags) {
        if ((flags & LibUring.IORING_CQE_F_MORE()) == 0) {
            acceptArmed = false;
        }
        if (res >= 0) {
            adopt(res);
        } else if (res == -Libc.EMFILE() || res == -Libc.ENFILE() || res == -Libc.ENOBUFS() || res == -Libc.ENOMEM()) {
            log.warn("{}: accept failed: {}; pausing accepts briefly", name, Libc.describe(-res));
            acceptPausedUntil = now + ACCEPT_BACKOFF_NANOS;
            if (acceptArmed) {
                sq.cancel(ACCEPT_DATA, CANCEL_DATA);
            }
        } else if (res != -Libc.ECANCELED()) {
            log.debug("{}: accept failed: {}", name, Libc.describe(-res));
        }
        if (!acceptArmed && listening && now - acceptPausedUntil >= 0) {
            armAccept();
        }
    }

    private void adopt(int fd) {
        accepted++;
        if (shuttingDown) {
            Libc.close(fd);
            return;
        }
        Sockets.noDelay(fd, one);
        boolean counted = server.tryAcquireConnection();
        RingConnection c;
        try {
            c = newConnection(fd, counted);
        } catch (RuntimeException e) {
            log.warn("{}: cannot serve a new connection: {}", name, e.toString());
            if (counted) {
                server.releaseConnection();
            }
            Libc.close(fd);
            return;
        }
        if (!counted) {
            log.debug("{}: too many connections; rejecting {}", name, c);
            c.extra = TOO_MANY_CONNECTIONS;
            c.finishing = true;
        }
        c.lastActivity = now;
        armRecv(c);
        if (!counted) {
            markDirty(c);
        }
    }

    private RingConnection newConnection(int fd, boolean serve) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            slot = slotsUsed + freeCount;
            if (slot >= UserData.MAX_SLOTS) {
                throw new IllegalStateException("more than " + UserData.MAX_SLOTS + " connections on one ring");
            }
            if (slot == slots.length) {
                slots = Arrays.copyOf(slots, slots.length * 2);
            }
        }
        RingConnection c = new RingConnection(this, fd, slot, ++generation, serve, serve);
        slots[slot] = c;
        slotsUsed++;
        addLive(c);
        return c;
    }


    private void armEventFd() {
        sq.read(eventFd, eventBuffer, Long.BYTES, EVENTFD_DATA);
        eventFdArmed = true;
    }

    private void onEventFd(int res) {
        eventFdArmed = false;
        wakePending.set(false);
        if (res < 0 && res != -Libc.ECANCELED() && res != -Libc.EINTR() && res != -Libc.EAGAIN()) {
            log.warn("{}: eventfd read failed: {}", name, Libc.describe(-res));
        }
        if (!terminating) {
            armEventFd();
        }
    }


    private void scan() {
        if (listening && !acceptArmed && now - acceptPausedUntil >= 0) {
            armAccept();
        }
        for (int i = liveCount - 1; i >= 0; i--) {
            if (i >= liveCount) {
                continue;
            }
            RingConnection c = live[i];
            try {
                check(c);
            } catch (RuntimeException e) {
                log.warn("{}: connection {} failed; closing it", name, c, e);
                close(c);
            }
        }
        flushDirty();
    }

    private void check(RingConnection c) {
        if (c.state == RingConnection.LINGERING) {
            if (now - c.lingerDeadline >= 0) {
                close(c);
            }
            return;
        }
        if (c.writeDeadline != 0 && now - c.writeDeadline >= 0) {
            log.debug("{}: write timeout on {}", name, c);
            close(c);
            return;
        }
        if (c.isIdle()) {
            if (shuttingDown || now - c.lastActivity >= idleNanos) {
                close(c);
            }
            return;
        }
        if (c.requestStarted != 0 && now - c.requestStarted >= headerNanos) {
            log.debug("{}: request timeout on {}", name, c);
            c.requestStarted = 0;
            if (!c.sendInFlight && !c.hasOutput()) {
                c.extra = REQUEST_TIMEOUT;
                c.extraSent = 0;
            }
            c.finishing = true;
            markDirty(c);
        }
    }

    /** Stops accepting, closes idle connections and makes busy ones close after their response. */
    private void beginShutdown() {
        shuttingDown = true;
        stopListening();
        for (int i = liveCount - 1; i >= 0; i--) {
            if (i >= liveCount) {
                continue;
            }
            RingConnection c = live[i];
            if (c.isIdle()) {
                close(c);
            } else if (c.core != null && c.state == RingConnection.OPEN) {
                c.core.closeAfterResponse();
            }
        }
        nextScan = now;
    }

    private void stopListening() {
        if (!listening) {
            return;
        }
        listening = false;
        if (acceptArmed) {
            sq.cancel(ACCEPT_DATA, CANCEL_DATA);
        }
        Sockets.closeQuietly(listenFd);
    }

    /** Closes everything, waits (bounded) for the kernel to finish what was cancelled, and frees the ring. */
    private void terminate() {
        terminating = true;
        shuttingDown = true;
        int busy = 0;
        try {
            stopListening();
            for (int i = liveCount - 1; i >= 0; i--) {
                if (i >= liveCount) {
                    continue;
                }
                RingConnection c = live[i];
                if (c.state == RingConnection.OPEN && !c.isIdle() && c.core != null) {
                    busy++;
                }
                close(c);
            }
            if (eventFdArmed) {
                sq.cancel(EVENTFD_DATA, CANCEL_DATA);
            }
            long deadline = System.nanoTime() + TEARDOWN_NANOS;
            while ((slotsUsed > 0 || acceptArmed || eventFdArmed) && System.nanoTime() - deadline < 0) {
                ring.submitAndWait(TimeUnit.MILLISECONDS.toNanos(20));
                now = System.nanoTime();
                ring.cq.drain(this);
                buffers.publish();
            }
        } catch (RuntimeException e) {
            log.warn("{}: error while closing the ring's connections", name, e);
        }
        if (busy > 0) {
            log.warn("{}: {} connections still busy after the drain timeout; closed them", name, busy);
        }
        resumed.clear();
        tearDown(slotsUsed == 0 && !acceptArmed && !eventFdArmed);
    }

    private void tearDown(boolean quiescent) {
        if (ring != null) {
            ring.close();
        }
        int fd = eventFd;
        eventFd = -1;
        Sockets.closeQuietly(fd);
        if (arena != null) {
            if (quiescent) {
                arena.close();
            } else {
                // operations the kernel did not finish may still point into it: keep it rather than free it
                log.warn("{}: io_uring operations still pending at exit; leaving their memory allocated", name);
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }


    private void addLive(RingConnection c) {
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, liveCount * 2);
        }
        c.index = liveCount;
        live[liveCount++] = c;
    }

    private void removeLive(RingConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        RingConnection last = live[--liveCount];
        live[i] = last;
        last.index = i;
        live[liveCount] = null;
        c.index = -1;
    }

    int liveConnections() {
        return liveCount;
    }
}
