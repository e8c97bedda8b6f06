package dev.spindle.iouring;

import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.iouring.ffi.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets one {@link RingWorker} opened itself ({@link RingWorker#connect}), on its ring
 * thread: creates each non-blocking with TCP_NODELAY, submits an {@code IORING_OP_CONNECT} for it,
 * tells its connection how the connect completed, ticks them when their connections'
 * {@code nanosToTick} says (a client's connect or response timeout may be shorter than the ring's
 * {@value RingWorker#SCAN_MILLIS} ms scan) and closes them when the ring ends. Once connected, the
 * worker serves a socket exactly like an accepted one: the same multishot recv, sends and close.
 * They hold slots in the worker's {@link ConnectionTable} (their completions are found like any
 * other) but are not among its live connections: not counted against maxConnections, not scanned,
 * not drained.
 */
final class OutboundSockets {
    private static final Logger log = LoggerFactory.getLogger(OutboundSockets.class);

    private final RingWorker worker;
    private final ConnectionTable connections;
    private SubmissionQueue sq;
    /** The int 1, for TCP_NODELAY. */
    private MemorySegment one;
    private RingConnection[] sockets = new RingConnection[8];
    private int size;
    /** The same sockets by their core connection, for its wakeup ({@link RingWorker#resume}). */
    private final Map<OutboundConnection, RingConnection> byConnection = new IdentityHashMap<>();
    /** When the earliest of their next ticks is due ({@code System.nanoTime()}); meaningless while there are none. */
    private long nextTick;

    OutboundSockets(RingWorker worker, ConnectionTable connections) {
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
     * whose completion comes to {@link #completed}. A socket that cannot be opened, an unresolved
     * address or a ring that has {@code stopped} is reported to the connection within this call.
     */
    void connect(InetSocketAddress remote, OutboundConnection connection, boolean stopped, long now) {
        if (byConnection.containsKey(connection)) {
            throw new IllegalArgumentException(worker.name() + " drives this connection already");
        }
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
        add(c, now);
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
        scheduleTick(c, now);
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

    /** No socket was opened: the connection hears it all the same. */
    private void refuse(OutboundConnection connection, IOException cause) {
        log.debug("{}: cannot connect: {}", worker.name(), cause.toString());
        // what the connection throws here reaches the caller of connect, as nothing else is left to close
        try {
            connection.connectFailed(cause);
        } finally {
            connection.closed();
        }
    }

    /** How long until the next tick is due, from {@code now}; {@code Long.MAX_VALUE} without sockets. */
    long nanosToTick(long now) {
        return size == 0 ? Long.MAX_VALUE : nextTick - now;
    }

    /**
     * Ticks every socket if the earliest tick is due, and plans the next (at most a scan away);
     * the worker then flushes what each answered.
     */
    void tickIfDue(long now) {
        if (size == 0 || now - nextTick < 0) {
            return;
        }
        nextTick = now + RingWorker.SCAN_NANOS;
        // backwards, so that closing (swap-removal) never skips one
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            RingConnection c = sockets[i];
            try {
                c.core.tick(now);
                worker.markDirty(c);
            } catch (Throwable t) {
                worker.failed(c, t);
            }
        }
    }

    /** After a call into {@code c}'s core: its next deadline may now come before the planned tick. */
    void scheduleTick(RingConnection c, long now) {
        long due = now + Math.max(1, c.core.nanosToTick(now));
        if (due - nextTick < 0) {
            nextTick = due;
        }
    }

    /** Closes every socket (the ring is ending); returns how many there were. */
    int closeAll() {
        int count = size;
        for (int i = size - 1; i >= 0; i--) {
            if (i < size) {
                worker.close(sockets[i]);
            }
        }
        return count;
    }

    /** The socket {@code connection} is driven on, or null if it is not (any more). */
    RingConnection find(OutboundConnection connection) {
        return byConnection.get(connection);
    }

    private void add(RingConnection c, long now) {
        if (size == 0) {
            nextTick = now + RingWorker.SCAN_NANOS;
        }
        if (size == sockets.length) {
            sockets = Arrays.copyOf(sockets, size * 2);
        }
        c.index = size;
        sockets[size++] = c;
        byConnection.put(c.outbound, c);
    }

    /** Takes a closed socket off the list; it keeps its slot until the worker frees it. */
    void remove(RingConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        RingConnection last = sockets[--size];
        sockets[i] = last;
        last.index = i;
        sockets[size] = null;
        c.index = -1;
        byConnection.remove(c.outbound);
    }
}
