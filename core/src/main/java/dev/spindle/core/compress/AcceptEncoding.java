// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.ContentEncoding;
import dev.spindle.core.exchange.RequestState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * {@code Accept-Encoding} (RFC 9110 12.5.3) read where the request lies, without allocating: the
 * field's values (every field line, as one list) are scanned once per coding asked about. A
 * malformed element (a bad q-value, a stray character) is skipped, as if it were not sent.
 */
public final class AcceptEncoding {
    /** {@link #select}: send the identity coding. */
    public static final int IDENTITY = -1;
    /** {@link #select}: nothing acceptable, the identity coding excluded too (406). */
    public static final int NONE = -2;
    /** Set in {@link #select}'s answer with a coding's index: the request refused identity, so the coding is due whatever the body. */
    public static final int IDENTITY_REFUSED = 0x10000;
    /** The quality of a coding the field does not name and no {@code *} covers. */
    public static final int ABSENT = -1;

    private static final byte[] NAME = {'a', 'c', 'c', 'e', 'p', 't', '-', 'e', 'n', 'c', 'o', 'd', 'i', 'n', 'g'};

    private AcceptEncoding() {
    }

    /**
     * The coding to send: the index in {@code offered} of the acceptable one with the highest
     * q-value (ties to the earliest), with {@link #IDENTITY_REFUSED} added when the request
     * excluded identity; {@link #IDENTITY} when none is acceptable or the client ranks identity
     * higher; {@link #NONE} when nothing, identity included, is acceptable. No field: identity.
     */
    public static int select(RequestState req, List<ContentEncoding> offered) {
        if (!present(req)) {
            return IDENTITY;
        }
        int star = quality(req, "*");
        int best = IDENTITY;
        int bestQ = 0;
        for (int i = 0, n = offered.size(); i < n; i++) {
            int q = quality(req, offered.get(i).name());
            if (q == ABSENT) {
                q = star == ABSENT ? 0 : star;
            }
            if (q > bestQ) {
                best = i;
                bestQ = q;
            }
        }
        int identity = quality(req, "identity");
        boolean identityRefused = identity == 0 || identity == ABSENT && star == 0;
        if (best == IDENTITY) {
            return identityRefused ? NONE : IDENTITY;
        }
        if (identity > bestQ) {
            return IDENTITY;
        }
        return identityRefused ? best | IDENTITY_REFUSED : best;
    }

    /** Whether the request has an {@code Accept-Encoding} field at all. */
    public static boolean present(RequestState req) {
        for (int h = 0; h < req.headerCount; h++) {
            if (isField(req, h)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The q-value the request gives {@code coding}, in thousandths (1000 for {@code q=1} or none):
     * the highest of its elements naming it; {@code x-gzip} counts as {@code gzip} (RFC 9110
     * 8.4.1.3). {@link #ABSENT} when no element names it ({@code *} is not applied here).
     */
    public static int quality(RequestState req, String coding) {
        int best = ABSENT;
        for (int h = 0; h < req.headerCount; h++) {
            if (isField(req, h)) {
                int q = quality(req.data, req.array, req.base + req.headers[h * 4 + 2], req.base + req.headers[h * 4 + 3], coding);
                best = Math.max(best, q);
            }
        }
        return best;
    }

    private static boolean isField(RequestState req, int h) {
        int s = req.headers[h * 4];
        return req.headers[h * 4 + 1] - s == NAME.length
                && dev.spindle.core.bytes.Ascii.equalsIgnoreCase(req.data, req.base + s, NAME);
    }

    /** The q-value of {@code coding} in one field value, {@code d[from, to)}, or {@link #ABSENT}. */
    static int quality(MemorySegment d, byte[] a, int from, int to, String coding) {
        int best = ABSENT;
        int i = from;
        while (i < to) {
            i = skip(d, a, i, to);
            int tokenStart = i;
            while (i < to && dev.spindle.core.bytes.Ascii.isTchar(at(d, a, i))) {
                i++;
            }
            int tokenEnd = i;
            int q = 1000;
            boolean valid = tokenEnd > tokenStart;
            // parameters: only q is defined; any other makes no difference
            while (valid) {
                i = ows(d, a, i, to);
                if (i == to || at(d, a, i) == ',') {
                    break;
                }
                if (at(d, a, i) != ';') {
                    valid = false;
                    break;
                }
                i = ows(d, a, i + 1, to);
                int nameStart = i;
                while (i < to && dev.spindle.core.bytes.Ascii.isTchar(at(d, a, i))) {
                    i++;
                }
                int nameEnd = i;
                if (nameEnd == nameStart || i == to || at(d, a, i) != '=') {
                    valid = false;
                    break;
                }
                int valueStart = ++i;
                while (i < to && at(d, a, i) != ',' && at(d, a, i) != ';' && at(d, a, i) != ' ' && at(d, a, i) != '\t') {
                    i++;
                }
                if (nameEnd - nameStart == 1 && (at(d, a, nameStart) | 0x20) == 'q') {
                    q = qvalue(d, a, valueStart, i);
                    valid = q >= 0;
                }
            }
            if (valid && matches(d, a, tokenStart, tokenEnd, coding)) {
                best = Math.max(best, q);
            }
            while (i < to && at(d, a, i) != ',') {
                i++;
            }
        }
        return best;
    }

    /** RFC 9110 12.4.2: {@code 0[.ddd]} or {@code 1[.000]}, in thousandths; -1 if malformed. */
    private static int qvalue(MemorySegment d, byte[] a, int from, int to) {
        if (from == to) {
            return -1;
        }
        byte first = at(d, a, from);
        if (first != '0' && first != '1') {
            return -1;
        }
        int q = first == '1' ? 1000 : 0;
        if (from + 1 == to) {
            return q;
        }
        if (at(d, a, from + 1) != '.' || to - from - 2 > 3) {
            return -1;
        }
        int scale = 100;
        for (int i = from + 2; i < to; i++, scale /= 10) {
            byte c = at(d, a, i);
            if (c < '0' || c > '9' || first == '1' && c != '0') {
                return -1;
            }
            q += (c - '0') * scale;
        }
        return q;
    }

    private static boolean matches(MemorySegment d, byte[] a, int from, int to, String coding) {
        int len = to - from;
        if (len == coding.length() && equalsIgnoreCase(d, a, from, coding, 0)) {
            return true;
        }
        // x-gzip is gzip
        return coding.equals("gzip") && len == 6 && (at(d, a, from) | 0x20) == 'x' && at(d, a, from + 1) == '-'
                && equalsIgnoreCase(d, a, from + 2, coding, 0);
    }

    private static boolean equalsIgnoreCase(MemorySegment d, byte[] a, int at, String s, int from) {
        for (int i = from; i < s.length(); i++) {
            int c = at(d, a, at + i - from);
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Past whitespace and empty list elements. */
    private static int skip(MemorySegment d, byte[] a, int i, int to) {
        while (i < to && (at(d, a, i) == ' ' || at(d, a, i) == '\t' || at(d, a, i) == ',')) {
            i++;
        }
        return i;
    }

    private static int ows(MemorySegment d, byte[] a, int i, int to) {
        while (i < to && (at(d, a, i) == ' ' || at(d, a, i) == '\t')) {
            i++;
        }
        return i;
    }

    private static byte at(MemorySegment d, byte[] a, int i) {
        return a != null ? a[i] : d.get(ValueLayout.JAVA_BYTE, i);
    }
}
