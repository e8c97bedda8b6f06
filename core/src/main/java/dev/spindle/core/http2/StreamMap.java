// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A connection's open streams by id: open addressing over an int array, so looking a stream up
 * for every frame boxes nothing. Its size is bounded by SETTINGS_MAX_CONCURRENT_STREAMS. Closed
 * streams nothing refers to any more are kept for reuse, a few.
 */
final class StreamMap {
    /** A client with 32 streams in flight reuses them all; an idle tick gives most back. */
    private static final int POOLED = 32;
    private static final int POOLED_IDLE = 4;

    private int[] ids = new int[16];
    private Stream[] streams = new Stream[16];
    private int size;
    private final ArrayDeque<Stream> pool = new ArrayDeque<>();

    int size() {
        return size;
    }

    Stream get(int id) {
        int mask = ids.length - 1;
        for (int i = hash(id) & mask; ; i = (i + 1) & mask) {
            int k = ids[i];
            if (k == id) {
                return streams[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    /** Opens stream {@code id} (a pooled one if there is one) and adds it. */
    Stream open(int id, int receiveWindow, long sendWindow, long now) {
        Stream s = pool.isEmpty() ? new Stream() : pool.pop();
        s.open(id, receiveWindow, sendWindow, now);
        put(s);
        return s;
    }

    /** A closed stream nothing refers to any more: cleared, and kept for reuse while the pool has room. */
    void recycle(Stream s) {
        s.recycle();
        if (pool.size() < POOLED) {
            pool.push(s);
        }
    }

    /** With no stream open, the pool shrinks to a few. */
    void trimPool() {
        while (size == 0 && pool.size() > POOLED_IDLE) {
            pool.pop();
        }
    }

    void put(Stream s) {
        if ((size + 1) * 2 > ids.length) {
            grow();
        }
        insert(s.id, s);
        size++;
    }

    private void insert(int id, Stream s) {
        int mask = ids.length - 1;
        int i = hash(id) & mask;
        while (ids[i] != 0) {
            i = (i + 1) & mask;
        }
        ids[i] = id;
        streams[i] = s;
    }

    void remove(int id) {
        int mask = ids.length - 1;
        int i = hash(id) & mask;
        while (ids[i] != id) {
            if (ids[i] == 0) {
                return;
            }
            i = (i + 1) & mask;
        }
        ids[i] = 0;
        streams[i] = null;
        size--;
        // backward shift: entries after the hole that probed past it move up, so lookups still find them
        for (int j = (i + 1) & mask; ids[j] != 0; j = (j + 1) & mask) {
            int home = hash(ids[j]) & mask;
            if (((j - home) & mask) >= ((j - i) & mask)) {
                ids[i] = ids[j];
                streams[i] = streams[j];
                ids[j] = 0;
                streams[j] = null;
                i = j;
            }
        }
    }

    void forEach(Consumer<Stream> action) {
        for (Stream s : streams.clone()) {
            if (s != null) {
                action.accept(s);
            }
        }
    }

    private void grow() {
        int[] oldIds = ids;
        Stream[] old = streams;
        ids = new int[oldIds.length * 2];
        streams = new Stream[oldIds.length * 2];
        for (int i = 0; i < oldIds.length; i++) {
            if (oldIds[i] != 0) {
                insert(oldIds[i], old[i]);
            }
        }
    }

    private static int hash(int id) {
        return (id * 0x9E3779B9) >>> 16;
    }

    @Override
    public String toString() {
        return "StreamMap" + Arrays.toString(Arrays.stream(ids).filter(i -> i != 0).toArray());
    }
}
