// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.spi.LoopContext;
import dev.spindle.core.spi.OutboundConnection;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The connections of one {@link RingWorker}, touched by its ring thread only, in two views. By
 * slot, for completions: a connection holds its slot from {@link #open} (or {@link #openOutbound})
 * until {@link #free}, which the worker calls once the kernel has finished every operation of it,
 * and a completion finds its connection by the slot and generation in its {@code user_data}
 * ({@link #lookup}). Live, for scans and shutdown, accepted connections only: from {@link #open}
 * until {@link #retire}, when the worker closes it; the list is compacted by swapping the last one
 * into the gap, so a scan walks it backwards. Outbound sockets are listed by {@link OutboundSockets}.
 */
final class ConnectionTable {
    private final RingWorker worker;
    private final LoopContext context;

    private RingConnection[] slots = new RingConnection[256];
    private int[] freeSlots = new int[256];
    private int freeCount;
    private int occupied;
    private int generation;
    private RingConnection[] live = new RingConnection[256];
    /** When each live connection must be ticked next ({@code System.nanoTime()}), by live index. */
    private long[] tickDue = new long[256];
    private int liveCount;

    ConnectionTable(RingWorker worker, LoopContext context) {
        this.worker = worker;
        this.context = context;
    }

    /**
     * Serves {@code fd} with a new connection in a free slot, most recently freed first, under a
     * new generation, its first tick due at the scan after {@code now}; a core that cannot be
     * created leaves the slot free.
     *
     * @throws IllegalStateException if every slot {@link UserData} can encode is taken
     */
    RingConnection open(int fd, boolean counted, long now) {
        int slot = nextSlot();
        RingConnection c = new RingConnection(worker, context, fd, slot, ++generation, counted);
        // taken only now: a core that failed to be created leaves the slot free
        take(c);
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, liveCount * 2);
            tickDue = Arrays.copyOf(tickDue, liveCount * 2);
        }
        c.index = liveCount;
        tickDue[liveCount] = now;
        live[liveCount++] = c;
        return c;
    }

    /**
     * Gives an outbound socket, which the ring is connecting for {@code outbound}, a free slot under
     * a new generation; it is not live (not scanned, not drained).
     *
     * @throws IllegalStateException if every slot {@link UserData} can encode is taken
     */
    RingConnection openOutbound(int fd, OutboundConnection outbound, InetSocketAddress remote) {
        RingConnection c = new RingConnection(worker, fd, nextSlot(), ++generation, outbound, remote);
        take(c);
        return c;
    }

    /** The slot the next connection gets, most recently freed first; not yet taken. */
    private int nextSlot() {
        if (freeCount > 0) {
            return freeSlots[freeCount - 1];
        }
        int slot = occupied;
        if (slot >= UserData.MAX_SLOTS) {
            throw new IllegalStateException("more than " + UserData.MAX_SLOTS + " connections on one ring");
        }
        if (slot == slots.length) {
            slots = Arrays.copyOf(slots, slots.length * 2);
        }
        return slot;
    }

    /** {@code c} takes the slot {@link #nextSlot()} gave it. */
    private void take(RingConnection c) {
        if (freeCount > 0) {
            freeCount--;
        }
        slots[c.slot] = c;
        occupied++;
    }

    /** The connection a completion belongs to, or null if it is stale (an earlier occupant of the slot). */
    RingConnection lookup(long userData) {
        int slot = UserData.slot(userData);
        RingConnection c = slot < slots.length ? slots[slot] : null;
        return c != null && c.generation == UserData.generation(userData) ? c : null;
    }

    /** Takes a closed connection off the live list; it keeps its slot until {@link #free}. */
    void retire(RingConnection c) {
        int i = c.index;
        if (i < 0) {
            return;
        }
        RingConnection last = live[--liveCount];
        live[i] = last;
        tickDue[i] = tickDue[liveCount];
        last.index = i;
        live[liveCount] = null;
        c.index = -1;
    }

    /** Gives the connection's slot back, unless it was given back already. */
    void free(RingConnection c) {
        if (slots[c.slot] != c) {
            return;
        }
        slots[c.slot] = null;
        occupied--;
        if (freeCount == freeSlots.length) {
            freeSlots = Arrays.copyOf(freeSlots, freeCount * 2);
        }
        freeSlots[freeCount++] = c.slot;
    }

    /** Connections opened and not yet retired. */
    int liveCount() {
        return liveCount;
    }

    /** The live connection at {@code i}, below {@link #liveCount()}. */
    RingConnection live(int i) {
        return live[i];
    }

    /** When the live connection at {@code i}, below {@link #liveCount()}, must be ticked next. */
    long tickDue(int i) {
        return tickDue[i];
    }

    /** Sets when {@code c} must be ticked next; nothing for a connection that is not live. */
    void tickDue(RingConnection c, long due) {
        if (c.index >= 0) {
            tickDue[c.index] = due;
        }
    }

    /** Whether some slot is still held: the kernel may still complete an operation of its connection. */
    boolean anyOccupied() {
        return occupied > 0;
    }

    /** How many slots are held. */
    int occupied() {
        return occupied;
    }
}
