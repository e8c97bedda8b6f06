// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets one {@link EventLoop} opened itself ({@link EventLoop#connect}), on that loop's
 * thread: connects them, finishes each connect when the selector says it is done, ticks them when
 * their connections' {@code nanosToTick} says (a client's connect or response timeout may be shorter
 * than the loop's {@value EventLoop#SCAN_MILLIS} ms scan) and closes them when the loop ends (the
 * bookkeeping is {@link OutboundRegistry}'s). Once connected, the loop serves a socket exactly like
 * an accepted one. They are not counted against maxConnections, and a drain does not wait for them.
 */
final class OutboundSockets extends OutboundRegistry<NioConnection> {
    private static final Logger log = LoggerFactory.getLogger(OutboundSockets.class);

    private final EventLoop loop;
    private final Selector selector;

    OutboundSockets(EventLoop loop, Selector selector) {
        super(loop.name(), EventLoop.SCAN_NANOS);
        this.loop = loop;
        this.selector = selector;
    }

    /**
     * Opens a non-blocking socket to {@code remote} for {@code connection}, after the checks of
     * {@link EventLoop#connect}. A connect that fails at once (or a loop that has {@code stopped})
     * is reported to the connection within this call; one that completes at once is served at
     * once; otherwise the selector reports it.
     */
    void connect(InetSocketAddress remote, OutboundConnection connection, boolean inLoop, boolean stopped, long now) {
        checkConnect(inLoop, remote, connection);
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            refuse(connection, e);
            return;
        }
        NioConnection c = new NioConnection(channel, connection);
        add(connection, c, now);
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
            scheduleTick(connection, now);
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

    @Override
    protected void tick(NioConnection c, long now) {
        try {
            loop.service(c, c.core.tick(now));
        } catch (Throwable t) {
            loop.failed(c, t);
        }
    }

    @Override
    protected void close(NioConnection c) {
        loop.close(c);
    }
}
