// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.bytes.Ascii;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The CRLF-terminated lines of a request, as both its head ({@link RequestParser}) and a chunked
 * body ({@link BodyDecoder}) read them: finding each line's end, resuming where the last look
 * stopped so no byte is scanned twice, and checking field lines, which headers and trailers share
 * (RFC 9112 5). Positions are relative to the base {@code b} each method is given.
 */
abstract class LineScanner {
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long LF_WORD = 0x0A0A0A0A0A0A0A0AL;

    /** Next byte to examine. */
    int pos;
    /** Start of the line being scanned. */
    int lineStart;
    /** The array behind the memory being parsed, or null when it is native: array reads are cheaper. */
    byte[] heap;

    /**
     * Finds the next LF from {@link #pos}, remembering how far it looked. Fails with
     * {@code status} once the line from {@link #lineStart} exceeds {@code maxLine} bytes.
     */
    final int findLf(MemorySegment d, int b, int avail, int maxLine, int status, String message) {
        int limit = Math.min(avail, lineStart + maxLine);
        int i = pos;
        // Eight bytes at a time (SWAR): the lowest byte of the word that equals LF is exact.
        for (; i + Long.BYTES <= limit; i += Long.BYTES) {
            long x = (heap != null ? (long) LONGS.get(heap, b + i) : d.get(LONG_LE, b + i)) ^ LF_WORD;
            long found = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < limit; i++) {
            if (at(d, b + i) == '\n') {
                return i;
            }
        }
        pos = limit;
        if (avail - lineStart >= maxLine) {
            throw new HttpException(status, message);
        }
        return -1;
    }

    final byte at(MemorySegment d, int i) {
        byte[] h = heap;
        return h != null ? h[i] : d.get(BYTE, i);
    }

    final void requireCr(MemorySegment d, int b, int lf) {
        if (lf == lineStart || at(d, b + lf - 1) != '\r') {
            throw new HttpException(400, "line not terminated by CRLF");
        }
    }

    /**
     * Checks the name of the field line {@code [start, end)} (a token right before the colon, no
     * obs-fold) and returns where it ends, at the colon.
     */
    final int fieldName(MemorySegment d, int b, int start, int end) {
        if (Ascii.isWhitespace(at(d, b + start))) {
            throw new HttpException(400, "obsolete line folding is not allowed");
        }
        int i = start;
        while (i < end && Ascii.isTchar(at(d, b + i))) {
            i++;
        }
        if (i == end || at(d, b + i) != ':') {
            throw new HttpException(400, i < end && Ascii.isWhitespace(at(d, b + i))
                    ? "whitespace between header name and colon" : "malformed header field");
        }
        if (i == start) {
            throw new HttpException(400, "empty header name");
        }
        return i;
    }

    /** Where the field value after the colon at {@code nameEnd} starts: past the leading whitespace. */
    final int valueStart(MemorySegment d, int b, int nameEnd, int end) {
        int i = nameEnd + 1;
        while (i < end && Ascii.isWhitespace(at(d, b + i))) {
            i++;
        }
        return i;
    }

    /** Checks the characters of the field value {@code [valueStart, end)} and returns its end without trailing whitespace. */
    final int valueEnd(MemorySegment d, int b, int valueStart, int end) {
        for (int i = valueStart; i < end; i++) {
            if (!Ascii.isFieldValueChar(at(d, b + i))) {
                throw new HttpException(400, "invalid character in header value");
            }
        }
        int valueEnd = end;
        while (valueEnd > valueStart && Ascii.isWhitespace(at(d, b + valueEnd - 1))) {
            valueEnd--;
        }
        return valueEnd;
    }
}
