package dev.spindle.nio;

import dev.spindle.core.spi.Connection;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One accepted socket on one {@link EventLoop}: the channel, its key and the loop's socket
 * bookkeeping around the core connection, which keeps everything else (HTTP, time, lingering).
 * Touched only by its loop's thread.
 */
final class NioConnection {
    final SocketChannel channel;
    /** Whether it counts against maxConnections (a rejected socket does not). */
    final boolean counted;
    /** Set once, right after construction: its wakeup needs this object. */
    Connection core;
    SelectionKey key;
    /** Position in the loop's connection array, for O(1) removal. */
    int index = -1;
    /** The interest ops last given to the key. */
    int interest;
    /** The output was shut down for lingering. */
    boolean outputShut;
    boolean closed;

    NioConnection(SocketChannel channel, boolean counted) {
        this.channel = channel;
        this.counted = counted;
    }

    @Override
    public String toString() {
        return String.valueOf(channel.socket().getRemoteSocketAddress());
    }
}
