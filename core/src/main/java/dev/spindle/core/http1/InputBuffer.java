// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.spi.BodyBudget;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Bytes received but not yet consumed, as a window {@code [start, end)} over {@link #memory}.
 * {@code start} is where the request being parsed begins, so the parser keeps offsets relative
 * to it and neither compaction nor a change of memory invalidates them.
 *
 * <p>The window is either this buffer's own heap array or memory the caller lent for one call
 * ({@link #lend}): requests are then parsed where the bytes arrived, and {@link #keepTail} copies
 * only what is left unconsumed, so nothing refers to the caller's memory afterwards. Lent
 * memory is only read.
 *
 * <p>What the own array grows beyond its initial size is reserved in the server's
 * {@link BodyBudget} (bodies buffered whole are what makes it grow) and released when the array
 * shrinks back or the connection ends ({@link #releaseAll}); growth the budget refuses throws
 * {@link OverBudget} and leaves the buffer as it was.
 */
public final class InputBuffer {
    MemorySegment memory;
    /** The array behind {@link #memory}, or null when it is native: Strings are made from it without a copy. */
    byte[] array;
    int start;
    int end;
    private byte[] own;
    private MemorySegment ownMemory;
    /**
     * A response body being written still reads {@link #own} (a large body sent from where it
     * arrived instead of copied): nothing may be written into it, so input arriving meanwhile goes
     * to a fresh array and the pinned one is left to the body.
     */
    private boolean pinned;

    private static final byte[] EMPTY = new byte[0];
    private static final MemorySegment EMPTY_MEMORY = MemorySegment.ofArray(EMPTY);

    private final int initialCapacity;
    /** The server's budget for buffered bodies, or null for none. */
    private final BodyBudget budget;
    /** Bytes reserved in {@link #budget} for {@link #own}: its length beyond {@link #initialCapacity}. */
    private long reserved;
    /** A pinned array replaced by a fresh one, still held by the body being sent from it, and its reservation. */
    private byte[] pinnedArray;
    private long pinnedReserved;
    /** A streamed body ended while memory was lent: {@link #keepTail} lets a grown array go if nothing is left. */
    private boolean shrinkAfterLend;

    /** Growth beyond what the budget has left: 503 (413 if the growth alone exceeds the whole budget). */
    static final class OverBudget extends HttpException {
        private static final long serialVersionUID = 1L;

        OverBudget(int status, String message) {
            super(status, message);
        }
    }

    public InputBuffer(int initialCapacity) {
        this(initialCapacity, null);
    }

    public InputBuffer(int initialCapacity, BodyBudget budget) {
        this.budget = budget;
        this.initialCapacity = Math.max(256, initialCapacity);
        own = new byte[this.initialCapacity];
        ownMemory = MemorySegment.ofArray(own);
        memory = ownMemory;
        array = own;
    }

    int available() {
        return end - start;
    }

    boolean isLent() {
        return memory != ownMemory;
    }

    /** Parses from {@code src[offset, offset + length)} in place; only when nothing is buffered. */
    void lend(MemorySegment src, byte[] srcArray, long offset, int length) {
        assert available() == 0 : "lending while bytes are buffered";
        if (offset + length > Integer.MAX_VALUE) {
            src = src.asSlice(offset, length);
            srcArray = null;
            offset = 0;
        }
        memory = src;
        array = srcArray;
        start = (int) offset;
        end = start + length;
    }

    /** Ends a {@link #lend}: copies the unconsumed bytes, if any, into this buffer's own memory. */
    void keepTail() {
        if (!isLent()) {
            return;
        }
        MemorySegment lent = memory;
        int from = start;
        int live = end - from;
        memory = ownMemory;
        array = own;
        start = 0;
        end = 0;
        boolean shrink = shrinkAfterLend;
        shrinkAfterLend = false;
        if (live > 0) {
            unpinForWriting(live);
            ensureRoom(live);
            MemorySegment.copy(lent, ValueLayout.JAVA_BYTE, from, own, 0, live);
            end = live;
        } else if (shrink) {
            shrinkIfDone();
        }
    }

    /** The array that holds unlent input: what a body sent in place may refer to. */
    byte[] ownArray() {
        return own;
    }

    /** See {@link #pinned}: until {@link #unpin}, {@link #ownArray()} is left as it is. */
    void pin() {
        pinned = true;
    }

    /** The body that pinned {@code array} was sent; if this buffer still uses it, it may write to it again. */
    void unpin(byte[] array) {
        if (array == own) {
            pinned = false;
            shrinkIfDone();
        } else if (array == pinnedArray) {
            releasePinned();
        }
    }

    private void releasePinned() {
        if (pinnedReserved > 0) {
            budget.release(pinnedReserved);
        }
        pinnedArray = null;
        pinnedReserved = 0;
    }

    /** Before writing into {@link #own}: leaves a pinned array to its body, moving the unconsumed bytes out of it. */
    private void unpinForWriting(int n) {
        if (!pinned) {
            return;
        }
        boolean inOwn = memory == ownMemory;
        int live = inOwn ? end - start : 0;
        int length = Math.max(initialCapacity, live + n);
        // the pinned array stays reserved until its body is sent (unpin) or the connection ends
        releasePinned();
        long pinnedBytes = reserved;
        reserved = 0;
        if (!reserve(length)) {
            reserved = pinnedBytes;
            throw overBudget(length);
        }
        pinned = false;
        pinnedArray = own;
        pinnedReserved = pinnedBytes;
        byte[] fresh = new byte[length];
        if (live > 0) {
            System.arraycopy(own, start, fresh, 0, live);
        }
        own = fresh;
        ownMemory = MemorySegment.ofArray(own);
        if (inOwn) {
            memory = ownMemory;
            array = own;
            start = 0;
            end = live;
        }
    }

    /** As {@link #append(ByteBuffer)} for {@code src[offset, offset + n)}, without a buffer view made per call. */
    void append(MemorySegment src, long offset, int n) {
        if (n == 0) {
            return;
        }
        prepareAppend(n);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, own, end, n);
        end += n;
    }

    public void append(ByteBuffer src) {
        int n = src.remaining();
        if (n == 0) {
            return;
        }
        prepareAppend(n);
        src.get(own, end, n);
        end += n;
    }

    /** Makes room for {@code n} more bytes at {@link #end} of the own array. */
    private void prepareAppend(int n) {
        keepTail();
        unpinForWriting(n);
        if (start == end) {
            start = 0;
            end = 0;
        }
        ensureRoom(n);
    }

    private void ensureRoom(int n) {
        if (own.length - end >= n) {
            return;
        }
        int live = end - start;
        if (live + n <= own.length && start > 0) {
            System.arraycopy(own, start, own, 0, live);
        } else {
            long wanted = Math.max(Math.max((long) own.length * 2, initialCapacity), (long) live + n);
            int length = (int) Math.min(wanted, Integer.MAX_VALUE - 16);
            if (!reserve(length)) {
                // doubling is only a guess at what is coming: near the end of the budget grow by a
                // quarter; not by what is needed alone, which would copy the body once per read
                length = (int) Math.min(Math.max((long) own.length + own.length / 4, (long) live + n), Integer.MAX_VALUE - 16);
                if (!reserve(length)) {
                    throw overBudget(length);
                }
            }
            moveInto(length, live);
        }
        start = 0;
        end = live;
    }

    /**
     * Makes room for {@code size} bytes from {@link #start} at once, sized to fit (a body whose length
     * is announced grows the buffer once, not by doubling), reserving the growth in the budget.
     *
     * @throws OverBudget if the budget cannot take the growth; the buffer is left as it was
     */
    void reserveFor(long size) {
        int live = end - start;
        if (size <= live || size > Integer.MAX_VALUE - 16) {
            // all of it has arrived; or a size beyond an array, which the body limit refuses
            return;
        }
        if (isLent()) {
            // the own array is empty while memory is lent: size it now, and keepTail copies the tail into it
            if (size > own.length) {
                unpinForWriting(0);
                int length = (int) size;
                if (!reserve(length)) {
                    throw overBudget(length);
                }
                own = new byte[length];
                ownMemory = MemorySegment.ofArray(own);
            }
            return;
        }
        if (size <= own.length - start) {
            return;
        }
        unpinForWriting(0);
        live = end - start;
        if (size <= own.length) {
            System.arraycopy(own, start, own, 0, live);
        } else {
            int length = (int) size;
            if (!reserve(length)) {
                throw overBudget(length);
            }
            moveInto(length, live);
        }
        start = 0;
        end = live;
    }

    /** Moves the {@code live} unread bytes into a new own array of {@code length}, which input is then read from. */
    private void moveInto(int length, int live) {
        byte[] moved = new byte[length];
        System.arraycopy(own, start, moved, 0, live);
        own = moved;
        ownMemory = MemorySegment.ofArray(own);
        memory = ownMemory;
        array = own;
    }

    /**
     * Sets the reservation to what an own array of {@code length} bytes needs; false, reserving
     * nothing more, if the budget cannot take it. Releases what a smaller array no longer needs.
     */
    private boolean reserve(int length) {
        long wanted = Math.max(0, (long) length - initialCapacity);
        if (budget == null || wanted == reserved) {
            return true;
        }
        if (wanted < reserved) {
            budget.release(reserved - wanted);
        } else if (!budget.tryReserve(wanted - reserved)) {
            return false;
        }
        reserved = wanted;
        return true;
    }

    private OverBudget overBudget(int length) {
        long growth = (long) length - initialCapacity;
        if (growth > budget.capacity()) {
            return new OverBudget(413, "body larger than the server's budget for buffered bodies (" + budget.capacity() + " bytes)");
        }
        return new OverBudget(503, "too many request bodies in flight; try again");
    }

    /**
     * The connection reads no more requests: drops what is buffered (lent memory included, so
     * {@link #keepTail} copies nothing) and gives back a grown array and its reservation now, not
     * when the strategy gets round to closing the socket. A pinned array stays with its body.
     */
    void discard() {
        start = end;
        if (!isLent()) {
            start = 0;
            end = 0;
            if (reserved > 0 && !pinned) {
                shrink();
            }
        }
    }

    /** The connection ended: gives back every reservation (the arrays go with the connection). */
    void releaseAll() {
        releasePinned();
        if (reserved > 0) {
            budget.release(reserved);
            reserved = 0;
        }
    }

    void consume(int n) {
        consumeRequest(n);
        if (start == end && !isLent() && own.length > OutputBuffer.RETAIN_LIMIT && !pinned) {
            // a large body is done with: let its memory go rather than hold it while idle
            shrink();
        }
    }

    /**
     * Bytes of a streamed body were consumed (taken by its consumer, or framing between its chunks).
     * Unlike {@link #consume} a grown array stays while the body streams: a strategy that delivers
     * more than the body's window while its consumer lags (io_uring's multishot receive, until its
     * cancel lands) would otherwise grow a fresh array from the initial size every time the window
     * drains it, allocating several times the body. The growth stays reserved in the budget, and
     * {@link #bodyEnded} lets it go.
     */
    void consumeBody(int n) {
        consumeRequest(n);
    }

    /** The streamed body is whole (or dropped): a grown array with nothing left in it goes, now or once lent memory is given back. */
    void bodyEnded() {
        if (isLent()) {
            shrinkAfterLend = true;
        } else {
            shrinkIfDone();
        }
    }

    /**
     * A whole request was parsed and is about to be handled: its bytes are consumed, but the array
     * stays as it is, for its body may be answered from it (an echo sent in place); once it is
     * handled, {@link #shrinkIfDone} lets a grown array go. Letting it go here made every echo of a
     * large body a copy into the output, twice the memory and outside the budget.
     */
    void consumeRequest(int n) {
        start += n;
        if (start == end && !isLent()) {
            start = 0;
            end = 0;
        }
    }

    /**
     * The request just handled is done with (its body answered, or pinned by an echo until sent):
     * a grown buffer with nothing left in it shrinks back and gives back its reservation, so the
     * budget counts bodies in flight, not connections that once had one.
     */
    void shrinkIfDone() {
        if ((reserved > 0 || own.length > OutputBuffer.RETAIN_LIMIT) && !pinned && start == end && !isLent()) {
            shrink();
        }
    }

    private void shrink() {
        reserve(initialCapacity);
        own = new byte[initialCapacity];
        ownMemory = MemorySegment.ofArray(own);
        memory = ownMemory;
        array = own;
        start = 0;
        end = 0;
    }

    /**
     * Lets go of the own array while it holds nothing and nothing refers to it (a quiet
     * connection), so an idle connection holds none; the next append makes one again.
     */
    void release() {
        if (own.length > 0 && reserved == 0 && !pinned && start == end && !isLent()) {
            own = EMPTY;
            ownMemory = EMPTY_MEMORY;
            memory = ownMemory;
            array = own;
            start = 0;
            end = 0;
        }
    }

    /** Takes what is buffered and not parsed (the bytes after a request that switched protocols). */
    byte[] take() {
        byte[] rest = new byte[end - start];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, start, rest, 0, rest.length);
        start = end;
        return rest;
    }

    /** Bytes of memory this buffer holds, for tests. */
    int capacity() {
        return own.length;
    }
}
