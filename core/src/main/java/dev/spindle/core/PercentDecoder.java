package dev.spindle.core;

import java.nio.charset.StandardCharsets;

/** Percent-decoding of path variables and query parameters, as UTF-8. */
final class PercentDecoder {
    private PercentDecoder() {
    }

    static String decode(byte[] data, int from, int to, boolean plusIsSpace) {
        int i = from;
        while (i < to && data[i] != '%' && !(plusIsSpace && data[i] == '+')) {
            i++;
        }
        if (i == to) {
            return new String(data, from, to - from, StandardCharsets.ISO_8859_1);
        }
        byte[] out = new byte[to - from];
        int n = i - from;
        System.arraycopy(data, from, out, 0, n);
        while (i < to) {
            byte b = data[i];
            if (b == '%') {
                int hi = i + 2 < to ? Ascii.hexValue(data[i + 1]) : -1;
                int lo = hi >= 0 ? Ascii.hexValue(data[i + 2]) : -1;
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
    static boolean equalsDecoded(byte[] data, int from, int to, String name) {
        boolean plain = true;
        for (int i = from; i < to; i++) {
            if (data[i] == '%' || data[i] == '+') {
                plain = false;
                break;
            }
        }
        if (plain) {
            if (to - from != name.length()) {
                return false;
            }
            for (int i = 0; i < name.length(); i++) {
                if ((data[from + i] & 0xFF) != name.charAt(i)) {
                    return false;
                }
            }
            return true;
        }
        return decode(data, from, to, true).equals(name);
    }
}
