package dev.spindle.core;

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
 */
final class InputBuffer {
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

    private final int initialCapacity;

    InputBuffer(int initialCapacity) {
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
        if (live > 0) {
            unpinForWriting(live);
            ensureRoom(live);
            MemorySegment.copy(lent, ValueLayout.JAVA_BYTE, from, own, 0, live);
            end = live;
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
        }
    }

    /** Before writing into {@link #own}: leaves a pinned array to its body, moving the unconsumed bytes out of it. */
    private void unpinForWriting(int n) {
        if (!pinned) {
            return;
        }
        pinned = false;
        boolean inOwn = memory == ownMemory;
        int live = inOwn ? end - start : 0;
        byte[] fresh = new byte[Math.max(initialCapacity, live + n)];
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

    void append(ByteBuffer src) {
        int n = src.remaining();
        if (n == 0) {
            return;
        }
        keepTail();
        unpinForWriting(n);
        if (start == end) {
            start = 0;
            end = 0;
        }
        ensureRoom(n);
        src.get(own, end, n);
        end += n;
    }

    private void ensureRoom(int n) {
        if (own.length - end >= n) {
            return;
        }
        int live = end - start;
        if (live + n <= own.length && start > 0) {
            System.arraycopy(own, start, own, 0, live);
        } else {
            long wanted = Math.max((long) own.length * 2, (long) live + n);
            byte[] bigger = new byte[(int) Math.min(wanted, Integer.MAX_VALUE - 16)];
            System.arraycopy(own, start, bigger, 0, live);
            own = bigger;
            ownMemory = MemorySegment.ofArray(own);
            memory = ownMemory;
            array = own;
        }
        start = 0;
        end = live;
    }

    void consume(int n) {
        start += n;
        if (start == end && !isLent()) {
            start = 0;
            end = 0;
            if (own.length > OutputBuffer.RETAIN_LIMIT && !pinned) {
                // a large body is done with: let its memory go rather than hold it while idle
                own = new byte[initialCapacity];
                ownMemory = MemorySegment.ofArray(own);
                memory = ownMemory;
                array = own;
            }
        }
    }

    /** Bytes of memory this buffer holds, for tests. */
    int capacity() {
        return own.length;
    }
}
