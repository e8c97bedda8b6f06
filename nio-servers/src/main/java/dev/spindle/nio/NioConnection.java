package dev.spindle.nio;

import dev.spindle.core.Connection;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One accepted socket on one {@link EventLoop}: the channel, its key, the core connection and the
 * loop's bookkeeping (interest, deadlines, lingering). Touched only by its loop's thread, except
 * {@link #run()}, which a blocking handler's virtual thread calls when it finishes.
 */
final class NioConnection implements Runnable {
    static final int OPEN = 0;
    static final int LINGERING = 1;
    static final int CLOSED = 2;

    final EventLoop loop;
    final SocketChannel channel;
    /** Null for a rejected socket that only lingers after its 503. */
    final Connection core;
    /** Whether it counts against maxConnections. */
    final boolean counted;
    SelectionKey key;
    /** Position in the loop's connection array, for O(1) removal. */
    int index = -1;
    int state = OPEN;
    /** The interest ops last given to the key. */
    int interest;
    /** The peer closed its sending side (read returned -1): never select OP_READ again. */
    boolean inputEnded;
    /** Output reached the high-water mark, so the core stopped processing; resume it once drained. */
    boolean paused;
    /** Last read or write progress, for the idle timeout. */
    long lastActivity;
    /** When the loop started waiting for the rest of a partial request, or 0. */
    long requestStarted;
    /** By when pending output must have drained, or 0 when nothing is stuck. */
    long writeDeadline;
    long lingerDeadline;
    int lingerBytes;

    NioConnection(EventLoop loop, SocketChannel channel, boolean serve, boolean counted) {
        this.loop = loop;
        this.channel = channel;
        this.counted = counted;
        this.core = serve ? new Connection(loop.server.router(), loop.server.config(), loop.server.blockingExecutor(), this) : null;
    }

    /** The core's wakeup: a blocking handler finished; hand the connection back to its loop. */
    @Override
    public void run() {
        loop.resumeLater(this);
    }

    @Override
    public String toString() {
        return String.valueOf(channel.socket().getRemoteSocketAddress());
    }
}
