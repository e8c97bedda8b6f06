package dev.spindle.core;

/** Byte-level ASCII helpers for the parser, so common tokens never go through String. */
final class Ascii {
    private static final boolean[] TCHAR = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) TCHAR[c] = true;
        for (int c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
        for (int c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
    }

    private Ascii() {
    }

    static boolean isTchar(byte b) {
        return TCHAR[b & 0xFF];
    }

    /** Field-value octets: VCHAR, obs-text, SP and HTAB (RFC 9110 5.5). */
    static boolean isFieldValueChar(byte b) {
        int c = b & 0xFF;
        return c >= 0x20 && c != 0x7F || c == '\t';
    }

    /** {@code lowerName} must be lowercase ASCII; {@code data} may be any case. */
    static boolean equalsIgnoreCase(byte[] data, int at, byte[] lowerName) {
        for (int i = 0; i < lowerName.length; i++) {
            int c = data[at + i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lowerName[i]) {
                return false;
            }
        }
        return true;
    }

    static boolean equalsIgnoreCase(byte[] data, int at, String name) {
        for (int i = 0; i < name.length(); i++) {
            int a = data[at + i];
            int b = name.charAt(i);
            if (a >= 'A' && a <= 'Z') a += 32;
            if (b >= 'A' && b <= 'Z') b += 32;
            if (a != b) {
                return false;
            }
        }
        return true;
    }

    static boolean isWhitespace(byte b) {
        return b == ' ' || b == '\t';
    }

    static int hexValue(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        return -1;
    }
}
