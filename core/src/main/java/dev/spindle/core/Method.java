package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/** Request methods the router knows by name; anything else parses as {@link #OTHER}. */
public enum Method {
    GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT, OTHER;

    private static final Method[] KNOWN = {GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT};
    private final byte[] token = name().getBytes(StandardCharsets.US_ASCII);

    /** Matches the method token in {@code data[start, end)} without creating a String. */
    static Method of(MemorySegment data, byte[] array, int start, int end) {
        int len = end - start;
        for (Method m : KNOWN) {
            byte[] t = m.token;
            if (t.length == len && Ascii.equals(data, array, start, t)) {
                return m;
            }
        }
        return OTHER;
    }
}
