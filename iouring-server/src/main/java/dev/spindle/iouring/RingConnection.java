package dev.spindle.iouring;

import dev.spindle.core.Connection;
import java.lang.foreign.MemorySegment;

/**
 * One accepted socket on one {@link RingWorker}: its fd, slot and generation (the user_data of
 * its operations), the core connection, and the ring's bookkeeping. Touched only by the ring
 * thread, except {@link #run()}, which a blocking handler's virtual thread calls when it finishes.
 */
final class RingConnection implements Runnable {
    static final int OPEN = 0;
    /** Output shut down after the last response; reading and discarding until EOF or the deadline. */
    static final int LINGERING = 1;
    /** The fd is closed; the slot is freed once no operation of it is in flight. */
    static final int CLOSED = 2;

    final RingWorker worker;
    final int fd;
    final int slot;
    final int generation;
    /** Null for a socket that is only answered 503 and closed. */
    final Connection core;
    /** Whether it counts against maxConnections. */
    final boolean counted;
    final long recvData;
    final long sendData;

    int state = OPEN;
    /** Position in the worker's list of live connections, or -1. */
    int index = -1;
    /** Operations submitted and not yet finally completed (a multishot recv counts once). */
    int inflight;
    boolean recvArmed;
    boolean recvCancelling;
    boolean sendInFlight;
    /** The peer closed its sending side: never receive again. */
    boolean inputEnded;
    /** Send what is pending (and {@link #extra}), then close: no more requests are processed. */
    boolean finishing;
    boolean dirty;

    /** The native buffer of the send in flight, and what it carries. */
    MemorySegment sendBuffer;
    int sendLength;
    boolean sendingExtra;
    /** A complete response written after the core's output (408, 503), or null. */
    byte[] extra;
    int extraSent;

    long lastActivity;
    /** When the rest of a started request began to be awaited, or 0. */
    long requestStarted;
    /** By when the send in flight must complete, or 0. */
    long writeDeadline;
    long lingerDeadline;
    long lingerBytes;

    RingConnection(RingWorker worker, int fd, int slot, int generation, boolean serve, boolean counted) {
        this.worker = worker;
        this.fd = fd;
        this.slot = slot;
        this.generation = generation;
        this.counted = counted;
        this.recvData = UserData.encode(UserData.RECV, slot, generation);
        this.sendData = UserData.encode(UserData.SEND, slot, generation);
        this.core = serve ? new Connection(worker.router(), worker.config(), worker.blockingExecutor(), this) : null;
    }

    /** The core's wakeup: a blocking handler finished; hand the connection back to its ring. */
    @Override
    public void run() {
        worker.resumeLater(this);
    }

    boolean hasOutput() {
        return (core != null && core.hasOutbound()) || extra != null;
    }

    /** Nothing in progress: safe to close for idleness or shutdown. */
    boolean isIdle() {
        return state == OPEN && core != null && !finishing && extra == null && !sendInFlight && core.isIdle();
    }

    /** Everything this connection will ever send has been handed out. */
    boolean isDone() {
        return core == null || finishing || core.shouldClose();
    }

    @Override
    public String toString() {
        return "fd " + fd + " (slot " + slot + ")";
    }
}
