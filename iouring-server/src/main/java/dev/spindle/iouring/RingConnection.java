package dev.spindle.iouring;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.LoopContext;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One accepted socket on one {@link RingWorker}: its fd, slot and generation (the user_data of
 * its operations), the core connection, and the ring's bookkeeping. Touched only by the ring
 * thread, except {@link #run()}, the core's wakeup, which any thread may call.
 */
final class RingConnection implements Runnable {
    static final int OPEN = 0;
    /** The fd is closed; the slot is freed once no operation of it is in flight. */
    static final int CLOSED = 1;

    private static final VarHandle RESUME_QUEUED;

    static {
        try {
            RESUME_QUEUED = MethodHandles.lookup().findVarHandle(RingConnection.class, "resumeQueued", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final RingWorker worker;
    final int fd;
    final int slot;
    final int generation;
    /** Serves the socket: a connection of the server's, or one that only answers 503 and closes. */
    final Connection core;
    /** Whether it counts against maxConnections. */
    final boolean counted;
    final long recvData;
    final long sendData;

    int state = OPEN;
    /** Position in its {@link ConnectionTable}'s list of live connections, or -1. */
    int index = -1;
    /** Operations submitted and not yet finally completed (a multishot recv counts once). */
    int inflight;
    boolean recvArmed;
    boolean recvCancelling;
    boolean sendInFlight;
    /** The output was shut down because the core lingers. */
    boolean outputShut;
    boolean dirty;
    /** In the worker's queue of connections to resume; wakeups meanwhile add nothing. */
    @SuppressWarnings("unused") // through RESUME_QUEUED
    private volatile boolean resumeQueued;

    /** The native buffer of the send in flight, and how many bytes of it were submitted. */
    MemorySegment sendBuffer;
    int sendLength;

    RingConnection(RingWorker worker, LoopContext context, int fd, int slot, int generation, boolean counted) {
        this.worker = worker;
        this.fd = fd;
        this.slot = slot;
        this.generation = generation;
        this.counted = counted;
        this.recvData = UserData.encode(UserData.RECV, slot, generation);
        this.sendData = UserData.encode(UserData.SEND, slot, generation);
        this.core = counted ? context.newConnection(this) : context.rejectedConnection();
    }

    /** The core's wakeup (a handler finished, a streamed body moved): the ring resumes it on its own thread. */
    @Override
    public void run() {
        if (RESUME_QUEUED.compareAndSet(this, false, true)) {
            worker.resumeLater(this);
        }
    }

    /** Called by the ring thread as it takes the connection from the queue, before it resumes the core. */
    void dequeued() {
        RESUME_QUEUED.setVolatile(this, false);
    }

    /** Nothing in progress: safe to close for idleness or shutdown. */
    boolean isIdle() {
        return state == OPEN && !sendInFlight && core.state() == Connection.State.IDLE;
    }

    @Override
    public String toString() {
        return "fd " + fd + " (slot " + slot + ")";
    }
}
