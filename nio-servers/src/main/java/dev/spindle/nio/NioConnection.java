// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.OutboundConnection;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One socket on one {@link EventLoop}, accepted or opened by the loop itself ({@link OutboundSockets}):
 * the channel, its key and the loop's socket bookkeeping around the core connection, which keeps
 * everything else (HTTP, time, lingering). Touched only by its loop's thread.
 */
final class NioConnection implements Runnable {
    final SocketChannel channel;
    /** The loop an accepted socket resumes on when its core connection wakes it ({@link #run()}); null for an outbound one. */
    final EventLoop loop;
    /** Whether it counts against maxConnections (a rejected or an outbound socket does not). */
    final boolean counted;
    /** The core connection again when the loop opened the socket ({@link #core}, typed); null for an accepted one. */
    final OutboundConnection outbound;
    /** Set once, right after construction: its wakeup needs this object. */
    Connection core;
    SelectionKey key;
    /** Position in the loop's array of accepted connections, for O(1) removal; -1 for an outbound socket. */
    int index = -1;
    /** The interest ops last given to the key. */
    int interest;
    /** An outbound socket whose connect has not completed: it is only ticked, never read or written. */
    boolean connecting;
    /** The output was shut down for lingering. */
    boolean outputShut;
    boolean closed;

    /** An accepted socket. */
    NioConnection(SocketChannel channel, boolean counted, EventLoop loop) {
        this.channel = channel;
        this.loop = loop;
        this.counted = counted;
        this.outbound = null;
    }

    /** A socket the loop is connecting for {@code outbound}. */
    NioConnection(SocketChannel channel, OutboundConnection outbound) {
        this.channel = channel;
        this.counted = false;
        this.loop = null;
        this.outbound = outbound;
        this.core = outbound;
        this.connecting = true;
    }

    /** The core connection's wakeup, from any thread: this object is it, so a socket costs no lambda besides. */
    @Override
    public void run() {
        loop.resumeLater(this);
    }

    @Override
    public String toString() {
        String remote = String.valueOf(channel.socket().getRemoteSocketAddress());
        return outbound == null ? remote : "outbound to " + remote;
    }
}
