// SPDX-License-Identifier: Apache-2.0
package dev.spindle.tools.wsload;

import java.util.Map;

/** Writes maps, strings, numbers, booleans and null as JSON; non-finite doubles become null. */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> map -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    sb.append(first ? "" : ",");
                    first = false;
                    if (depth == 0) {
                        sb.append("\n  ");
                    }
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(depth == 0 ? ": " : ":");
                    write(sb, e.getValue(), depth + 1);
                }
                sb.append(depth == 0 && !map.isEmpty() ? "\n}" : "}");
            }
            case java.util.List<?> list -> {
                sb.append('[');
                for (int i = 0; i < list.size(); i++) {
                    sb.append(i == 0 ? "" : ",");
                    write(sb, list.get(i), depth + 1);
                }
                sb.append(']');
            }
            case Double d -> {
                if (Double.isFinite(d)) {
                    sb.append(d);
                } else {
                    sb.append("null");
                }
            }
            case Number n -> sb.append(n);
            case Boolean b -> sb.append(b);
            default -> string(sb, value.toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
