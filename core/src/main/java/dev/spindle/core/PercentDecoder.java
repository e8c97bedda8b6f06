// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.bytes.Ascii;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** Percent-decoding of path variables and query parameters, as UTF-8. */
final class PercentDecoder {
    private PercentDecoder() {
    }

    static String decode(MemorySegment data, byte[] array, long from, long to, boolean plusIsSpace) {
        long i = from;
        while (i < to && !escaped(at(data, i), plusIsSpace)) {
            i++;
        }
        if (i == to) {
            return Ascii.latin1(data, array, from, (int) (to - from));
        }
        byte[] out = new byte[(int) (to - from)];
        int n = (int) (i - from);
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, from, out, 0, n);
        while (i < to) {
            byte b = at(data, i);
            if (b == '%') {
                int hi = i + 2 < to ? Ascii.hexValue(at(data, i + 1)) : -1;
                int lo = hi >= 0 ? Ascii.hexValue(at(data, i + 2)) : -1;
                if (lo < 0) {
                    throw new HttpException(400, "malformed percent-encoding in request target");
                }
                out[n++] = (byte) (hi << 4 | lo);
                i += 3;
            } else {
                out[n++] = plusIsSpace && b == '+' ? (byte) ' ' : b;
                i++;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    /** Whether {@code data[from, to)}, once decoded, equals {@code name}; allocates only when it must. */
    static boolean equalsDecoded(MemorySegment data, byte[] array, long from, long to, String name) {
        for (long i = from; i < to; i++) {
            if (escaped(at(data, i), true)) {
                return decode(data, array, from, to, true).equals(name);
            }
        }
        if (to - from != name.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if ((at(data, from + i) & 0xFF) != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean escaped(byte b, boolean plusIsSpace) {
        return b == '%' || plusIsSpace && b == '+';
    }

    private static byte at(MemorySegment data, long i) {
        return data.get(ValueLayout.JAVA_BYTE, i);
    }
}
