// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.spi.LoopContext;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening socket one {@link EventLoop} accepts from, on that loop's thread. Each accepted
 * channel is made non-blocking with TCP_NODELAY and counted against maxConnections (beyond it,
 * the owner serves it the core's rejection); then the owner serves it, or hands it to the next of
 * its targets in turn. A failed accept (out of file descriptors, say) stops selecting
 * {@code OP_ACCEPT} for a back-off instead of spinning on it.
 */
final class LoopListener {
    private static final Logger log = LoggerFactory.getLogger(LoopListener.class);

    private static final long BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final EventLoop owner;
    private final LoopContext context;
    private final ServerSocketChannel channel;
    /** The loops that serve what it accepts, in turn; null means the owner keeps everything. */
    private final EventLoop[] targets;
    private final SelectionKey key;
    private int next;
    private long pausedUntil;
    private boolean closed;

    /**
     * Registers {@code channel} for {@code OP_ACCEPT} with the owner's {@code selector} and tells
     * every other target that it has one more feeder ({@link EventLoop#feederOpened}).
     */
    LoopListener(EventLoop owner, LoopContext context, Selector selector, ServerSocketChannel channel, EventLoop[] targets)
            throws IOException {
        this.owner = owner;
        this.context = context;
        this.channel = channel;
        this.targets = targets;
        this.key = channel.register(selector, SelectionKey.OP_ACCEPT, this);
        if (targets != null) {
            for (EventLoop target : targets) {
                if (target != owner) {
                    target.feederOpened();
                }
            }
        }
    }

    /** Accepts up to {@code max} queued connections, serving or handing out each; stops when none is left. */
    void accept(int max, long now) {
        for (int i = 0; i < max; i++) {
            SocketChannel accepted;
            try {
                accepted = channel.accept();
            } catch (IOException e) {
                if (channel.isOpen()) {
                    // e.g. out of file descriptors: stop selecting OP_ACCEPT for a moment instead of spinning
                    log.warn("{}: accept failed: {}; pausing accepts briefly", owner.name(), e.toString());
                    key.interestOps(0);
                    pausedUntil = now + BACKOFF_NANOS;
                }
                return;
            }
            if (accepted == null) {
                return;
            }
            try {
                accepted.configureBlocking(false);
                accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                NioServer.closeQuietly(accepted);
                continue;
            }
            if (!context.tryAcquireConnection()) {
                log.debug("{}: too many connections; rejecting {}", owner.name(), accepted);
                owner.serve(accepted, false);
                continue;
            }
            EventLoop target = owner;
            if (targets != null) {
                target = targets[next];
                next = next + 1 == targets.length ? 0 : next + 1;
            }
            if (target == owner) {
                owner.serve(accepted, true);
            } else {
                target.handOff(accepted);
            }
        }
    }

    /** Selects {@code OP_ACCEPT} again once a back-off that began before {@code now} is over. */
    void resumeIfDue(long now) {
        if (key.isValid() && key.interestOps() == 0 && now - pausedUntil >= 0) {
            key.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** Closes the socket (once); the loops it fed stop waiting for it, having got its last channel. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        key.cancel();
        NioServer.closeQuietly(channel);
        if (targets != null) {
            for (EventLoop target : targets) {
                if (target != owner) {
                    target.feederClosed();
                }
            }
        }
    }
}
