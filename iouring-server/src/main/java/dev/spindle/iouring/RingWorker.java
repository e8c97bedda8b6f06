// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.EventLoopServer;
import dev.spindle.core.spi.FailureLog;
import dev.spindle.core.spi.LoopContext;
import dev.spindle.core.spi.LoopTasks;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.spi.OutboundLoops;
import dev.spindle.iouring.ffi.LibUring;
import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ring on one platform thread, serving the connections its own SO_REUSEPORT listening socket
 * accepts. Each iteration makes one liburing call ({@link Ring#submitAndWait}: submit everything
 * prepared, wait for a completion or the next timer), then handles every completion, recycles the
 * receive buffers, resumes connections whose core asked for it (a handler finished, a streamed
 * body moved), and does what the core of each connection that changed answers: one send carrying
 * its pending output, a close, a shutdown of the output while it lingers, or a (re-)armed
 * multishot recv while it wants input. Back-pressure: when bytes arrive for a connection that does
 * not want input (output above the high-water mark, a handler running, a body consumer behind),
 * its recv is cancelled, and re-armed once the connection wants input again, as a single-shot recv
 * of one buffer until the connection is idle again, so that the re-arm does not hand it all the
 * peer sent meanwhile.
 *
 * <p>Operations: a multishot accept on the listening socket ({@link RingAcceptor}); per connection
 * (found by slot in its {@link ConnectionTable}) a multishot recv with buffer selection from the
 * worker's {@link BufferRing} (re-armed when a completion lacks {@code IORING_CQE_F_MORE},
 * including after {@code ENOBUFS}) and at most one send ({@link RingTransfers}); a read on an
 * eventfd that other threads write to wake the ring ({@link RingWakeup}). A scan every
 * {@value #SCAN_MILLIS} ms, which bounds each wait, lets the cores whose tick is due apply their
 * timeouts ({@link Connection#tick}) and checks the accept back-off and the shutdown drain. A
 * connection the ring served since its last tick (a completion, a wakeup) is due at once, as the
 * core starts some clocks at a tick; after a tick, an idle or duplex connection with nothing to
 * send is due when its {@link Connection#nanosToTick} says (at most {@value #MAX_TICK_SECONDS} s
 * on), and any other one at once. A ring that drains ticks them all. Every byte sent
 * comes from the core, copied into a native buffer for the send. A kernel error on one connection
 * ({@code ECONNRESET}, {@code EPIPE}, {@code ECANCELED}, ...) closes that connection only.
 *
 * <p>So does any failure raised while serving one connection, {@link Error}s such as an
 * {@link OutOfMemoryError} included: the connection is closed (its core released, its slot freed
 * once the kernel is done with it) and the ring serves on. A VM error that leaves the JVM
 * untrustworthy ({@link FailureLog#isFatal}) is rethrown once the connection is closed and ends
 * the ring. A loop-level failure makes the ring pause briefly and go on. Failures that repeat are
 * logged once with their stack and then counted ({@link FailureLog}).
 *
 * <p>Shutdown drops nothing the kernel accepted: the ring drains its connections, then runs one
 * wait with an empty completion queue, which performs the accepts the kernel deferred to this
 * thread ({@code DEFER_TASKRUN}) for connections queued on the listening socket, and only once
 * the socket's queue is empty (or after a short grace, under steady load) cancels the accept and
 * closes the socket (closing resets what is still queued); with SQPOLL, where the kernel's thread
 * runs the accepts, the queue check is what orders them before the close. A connection
 * whose accept completes after shutdown began is served in drain mode from the start. The ring
 * ends once it has no connection left and the accept has completed for the last time, or at the
 * drain deadline.
 *
 * <p>It is also an {@link OutboundLoop}: it opens sockets of its own and connects them with
 * {@code IORING_OP_CONNECT} ({@link OutboundSockets}), serves them once connected exactly like
 * accepted ones (the same recv, send, flush and close), and runs tasks other threads give it
 * ({@link #execute}), woken like for a resume. Outbound sockets are not drained: they stay open
 * while the accepted connections drain, for the calls those may still make, and close when the
 * ring ends.
 */
final class RingWorker implements EventLoopServer.Loop, OutboundLoop, CompletionQueue.Handler {
    private static final Logger log = LoggerFactory.getLogger(RingWorker.class);

    static final long SCAN_MILLIS = 250;
    static final long SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(SCAN_MILLIS);
    private static final long SHUTDOWN_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * Bounds how long a scan leaves a connection unticked, whatever its nanosToTick says. Shorter than
     * the nio loops' bound since WebSockets closing at once read 1006 more often at 10 s; that was the
     * core timing out the close echo whose send was still in flight, since fixed.
     */
    static final long MAX_TICK_SECONDS = 1;
    private static final long MAX_TICK_NANOS = TimeUnit.SECONDS.toNanos(MAX_TICK_SECONDS);
    /** How long a shutting-down ring keeps accepting while its listening socket's queue is not empty. */
    private static final long ACCEPT_QUEUE_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How long termination waits for the kernel to finish cancelled operations. */
    private static final long TEARDOWN_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final int BGID = 0;
    private static final long START_TIMEOUT_SECONDS = 10;
    /** Caps the tasks run per iteration, so tasks that queue more tasks cannot keep the ring from its sockets. */
    private static final int MAX_TASKS_PER_PASS = 1024;

    private final LoopContext context;
    private final String name;
    private final Tuning tuning;
    private final RingAcceptor acceptor;
    private final ConnectionTable connections;
    private final RingWakeup wakeups;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final AtomicBoolean ran = new AtomicBoolean();
    /** Connection failures and loop-level failures, each kind logged once per window with a count. */
    private final FailureLog failures = new FailureLog(log);
    private final Queue<RingConnection> resumed = new ConcurrentLinkedQueue<>();
    /**
     * Other threads' tasks and outbound wakeups; stopped as the ring ends (or will never run): tasks,
     * connects and resumes are refused from then on.
     */
    private final LoopTasks tasks;
    private final OutboundSockets outbound;
    /** The receives and sends of its sockets; their statistics too. */
    final RingTransfers transfers;
    private final Consumer<OutboundConnection> onResumed = this::resumeOutbound;

    private Arena arena;
    private Ring ring;
    private SubmissionQueue sq;
    private BufferRing buffers;
    private MemorySegment one;
    private RingConnection[] dirty = new RingConnection[256];
    private int dirtyCount;
    private boolean shuttingDown;
    private volatile Thread thread;
    private long now;
    private long shutdownBegan;
    private long nextScan;

    /** Sockets accepted (a statistic, written by the ring thread only). */
    volatile long accepted;

    /** A ring serving {@code listenFd}, which it owns from now on (closes it when it stops or is discarded). */
    RingWorker(LoopContext context, String name, int listenFd, Tuning tuning) {
        this.context = context;
        this.name = name;
        this.tuning = tuning;
        this.acceptor = new RingAcceptor(name, listenFd);
        this.connections = new ConnectionTable(this, context);
        this.wakeups = new RingWakeup(name);
        this.tasks = new LoopTasks(name, failures, MAX_TASKS_PER_PASS);
        this.outbound = new OutboundSockets(this, connections);
        this.transfers = new RingTransfers(this, connections, BGID, tuning.sendChunk());
    }

    @Override
    public String name() {
        return name;
    }

    /** From any thread (the core's wakeup): the ring thread resumes the connection and acts on it. */
    void resumeLater(RingConnection c) {
        resumed.offer(c);
        wakeup();
    }

    /** Makes the ring thread leave its wait ({@link RingWakeup}), from any thread. */
    @Override
    public void wakeup() {
        wakeups.wake();
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void execute(Runnable task) {
        tasks.execute(task);
        wakeup();
    }

    @Override
    public void connect(InetSocketAddress remote, OutboundConnection connection) {
        outbound.connect(remote, connection, inLoop(), tasks.stopped(), now);
    }

    @Override
    public void resume(OutboundConnection connection) {
        if (tasks.resume(connection)) {
            wakeup();
        }
    }

    /** Waits for the ring, set up on its own thread (SINGLE_ISSUER), to accept connections. */
    @Override
    public void awaitReady() throws IOException {
        try {
            ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new IOException(name + " did not start within " + START_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + name, e);
        }
    }

    @Override
    public void discard() {
        if (ran.compareAndSet(false, true)) {
            tasks.stop();
            acceptor.abandon();
        }
    }

    @Override
    public void run() {
        if (!ran.compareAndSet(false, true)) {
            ready.completeExceptionally(new IOException(name + " was discarded before it ran"));
            return;
        }
        thread = Thread.currentThread();
        OutboundLoops.bind(this);
        try {
            try {
                setUp();
            } catch (Throwable t) {
                // nothing was submitted yet: close the listening socket and free the ring right away
                tasks.stop();
                tasks.runRemaining();
                acceptor.abandon();
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
        } finally {
            OutboundLoops.unbind();
        }
    }

    private void setUp() throws IOException {
        arena = Arena.ofConfined();
        int flags = tuning.sqpoll()
                ? LibUring.IORING_SETUP_SQPOLL() | LibUring.IORING_SETUP_SINGLE_ISSUER() | LibUring.IORING_SETUP_SUBMIT_ALL()
                : Ring.PREFERRED_FLAGS;
        ring = Ring.open(arena, tuning.sqEntries(), tuning.sqEntries() * tuning.cqFactor(), flags, tuning.sqpollIdleMillis());
        ring.registerRingFd();
        sq = ring.sq;
        buffers = new BufferRing(ring, arena, BGID, tuning.bufferRingEntries(), tuning.bufferSize());
        one = arena.allocate(ValueLayout.JAVA_INT);
        one.set(ValueLayout.JAVA_INT, 0, 1);
        wakeups.open(arena, sq);
        acceptor.start(arena, sq);
        outbound.start(sq, one);
        transfers.start(sq, buffers);
        log.debug("{}: ring fd {} flags {} features {}, {} x {} B provided buffers", name, ring.fd(),
                Integer.toHexString(ring.flags), Integer.toHexString(ring.features), buffers.entries, buffers.bufferSize);
    }

    private void loop() {
        now = System.nanoTime();
        nextScan = now + SCAN_NANOS;
        while (true) {
            try {
                if (!shuttingDown && context.isClosing()) {
                    beginShutdown();
                }
                if (shuttingDown && ((connections.liveCount() == 0 && acceptor.finished()) || now - context.drainDeadline() >= 0)) {
                    return;
                }
                // with nothing to reap, liburing enters the kernel to wait, which runs the work deferred to this thread
                boolean runsDeferredWork = ring.cq.ready() == 0;
                int ret = ring.submitAndWait(queued() ? 0 : Math.min(nextScan - now, outbound.nanosToTick(now)));
                if (ret < 0 && ret != -Libc.ETIME() && ret != -Libc.EINTR() && ret != -Libc.EAGAIN() && ret != -Libc.EBUSY()) {
                    failures.warn(name + ": io_uring_submit_and_wait_timeout failed", Errno.describe(-ret), null);
                    pause();
                }
                now = System.nanoTime();
                ring.cq.drain(this);
                buffers.publish();
                runQueues();
                flushDirty();
                if (shuttingDown && acceptor.listening() && runsDeferredWork
                        && (!acceptor.queued() || now - shutdownBegan - ACCEPT_QUEUE_GRACE_NANOS >= 0)) {
                    // the accepts queued before the shutdown began have completed and were adopted
                    // above (under steady load the queue never empties: a short grace bounds the wait)
                    acceptor.stop();
                }
                if (now - nextScan >= 0) {
                    scan();
                    nextScan = now + (shuttingDown ? SHUTDOWN_SCAN_NANOS : SCAN_NANOS);
                }
                outbound.tickIfDue(now);
                flushDirty();
            } catch (Throwable t) {
                if (FailureLog.isFatal(t)) {
                    // an InternalError or UnknownError: serving on from a JVM in doubt could send wrong bytes
                    throw (Error) t;
                }
                // the completion queue's head has passed the completion that failed (CompletionQueue.drain)
                failures.error(name + ": unexpected failure; the ring goes on", null, t);
                now = System.nanoTime();
                pause();
            }
        }
    }

    @Override
    public void completed(long userData, int res, int flags) {
        if (userData == UserData.LIBURING_TIMEOUT) {
            return;
        }
        switch (UserData.op(userData)) {
            case UserData.RECV -> transfers.onRecv(userData, res, flags);
            case UserData.SEND -> transfers.onSend(userData, res);
            case UserData.ACCEPT -> onAccept(res, flags);
            case UserData.CONNECT -> outbound.completed(userData, res);
            case UserData.EVENTFD -> {
                wakeups.completed(res);
                if (!tasks.stopped()) {
                    wakeups.arm();
                }
            }
            case UserData.CANCEL -> {
                if (res < 0 && res != -Libc.ENOENT() && res != -Libc.EALREADY()) {
                    log.debug("{}: cancel failed: {}", name, Errno.describe(-res));
                }
            }
            default -> log.warn("{}: completion with unknown user_data {}", name, Long.toHexString(userData));
        }
    }

    /**
     * Closes a connection that failed, whatever the failure: an {@link Error} raised by a handler
     * or by the core (an {@link OutOfMemoryError} buffering its input) closes the connection like
     * an exception does, and the ring serves on. A fatal VM error is rethrown once it is closed. An
     * {@link InterruptedException} a handler threw sneakily is not turned back into the thread's
     * interrupt: the ring stops through its server's closing flag, not through interrupts.
     */
    void failed(RingConnection c, Throwable t) {
        failures.warn(name + ": connection failed; closing it", c, t);
        close(c);
        if (FailureLog.isFatal(t)) {
            throw (Error) t;
        }
    }

    void markDirty(RingConnection c) {
        // the call into the core may have started a clock that it sets at its next tick
        connections.tickDue(c, now);
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
            } catch (Throwable t) {
                failed(c, t);
            }
        }
        dirtyCount = 0;
    }

    /**
     * Acts on the core's last answer ({@link Connection#next()}): closes the connection when it
     * says close, submits a send of pending output if none is in flight, shuts the output down
     * once when it lingers, and arms the multishot recv when it reads and has none armed. An
     * outbound socket still connecting is only closed, if its core says so.
     */
    private void flush(RingConnection c) {
        if (c.state == RingConnection.CLOSED) {
            return;
        }
        Next next = c.core.next();
        if (next == Next.CLOSE) {
            close(c);
            return;
        }
        if (c.outbound != null) {
            outbound.scheduleTick(c.outbound, now);
            if (c.connecting) {
                return;
            }
        }
        if (!c.sendInFlight && !(next.writes() && transfers.submitSend(c)) && next == Next.LINGER && !c.outputShut) {
            c.outputShut = true;
            if (Libc.shutdown(c.fd, Libc.SHUT_WR()) < 0) {
                close(c);
                return;
            }
        }
        // A connection that does not want input keeps its recv armed until bytes actually arrive
        // (then onRecv cancels it): a client that waits for its response costs no cancel and re-arm.
        if (!c.recvArmed && next.reads()) {
            transfers.armRecv(c);
        }
    }

    private boolean queued() {
        return !resumed.isEmpty() || tasks.hasQueued();
    }

    /** Resumes the connections whose wakeup ran, then runs the tasks other threads gave the ring. */
    private void runQueues() {
        RingConnection c;
        while ((c = resumed.poll()) != null) {
            c.dequeued();
            resumeNow(c);
        }
        tasks.runQueued(onResumed);
    }

    private void resumeOutbound(OutboundConnection connection) {
        RingConnection c = outbound.find(connection);
        if (c != null) {
            resumeNow(c);
        }
    }

    private void resumeNow(RingConnection c) {
        if (c.state != RingConnection.OPEN) {
            return;
        }
        try {
            c.core.resume();
            markDirty(c);
        } catch (Throwable t) {
            failed(c, t);
        }
    }

    /**
     * Closes the fd at once, cancels the connection's operations and tells the core, which releases
     * a streamed body's producer, file or consumer; the slot is freed when the last operation has
     * completed ({@link #release}), so the kernel never writes into, or reads from, memory of a
     * later occupant.
     */
    void close(RingConnection c) {
        if (c.state == RingConnection.CLOSED) {
            return;
        }
        c.state = RingConnection.CLOSED;
        try {
            c.core.closed();
        } catch (Throwable t) {
            // a core that failed may fail again here; the fd and the slot are given back all the same
            failures.warn(name + ": releasing a closed connection failed", c, t);
        }
        transfers.cancel(c);
        if (c.connectAddress != null) {
            // its sockaddr stays referenced until the cancelled connect completes
            sq.cancel(c.connectData, UserData.CANCEL_DATA);
        }
        Libc.close(c.fd);
        if (c.outbound != null) {
            outbound.remove(c.outbound);
        } else {
            connections.retire(c);
        }
        if (c.counted) {
            context.releaseConnection();
        }
        release(c);
    }

    void release(RingConnection c) {
        if (c.state == RingConnection.CLOSED && c.inflight == 0) {
            connections.free(c);
        }
    }

    private void onAccept(int res, int flags) {
        int fd = acceptor.completed(res, flags, now);
        if (fd >= 0) {
            adopt(fd);
        }
        acceptor.rearmIfDue(now);
    }

    /**
     * Serves an accepted socket. Once the ring is draining, the connection drains from the start:
     * its client connected before the listening socket closed and may have sent its request
     * already, which is answered with a close. Only after the loop ended is it closed unserved.
     */
    private void adopt(int fd) {
        accepted++;
        if (tasks.stopped()) {
            Libc.close(fd);
            return;
        }
        Sockets.noDelay(fd, one);
        boolean counted = context.tryAcquireConnection();
        RingConnection c;
        try {
            c = connections.open(fd, counted, now);
        } catch (Throwable t) {
            failures.warn(name + ": cannot serve a new connection; closing it", fd, t);
            if (counted) {
                context.releaseConnection();
            }
            Libc.close(fd);
            if (FailureLog.isFatal(t)) {
                throw (Error) t;
            }
            return;
        }
        if (!counted) {
            log.debug("{}: too many connections; rejecting {}", name, c);
        }
        if (shuttingDown) {
            c.core.drain();
        }
        // its idle time (or its drain grace) starts now, not at the next scan
        c.core.tick(now);
        markDirty(c);
    }

    /** Lets every core apply its timeouts at {@link #now}, then acts on what each answers. */
    private void scan() {
        acceptor.rearmIfDue(now);
        for (int i = connections.liveCount() - 1; i >= 0; i--) {
            if (i >= connections.liveCount()) {
                continue;
            }
            if (!shuttingDown && connections.tickDue(i) - now > 0) {
                continue;
            }
            RingConnection c = connections.live(i);
            try {
                Next next = c.core.tick(now);
                markDirty(c);
                connections.tickDue(c, dueAfterTick(c, next));
            } catch (Throwable t) {
                failed(c, t);
            }
        }
        flushDirty();
        failures.flush();
    }

    /**
     * When a connection just ticked must be ticked again. Only an idle or duplex one with nothing
     * to send waits for its {@link Connection#nanosToTick}: that covers all of its deadlines (idle,
     * drain grace, TLS handshake; a WebSocket's pings, idle and close timeouts), while another
     * state may have one it leaves out (a write timeout, a producer's).
     */
    private long dueAfterTick(RingConnection c, Next next) {
        if (c.sendInFlight || next.writes()) {
            return now;
        }
        Connection.State state = c.core.state();
        if (state != Connection.State.IDLE && state != Connection.State.DUPLEX) {
            return now;
        }
        return now + Math.clamp(c.core.nanosToTick(now), 1, MAX_TICK_NANOS);
    }

    /**
     * Drains every open connection ({@link dev.spindle.core.spi.Connection#drain()}): busy ones
     * close after their response, idle ones after one more or a short grace. The loop stops
     * accepting after its next wait, once the accepts the kernel deferred to it have run.
     */
    private void beginShutdown() {
        shuttingDown = true;
        shutdownBegan = now;
        for (int i = connections.liveCount() - 1; i >= 0; i--) {
            RingConnection c = connections.live(i);
            if (c.state == RingConnection.OPEN) {
                c.core.drain();
            }
        }
        nextScan = now;
    }

    /** Closes everything, waits (bounded) for the kernel to finish what was cancelled, and frees the ring. */
    private void terminate() {
        tasks.stop();
        shuttingDown = true;
        int busy = 0;
        try {
            acceptor.stop();
            for (int i = connections.liveCount() - 1; i >= 0; i--) {
                if (i >= connections.liveCount()) {
                    continue;
                }
                RingConnection c = connections.live(i);
                if (c.counted && c.state == RingConnection.OPEN && !c.isIdle() && !c.core.state().finished()) {
                    busy++;
                }
                close(c);
            }
            int opened = outbound.closeAll();
            if (opened > 0) {
                log.debug("{}: closed {} outbound connections", name, opened);
            }
            // what was accepted before the stop still runs; a connect it makes fails at once
            tasks.runRemaining();
            wakeups.cancel();
            long deadline = System.nanoTime() + TEARDOWN_NANOS;
            while ((connections.anyOccupied() || acceptor.armed() || wakeups.armed()) && System.nanoTime() - deadline < 0) {
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
        tearDown(!connections.anyOccupied() && !acceptor.armed() && !wakeups.armed());
    }

    private void tearDown(boolean quiescent) {
        if (ring != null) {
            ring.close();
        }
        wakeups.close();
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

    int liveConnections() {
        return connections.liveCount();
    }

    /**
     * Slots held, outbound sockets' included: a slot is held until the kernel has completed every
     * operation of its socket. For tests, on the ring thread.
     */
    int slotsInUse() {
        return connections.occupied();
    }
}
