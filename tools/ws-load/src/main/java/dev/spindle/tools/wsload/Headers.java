// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** An HTTP/1.1 response head: the status code and the headers by lower-case name (repeats joined by ", "). */
record Headers(int status, Map<String, String> fields) {
    /** The index just past the first CRLFCRLF in {@code b[from, to)}, or -1. */
    static int endOfHead(byte[] b, int from, int to) {
        for (int i = from; i + 3 < to; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i + 4;
            }
        }
        return -1;
    }

    /** Parses {@code b[0, end)}; null when the status line is not HTTP/1.x with a 3-digit code. */
    static Headers parse(byte[] b, int end) {
        String text = new String(b, 0, end, StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\r\n");
        String statusLine = lines[0];
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            return null;
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            return null;
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            fields.merge(name, value, (a, c) -> a + ", " + c);
        }
        return new Headers(status, fields);
    }

    String get(String lowerName) {
        return fields.get(lowerName);
    }

    /** Whether the comma-separated header holds {@code token} (case-insensitive). */
    boolean hasToken(String lowerName, String token) {
        String v = fields.get(lowerName);
        if (v == null) {
            return false;
        }
        for (String part : v.split(",")) {
            if (part.trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }
}
