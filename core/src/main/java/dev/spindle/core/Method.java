package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/** Request methods the router knows by name; anything else parses as {@link #OTHER}. */
public enum Method {
    /** {@code GET}: fetch a resource. */
    GET,
    /** {@code HEAD}: like {@code GET} without the body; a {@code GET} route answers it when no {@code HEAD} route matches. */
    HEAD,
    /** {@code POST}: process the enclosed body. */
    POST,
    /** {@code PUT}: replace a resource with the enclosed body. */
    PUT,
    /** {@code DELETE}: remove a resource. */
    DELETE,
    /** {@code PATCH}: change part of a resource. */
    PATCH,
    /** {@code OPTIONS}: ask for the communication options; the only method that may use the target {@code *}. */
    OPTIONS,
    /** {@code TRACE}: a loop-back of the request. */
    TRACE,
    /** {@code CONNECT}: open a tunnel; its target is an authority ({@code host:port}), not a path. */
    CONNECT,
    /** Any other method token; {@link Request#methodName()} gives it as sent. */
    OTHER;

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
