// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/** Minimal JSON string quoting for the benchmark app's answers. */
public final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    /**
     * {@code value} as a JSON string literal, quotes included. Quotes, backslashes and control
     * characters are escaped, and so are U+2028 and U+2029 (so the result is also safe in
     * JavaScript source); everything else is kept as it is.
     *
     * @param value the text to quote, not null
     * @return the literal, e.g. {@code "a\"b"} for {@code a"b}
     */
    public static String quote(String value) {
        StringBuilder sb = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append("\\u00").append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
                        if (c > 0xFF) {
                            sb.setLength(sb.length() - 4);
                            sb.append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
                        }
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
