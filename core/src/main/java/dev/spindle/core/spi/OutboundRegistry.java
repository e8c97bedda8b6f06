// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sockets an {@link OutboundLoop} opened itself, as its loop keeps track of them: which socket
 * drives which {@link OutboundConnection} (compared by identity, for {@link OutboundLoop#resume}),
 * when to tick them, as their connections' {@link Connection#nanosToTick} may come before the
 * loop's periodic scan (a client's connect or response timeout), and closing them all when the loop
 * ends. A strategy extends it with what it does to one of its sockets ({@link #tick},
 * {@link #close}) and keeps connecting them, and serving them once connected, to itself. Used only
 * on the loop's thread.
 *
 * @param <S> the strategy's socket type
 */
public abstract class OutboundRegistry<S> {
    private static final Logger log = LoggerFactory.getLogger(OutboundRegistry.class);

    private final String loopName;
    private final long scanNanos;
    private final Map<OutboundConnection, Entry<S>> byConnection = new IdentityHashMap<>();
    private Entry<S>[] entries = newEntries(8);
    private int size;
    /** When the earliest of their next ticks is due ({@code System.nanoTime()}); meaningless while there are none. */
    private long nextTick;

    /** A socket and its position in {@link #entries}, for O(1) removal. */
    private static final class Entry<S> {
        final S socket;
        int index;

        Entry(S socket, int index) {
            this.socket = socket;
            this.index = index;
        }
    }

    /**
     * The registry of one loop.
     *
     * @param loopName the loop's name, for messages
     * @param scanNanos the loop's scan period: its sockets are ticked at least this often
     */
    protected OutboundRegistry(String loopName, long scanNanos) {
        this.loopName = Objects.requireNonNull(loopName, "loopName");
        if (scanNanos <= 0) {
            throw new IllegalArgumentException("scanNanos must be positive: " + scanNanos);
        }
        this.scanNanos = scanNanos;
    }

    @SuppressWarnings("unchecked")
    private static <S> Entry<S>[] newEntries(int length) {
        return (Entry<S>[]) new Entry<?>[length];
    }

    /**
     * Ticks one socket's connection ({@link Connection#tick}) and acts on the answer; a failure is
     * the strategy's to handle (close the socket), as for any call into a connection.
     *
     * @param socket a socket added and not removed
     * @param now the loop's clock ({@code System.nanoTime()})
     */
    protected abstract void tick(S socket, long now);

    /**
     * Closes one socket, which {@link #remove}s it.
     *
     * @param socket a socket added and not removed
     */
    protected abstract void close(S socket);

    /**
     * The checks of {@link OutboundLoop#connect} before a socket is opened.
     *
     * @param inLoop whether the caller runs on the loop's thread ({@link OutboundLoop#inLoop()})
     * @param remote the address to connect to
     * @param connection the connection to drive on the new socket
     * @throws NullPointerException if {@code remote} or {@code connection} is null
     * @throws IllegalStateException if not {@code inLoop}
     * @throws IllegalArgumentException if the loop drives {@code connection} already
     */
    public final void checkConnect(boolean inLoop, InetSocketAddress remote, OutboundConnection connection) {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(connection, "connection");
        if (!inLoop) {
            throw new IllegalStateException("connect is called on " + Thread.currentThread().getName() + ", not on " + loopName);
        }
        if (byConnection.containsKey(connection)) {
            throw new IllegalArgumentException(loopName + " drives this connection already");
        }
    }

    /**
     * Tells a connection no socket could be opened for it (none left, an unresolved address, a
     * stopped loop): {@link OutboundConnection#connectFailed}, then {@link Connection#closed()}.
     * What the connection throws reaches the caller, as nothing else is left to close.
     *
     * @param connection the connection given to {@link OutboundLoop#connect}, never added
     * @param cause why there is no socket
     */
    public final void refuse(OutboundConnection connection, IOException cause) {
        log.debug("{}: cannot connect: {}", loopName, cause.toString());
        try {
            connection.connectFailed(cause);
        } finally {
            connection.closed();
        }
    }

    /**
     * Adds a socket just opened for {@code connection}; the first one plans a tick a scan away.
     *
     * @param connection the connection driven on {@code socket}, which {@link #checkConnect} found new
     * @param socket the strategy's socket
     * @param now the loop's clock
     */
    public final void add(OutboundConnection connection, S socket, long now) {
        if (size == 0) {
            nextTick = now + scanNanos;
        }
        if (size == entries.length) {
            entries = Arrays.copyOf(entries, size * 2);
        }
        Entry<S> entry = new Entry<>(socket, size);
        entries[size++] = entry;
        byConnection.put(connection, entry);
    }

    /**
     * Removes the socket {@code connection} is driven on, as it closes; nothing if there is none
     * (any more).
     *
     * @param connection the connection given to {@link #add}
     */
    public final void remove(OutboundConnection connection) {
        Entry<S> entry = byConnection.remove(connection);
        if (entry == null) {
            return;
        }
        int i = entry.index;
        Entry<S> last = entries[--size];
        entries[i] = last;
        last.index = i;
        entries[size] = null;
    }

    /**
     * The socket {@code connection} is driven on.
     *
     * @param connection a connection, compared by identity
     * @return its socket, or null if it is not driven here (any more)
     */
    public final S find(OutboundConnection connection) {
        Entry<S> entry = byConnection.get(connection);
        return entry == null ? null : entry.socket;
    }

    /**
     * How long the loop may wait before the next tick is due.
     *
     * @param now the loop's clock
     * @return nanoseconds from {@code now} (negative if overdue), or {@code Long.MAX_VALUE} without sockets
     */
    public final long nanosToTick(long now) {
        return size == 0 ? Long.MAX_VALUE : nextTick - now;
    }

    /**
     * Ticks every socket ({@link #tick}) if the earliest tick is due, and plans the next, at most a
     * scan away.
     *
     * @param now the loop's clock
     */
    public final void tickIfDue(long now) {
        if (size == 0 || now - nextTick < 0) {
            return;
        }
        nextTick = now + scanNanos;
        // backwards, so that closing (swap-removal) never skips one
        for (int i = size - 1; i >= 0; i--) {
            if (i < size) {
                tick(entries[i].socket, now);
            }
        }
    }

    /**
     * After a call into {@code connection}: its next deadline may now come before the planned tick.
     *
     * @param connection a connection driven here
     * @param now the loop's clock
     */
    public final void scheduleTick(OutboundConnection connection, long now) {
        long due = now + Math.max(1, connection.nanosToTick(now));
        if (due - nextTick < 0) {
            nextTick = due;
        }
    }

    /**
     * Closes every socket ({@link #close}), as the loop ends.
     *
     * @return how many there were
     */
    public final int closeAll() {
        int count = size;
        for (int i = size - 1; i >= 0; i--) {
            if (i < size) {
                close(entries[i].socket);
            }
        }
        return count;
    }
}
