// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.LoopContext;
import dev.spindle.core.spi.OutboundConnection;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;

/**
 * One socket on one {@link RingWorker}, accepted or opened by the ring itself
 * ({@link OutboundSockets}): its fd, slot and generation (the user_data of its operations), the
 * core connection, and the ring's bookkeeping. Touched only by the ring thread, except
 * {@link #run()}, an accepted connection's wakeup, which any thread may call.
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
    /** Serves the socket: a connection of the server's, one that only answers 503 and closes, or an outbound one. */
    final Connection core;
    /** Whether it counts against maxConnections (a rejected or an outbound socket does not). */
    final boolean counted;
    /** The core connection again when the ring opened the socket ({@link #core}, typed); null for an accepted one. */
    final OutboundConnection outbound;
    /** Where an outbound socket connects to; null for an accepted one. */
    final InetSocketAddress remote;
    final long recvData;
    final long sendData;
    final long connectData;

    int state = OPEN;
    /** Position among its {@link ConnectionTable}'s live connections, or -1 (always for an outbound socket). */
    int index = -1;
    /** Operations submitted and not yet finally completed (a multishot recv counts once). */
    int inflight;
    boolean recvArmed;
    boolean recvCancelling;
    /**
     * Bytes arrived while the core wanted none: until it is idle again it gets single-shot recvs,
     * one buffer each, so a re-armed recv cannot pour the socket's whole backlog into it.
     */
    boolean throttled;
    boolean sendInFlight;
    /** An outbound socket whose connect has not completed: it is only ticked, never read or written. */
    boolean connecting;
    /** The {@code sockaddr} the connect in flight reads; held until its completion, so the kernel never reads freed memory. */
    MemorySegment connectAddress;
    /** The output was shut down because the core lingers. */
    boolean outputShut;
    boolean dirty;
    /** In the worker's queue of connections to resume; wakeups meanwhile add nothing. */
    @SuppressWarnings("unused") // through RESUME_QUEUED
    private volatile boolean resumeQueued;

    /** The native buffer of the send in flight, and how many bytes of it were submitted. */
    MemorySegment sendBuffer;
    int sendLength;

    /** An accepted socket: its core is the server's (or a rejecting one), with this as its wakeup. */
    RingConnection(RingWorker worker, LoopContext context, int fd, int slot, int generation, boolean counted) {
        this.worker = worker;
        this.fd = fd;
        this.slot = slot;
        this.generation = generation;
        this.counted = counted;
        this.outbound = null;
        this.remote = null;
        this.recvData = UserData.encode(UserData.RECV, slot, generation);
        this.sendData = UserData.encode(UserData.SEND, slot, generation);
        this.connectData = 0;
        this.core = counted ? context.newConnection(this) : context.rejectedConnection();
    }

    /** A socket the ring is connecting to {@code remote} for {@code outbound}, whose wakeup is {@link RingWorker#resume}. */
    RingConnection(RingWorker worker, int fd, int slot, int generation, OutboundConnection outbound, InetSocketAddress remote) {
        this.worker = worker;
        this.fd = fd;
        this.slot = slot;
        this.generation = generation;
        this.counted = false;
        this.outbound = outbound;
        this.remote = remote;
        this.recvData = UserData.encode(UserData.RECV, slot, generation);
        this.sendData = UserData.encode(UserData.SEND, slot, generation);
        this.connectData = UserData.encode(UserData.CONNECT, slot, generation);
        this.core = outbound;
        this.connecting = true;
    }

    /** An accepted connection's wakeup (a handler finished, a streamed body moved): the ring resumes it on its own thread. */
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
        String socket = "fd " + fd + " (slot " + slot + ")";
        return outbound == null ? socket : socket + " outbound to " + remote;
    }
}
