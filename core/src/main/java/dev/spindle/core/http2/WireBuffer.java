// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes an HTTP/2 connection has encoded and not yet handed to the socket: frames are
 * appended at the end (a frame's length may be patched once its payload is known) and the
 * strategy writes from the start. It grows by doubling and compacts when what was written leaves
 * room at the front, so a connection whose peer reads promptly keeps one small array.
 */
final class WireBuffer {
    private byte[] array;
    /** A view of {@link #array}, reused while the array is: handing out the pending bytes allocates nothing. */
    private ByteBuffer view;
    /** The first byte not yet written. */
    private int start;
    /** Where the next byte is appended. */
    private int end;
    /**
     * What to add to an index into {@link #array} to get a position as {@link #position} tells it:
     * the bytes move to the front of the array when it compacts or grows, and a position taken
     * before that must still name the same byte. Int arithmetic wraps, so it holds on a connection
     * that writes more than 2 GiB in all.
     */
    private int shift;

    WireBuffer(int capacity) {
        this.array = new byte[capacity];
    }

    /** Bytes appended and not yet written. */
    int pending() {
        return end - start;
    }

    /** Where the next appended byte will lie, for {@link #patchMedium} and the like later; it stays valid across appends. */
    int position() {
        return end + shift;
    }

    /** Makes room for {@code n} more bytes. */
    void ensure(int n) {
        if (array.length - end >= n) {
            return;
        }
        int pending = end - start;
        if (start > 0 && array.length - pending >= n && pending <= array.length / 2) {
            System.arraycopy(array, start, array, 0, pending);
        } else {
            int capacity = Math.max(array.length * 2, pending + n);
            byte[] grown = new byte[Math.max(capacity, 64)];
            System.arraycopy(array, start, grown, 0, pending);
            array = grown;
        }
        shift += start;
        start = 0;
        end = pending;
    }

    void put(int b) {
        ensure(1);
        array[end++] = (byte) b;
    }

    void putShort(int v) {
        ensure(2);
        array[end++] = (byte) (v >>> 8);
        array[end++] = (byte) v;
    }

    void putMedium(int v) {
        ensure(3);
        array[end++] = (byte) (v >>> 16);
        array[end++] = (byte) (v >>> 8);
        array[end++] = (byte) v;
    }

    void putInt(int v) {
        ensure(4);
        array[end++] = (byte) (v >>> 24);
        array[end++] = (byte) (v >>> 16);
        array[end++] = (byte) (v >>> 8);
        array[end++] = (byte) v;
    }

    void putLong(long v) {
        putInt((int) (v >>> 32));
        putInt((int) v);
    }

    void put(byte[] src, int offset, int length) {
        ensure(length);
        System.arraycopy(src, offset, array, end, length);
        end += length;
    }

    /** Appends what remains of {@code src}, consuming it. */
    void put(ByteBuffer src) {
        int n = src.remaining();
        ensure(n);
        src.get(array, end, n);
        end += n;
    }

    /** Overwrites the 24-bit length at {@code at} (a frame header appended earlier and not yet written). */
    void patchMedium(int at, int v) {
        int i = index(at, 3);
        array[i] = (byte) (v >>> 16);
        array[i + 1] = (byte) (v >>> 8);
        array[i + 2] = (byte) v;
    }

    /** Overwrites the byte at {@code at}, appended earlier and not yet written. */
    void patch(int at, int b) {
        array[index(at, 1)] = (byte) b;
    }

    /** Overwrites the four bytes at {@code at}, appended earlier and not yet written. */
    void patchInt(int at, int v) {
        int i = index(at, 4);
        array[i] = (byte) (v >>> 24);
        array[i + 1] = (byte) (v >>> 16);
        array[i + 2] = (byte) (v >>> 8);
        array[i + 3] = (byte) v;
    }

    /** The pending byte at {@code at}, unsigned. */
    int get(int at) {
        return array[index(at, 1)] & 0xFF;
    }

    /** Appends {@code n} bytes to be filled in later by patching or {@link #move}. */
    void skip(int n) {
        ensure(n);
        end += n;
    }

    /** Copies {@code length} pending bytes from {@code from} to {@code to} (the ranges may overlap), to open a gap in what was appended. */
    void move(int from, int to, int length) {
        System.arraycopy(array, index(from, length), array, index(to, length), length);
    }

    /** The array index of the {@code length} bytes at position {@code at}, which must be pending. */
    private int index(int at, int length) {
        int i = at - shift;
        if (i < start || length < 0 || i > end - length) {
            throw new IllegalStateException("bytes " + at + ".." + (at + length) + " are not pending");
        }
        return i;
    }

    /** The pending bytes as a buffer positioned at the first of them; valid until the next append or write. */
    ByteBuffer view() {
        if (view == null || !view.hasArray() || view.array() != array) {
            view = ByteBuffer.wrap(array);
        }
        view.limit(end).position(start);
        return view;
    }

    /** {@code n} bytes from the start were written. */
    void written(int n) {
        if (n < 0 || n > end - start) {
            throw new IllegalArgumentException("written " + n + " of " + (end - start) + " pending bytes");
        }
        start += n;
        if (start == end) {
            shift += end;
            start = 0;
            end = 0;
        }
    }

    /** A copy of the pending bytes, for tests. */
    byte[] toArray() {
        return Arrays.copyOfRange(array, start, end);
    }

    int capacity() {
        return array.length;
    }

    /** Lets go of the array (a connection that only lingers). */
    void shed() {
        array = new byte[0];
        shift += end;
        start = 0;
        end = 0;
    }
}
