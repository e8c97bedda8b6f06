// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundRegistry;
import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets one {@link RingWorker} opened itself ({@link RingWorker#connect}), on its ring
 * thread: creates each non-blocking with TCP_NODELAY, submits an {@code IORING_OP_CONNECT} for it,
 * tells its connection how the connect completed, ticks them when their connections'
 * {@code nanosToTick} says (a client's connect or response timeout may be shorter than the ring's
 * {@value RingWorker#SCAN_MILLIS} ms scan) and closes them when the ring ends (the bookkeeping is
 * {@link OutboundRegistry}'s). Once connected, the
 * worker serves a socket exactly like an accepted one: the same multishot recv, sends and close.
 * They hold slots in the worker's {@link ConnectionTable} (their completions are found like any
 * other) but are not among its live connections: not counted against maxConnections, not scanned,
 * not drained.
 */
final class OutboundSockets extends OutboundRegistry<RingConnection> {
    private static final Logger log = LoggerFactory.getLogger(OutboundSockets.class);

    private final RingWorker worker;
    private final ConnectionTable connections;
    private SubmissionQueue sq;
    /** The int 1, for TCP_NODELAY. */
    private MemorySegment one;

    OutboundSockets(RingWorker worker, ConnectionTable connections) {
        super(worker.name(), RingWorker.SCAN_NANOS);
        this.worker = worker;
        this.connections = connections;
    }

    /** Starts submitting to the ring that {@code sq} belongs to; {@code one} holds the int 1. */
    void start(SubmissionQueue sq, MemorySegment one) {
        this.sq = sq;
        this.one = one;
    }

    /**
     * Opens a non-blocking socket to {@code remote} for {@code connection} and submits its connect,
     * after the checks of {@link RingWorker#connect}; its completion comes to {@link #completed}. A socket that cannot be opened, an unresolved
     * address or a ring that has {@code stopped} is reported to the connection within this call.
     */
    void connect(InetSocketAddress remote, OutboundConnection connection, boolean inLoop, boolean stopped, long now) {
        checkConnect(inLoop, remote, connection);
        if (stopped) {
            refuse(connection, new IOException(worker.name() + " has stopped"));
            return;
        }
        if (remote.isUnresolved()) {
            // resolving here would block the ring
            refuse(connection, new UnknownHostException(remote.getHostString()));
            return;
        }
        int fd;
        try {
            fd = Sockets.openOutbound(remote.getAddress(), one);
        } catch (IOException e) {
            refuse(connection, e);
            return;
        }
        RingConnection c;
        try {
            c = connections.openOutbound(fd, connection, remote);
        } catch (RuntimeException e) {
            Libc.close(fd);
            refuse(connection, new IOException(worker.name() + " cannot take another socket", e));
            return;
        }
        add(connection, c, now);
        // GC-managed, and reachable from c (whose slot the table holds) until the connect completes
        MemorySegment address = Arena.ofAuto().allocate(Sockets.SOCKADDR_SIZE, Sockets.SOCKADDR_ALIGNMENT);
        int length = Sockets.fillAddress(address, remote.getAddress(), remote.getPort());
        try {
            sq.connect(fd, address, length, c.connectData);
        } catch (RuntimeException e) {
            connectFailed(c, new IOException(worker.name() + " cannot submit the connect", e));
            return;
        }
        c.connectAddress = address;
        c.inflight++;
        scheduleTick(connection, now);
    }

    /** A connect completed ({@code res} 0, or {@code -errno}); a stale or cancelled one only frees what it held. */
    void completed(long userData, int res) {
        RingConnection c = connections.lookup(userData);
        if (c == null) {
            return;
        }
        c.inflight--;
        c.connecting = false;
        c.connectAddress = null;
        if (c.state == RingConnection.CLOSED) {
            worker.release(c);
            return;
        }
        if (res < 0) {
            connectFailed(c, failure(-res, c.remote));
            return;
        }
        try {
            c.outbound.connected();
            // acted on like the answer to a read: the worker flushes what next() now says
            worker.markDirty(c);
        } catch (Throwable t) {
            worker.failed(c, t);
        }
    }

    /** What a failed connect's errno means, as the JDK's sockets would say it. */
    private static IOException failure(int errno, InetSocketAddress remote) {
        String message = Errno.describe(errno) + ": " + remote;
        if (errno == Libc.ECONNREFUSED() || errno == Libc.ETIMEDOUT()) {
            return new ConnectException(message);
        }
        if (errno == Libc.EHOSTUNREACH() || errno == Libc.ENETUNREACH()) {
            return new NoRouteToHostException(message);
        }
        return new SocketException(message);
    }

    private void connectFailed(RingConnection c, IOException cause) {
        c.connecting = false;
        log.debug("{}: connect failed: {}", worker.name(), cause.toString());
        try {
            // the connection is over whatever it answers (CLOSE)
            c.outbound.connectFailed(cause);
        } catch (Throwable t) {
            worker.failed(c, t);
            return;
        }
        worker.close(c);
    }

    @Override
    protected void tick(RingConnection c, long now) {
        try {
            c.core.tick(now);
            // the worker flushes what it answered
            worker.markDirty(c);
        } catch (Throwable t) {
            worker.failed(c, t);
        }
    }

    @Override
    protected void close(RingConnection c) {
        worker.close(c);
    }
}
