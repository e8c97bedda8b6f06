package dev.spindle.nio;

import dev.spindle.core.spi.OutboundConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets one {@link EventLoop} opened itself ({@link EventLoop#connect}), on that loop's
 * thread: connects them, finishes each connect when the selector says it is done, ticks them when
 * their connections' {@code nanosToTick} says (a client's connect or response timeout may be shorter
 * than the loop's {@value EventLoop#SCAN_MILLIS} ms scan) and closes them when the loop ends. Once
 * connected, the loop serves a socket exactly like an accepted one. They are not counted against
 * maxConnections, and a drain does not wait for them.
 */
final class OutboundSockets {
    private static final Logger log = LoggerFactory.getLogger(OutboundSockets.class);

    private final EventLoop loop;
    private final Selector selector;
    private NioConnection[] sockets = new NioConnection[8];
    private int size;
    /** The same sockets by their core connection, for its wakeup ({@link EventLoop#resume}). */
    private final Map<OutboundConnection, NioConnection> byConnection = new IdentityHashMap<>();
    /** When the earliest of their next ticks is due ({@code System.nanoTime()}); meaningless while there are none. */
    private long nextTick;

    OutboundSockets(EventLoop loop, Selector selector) {
        this.loop = loop;
        this.selector = selector;
    }

    /**
     * Opens a non-blocking socket to {@code remote} for {@code connection}. A connect that fails at
     * once (or a loop that has {@code stopped}) is reported to the connection within this call; one
     * that completes at once is served at once; otherwise the selector reports it.
     */
    void connect(InetSocketAddress remote, OutboundConnection connection, boolean stopped, long now) {
        if (byConnection.containsKey(connection)) {
            throw new IllegalArgumentException(loop.name() + " drives this connection already");
        }
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            refuse(connection, e);
            return;
        }
        NioConnection c = new NioConnection(channel, connection);
        add(c, now);
        boolean done;
        try {
            if (stopped) {
                throw new IOException(loop.name() + " has stopped");
            }
            if (remote.isUnresolved()) {
                // resolving here would block the loop
                throw new UnknownHostException(remote.getHostString());
            }
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            connection.transferFiles(true);
            c.key = channel.register(selector, 0, c);
            done = channel.connect(remote);
        } catch (IOException e) {
            connectFailed(c, e);
            return;
        } catch (Throwable t) {
            loop.failed(c, t);
            return;
        }
        if (done) {
            established(c);
        } else {
            c.key.interestOps(SelectionKey.OP_CONNECT);
            c.interest = SelectionKey.OP_CONNECT;
            scheduleTick(c, now);
        }
    }

    /** The selector found {@code c}'s connect done, or failed. */
    void finishConnect(NioConnection c) {
        try {
            if (!c.channel.finishConnect()) {
                return;
            }
        } catch (IOException e) {
            connectFailed(c, e);
            return;
        }
        established(c);
    }

    private void established(NioConnection c) {
        c.connecting = false;
        try {
            // interest is still OP_CONNECT (or none), so service sets what the connection answers
            loop.service(c, c.outbound.connected());
        } catch (Throwable t) {
            loop.failed(c, t);
        }
    }

    private void connectFailed(NioConnection c, IOException cause) {
        log.debug("{}: connect failed: {}", loop.name(), cause.toString());
        try {
            // the connection is over whatever it answers (CLOSE)
            c.outbound.connectFailed(cause);
        } catch (Throwable t) {
            loop.failed(c, t);
            return;
        }
        loop.close(c);
    }

    /** No socket could be opened (out of file descriptors, say): the connection hears it all the same. */
    private void refuse(OutboundConnection connection, IOException cause) {
        log.debug("{}: cannot connect: {}", loop.name(), cause.toString());
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

    /** Ticks every socket if the earliest tick is due, and plans the next (at most a scan away). */
    void tickIfDue(long now) {
        if (size == 0 || now - nextTick < 0) {
            return;
        }
        nextTick = now + EventLoop.SCAN_NANOS;
        // backwards, so that closing (swap-removal) never skips one
        for (int i = size - 1; i >= 0; i--) {
            if (i >= size) {
                continue;
            }
            NioConnection c = sockets[i];
            try {
                loop.service(c, c.core.tick(now));
            } catch (Throwable t) {
                loop.failed(c, t);
            }
        }
    }

    /** After a call into {@code c}'s core: its next deadline may now come before the planned tick. */
    void scheduleTick(NioConnection c, long now) {
        long due = now + Math.max(1, c.core.nanosToTick(now));
        if (due - nextTick < 0) {
            nextTick = due;
        }
    }

    /** Closes every socket (the loop is ending); returns how many there were. */
    int closeAll() {
        int count = size;
        for (int i = size - 1; i >= 0; i--) {
            if (i < size) {
                loop.close(sockets[i]);
            }
        }
        return count;
    }

    /** The socket {@code connection} is driven on, or null if it is not (any more). */
    NioConnection find(OutboundConnection connection) {
        return byConnection.get(connection);
    }

    private void add(NioConnection c, long now) {
        if (size == 0) {
            nextTick = now + EventLoop.SCAN_NANOS;
        }
        if (size == sockets.length) {
            sockets = Arrays.copyOf(sockets, size * 2);
        }
        c.index = size;
        sockets[size++] = c;
        byConnection.put(c.outbound, c);
    }

    void remove(NioConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        NioConnection last = sockets[--size];
        sockets[i] = last;
        last.index = i;
        sockets[size] = null;
        c.index = -1;
        byConnection.remove(c.outbound);
    }
}
