// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** Byte-level ASCII helpers for the parser, so common tokens never go through String. */
public final class Ascii {
    private static final boolean[] TCHAR = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) TCHAR[c] = true;
        for (int c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
        for (int c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
    }

    private Ascii() {
    }

    public static boolean isTchar(byte b) {
        return TCHAR[b & 0xFF];
    }

    /** Field-value octets: VCHAR, obs-text, SP and HTAB (RFC 9110 5.5). */
    public static boolean isFieldValueChar(byte b) {
        int c = b & 0xFF;
        return c >= 0x20 && c != 0x7F || c == '\t';
    }

    /** {@code lowerName} must be lowercase ASCII; {@code data} may be any case. */
    public static boolean equalsIgnoreCase(MemorySegment data, long at, byte[] lowerName) {
        for (int i = 0; i < lowerName.length; i++) {
            int c = data.get(ValueLayout.JAVA_BYTE, at + i);
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lowerName[i]) {
                return false;
            }
        }
        return true;
    }

    public static boolean equalsIgnoreCase(MemorySegment data, long at, String name) {
        for (int i = 0; i < name.length(); i++) {
            int a = data.get(ValueLayout.JAVA_BYTE, at + i);
            int b = name.charAt(i);
            if (a >= 'A' && a <= 'Z') a += 32;
            if (b >= 'A' && b <= 'Z') b += 32;
            if (a != b) {
                return false;
            }
        }
        return true;
    }

    /** Like {@link #equals(MemorySegment, long, byte[])}; {@code array} is the heap array behind {@code data}, or null. */
    public static boolean equals(MemorySegment data, byte[] array, int at, byte[] expected) {
        if (array != null) {
            return java.util.Arrays.equals(array, at, at + expected.length, expected, 0, expected.length);
        }
        return equals(data, at, expected);
    }

    public static boolean equals(MemorySegment data, long at, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (data.get(ValueLayout.JAVA_BYTE, at + i) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code data[from, from + length)} as a Latin-1 string; {@code array} is the whole array
     * behind a heap {@code data} (read without a copy), or null for native memory.
     */
    public static String latin1(MemorySegment data, byte[] array, long from, int length) {
        byte[] source = array != null ? array : bytes(data, from, length);
        return new String(source, array != null ? (int) from : 0, length, StandardCharsets.ISO_8859_1);
    }

    public static byte[] bytes(MemorySegment data, long from, int length) {
        byte[] copy = new byte[length];
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, from, copy, 0, length);
        return copy;
    }

    public static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t';
    }

    public static int hexValue(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        return -1;
    }

    /**
     * Whether the comma-separated list {@code value} (a field value such as {@code Vary} or
     * {@code Connection}; null for none) has {@code token}, in any case, as an element.
     */
    public static boolean listHasToken(String value, String token) {
        if (value == null) {
            return false;
        }
        int n = value.length();
        int i = 0;
        while (i < n) {
            while (i < n && (value.charAt(i) == ' ' || value.charAt(i) == '\t' || value.charAt(i) == ',')) {
                i++;
            }
            int start = i;
            while (i < n && value.charAt(i) != ',') {
                i++;
            }
            int end = i;
            while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
                end--;
            }
            if (end - start == token.length() && value.regionMatches(true, start, token, 0, token.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code host} is an IP literal, not a name: digits and dots (IPv4), or a colon (IPv6),
     * nothing a DNS name looks like.
     *
     * @param host a host as an address gives it, an IPv6 literal without brackets
     * @return true for an IP literal
     */
    public static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }
}
