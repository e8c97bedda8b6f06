// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.Compression;
import dev.spindle.core.Handler;
import dev.spindle.core.JsonCodec;
import dev.spindle.core.Method;
import dev.spindle.core.RouteOptions;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.Ascii;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** One compiled route: a method, a path pattern split into literal and variable segments, a handler. */
public final class Route {
    public final String method;
    public final Method knownMethod;
    public final String pattern;
    final Handler handler;
    /** The asynchronous form of {@link #handler}, or null when the route is not asynchronous. */
    public final Handler.Async async;
    public final boolean blocking;
    /** Dispatched once the header section has arrived, with the body streamed (blocking and asynchronous routes). */
    public final boolean streamsBody;
    /** Per segment: the literal bytes, or null for a variable. */
    private final byte[][] literals;
    private final String[] paramNames;
    /** The last variable is a tail ({@code {name...}}): it takes the rest of the path, slashes included. */
    private final boolean tail;
    /** Not a route of the table: the answer to a request none matched (404 or 405). */
    public final boolean fallback;
    /** The route's own body limit ({@link RouteOptions#maxBodySize()}), or -1 for the server's. */
    public final long maxBodySize;
    /** What the route was added with. */
    public final RouteOptions options;
    /** How answers are compressed (the route's own, else its router's), or null when they are not; set when the router is built. */
    public Compression compression;
    /** The router's JSON codec, or null; set when the router is built. */
    public JsonCodec json;
    /** The router's parameter converters by type, or null; set when the router is built. */
    public java.util.Map<Class<?>, java.util.function.Function<String, ?>> converters;

    /** The route of requests that match no route of the table. */
    public static Route fallback(Handler handler) {
        return new Route("*", "/", handler, true, RouteOptions.defaults());
    }

    public Route(String method, String pattern, Handler handler) {
        this(method, pattern, handler, false, RouteOptions.defaults());
    }

    public Route(String method, String pattern, Handler handler, RouteOptions options) {
        this(method, pattern, handler, false, options);
    }

    private Route(String method, String pattern, Handler handler, boolean fallback, RouteOptions options) {
        this.fallback = fallback;
        this.options = options;
        this.maxBodySize = options.maxBodySize();

        if (pattern.isEmpty() || pattern.charAt(0) != '/') {
            throw new IllegalArgumentException("route pattern must start with '/': " + pattern);
        }
        this.method = method;
        this.knownMethod = knownMethod(method);
        this.pattern = pattern;
        this.handler = handler instanceof Handler.Blocking b ? b.delegate() : handler;
        this.async = handler instanceof Handler.AsyncHandler a ? a.delegate() : null;
        this.blocking = handler instanceof Handler.Blocking;
        this.streamsBody = blocking || async != null;
        String[] segments = pattern.equals("/") ? new String[] {""} : pattern.substring(1).split("/", -1);
        literals = new byte[segments.length][];
        List<String> names = new ArrayList<>();
        boolean tailVariable = false;
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if (s.length() > 2 && s.startsWith("{") && s.endsWith("}") && s.indexOf('{', 1) < 0 && s.indexOf('}') == s.length() - 1) {
                String name = s.substring(1, s.length() - 1);
                if (name.endsWith("...")) {
                    name = name.substring(0, name.length() - 3);
                    if (i != segments.length - 1 || name.isEmpty()) {
                        throw new IllegalArgumentException("a tail variable {name...} must be the last segment: " + pattern);
                    }
                    tailVariable = true;
                }
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("bad path variable name in " + pattern);
                }
                names.add(name);
            } else if (s.contains("{") || s.contains("}")) {
                throw new IllegalArgumentException("a path variable must be a whole segment: " + pattern);
            } else {
                literals[i] = s.getBytes(StandardCharsets.UTF_8);
            }
        }
        if (names.size() > 8) {
            throw new IllegalArgumentException("at most 8 path variables per route: " + pattern);
        }
        paramNames = names.toArray(String[]::new);
        tail = tailVariable;
    }

    private static Method knownMethod(String method) {
        for (Method m : Method.values()) {
            if (m != Method.OTHER && m.name().equals(method)) {
                return m;
            }
        }
        return Method.OTHER;
    }

    /** {@return how many path variables the pattern has} */
    public int paramCount() {
        return paramNames.length;
    }

    public int paramIndex(String name) {
        for (int i = 0; i < paramNames.length; i++) {
            if (paramNames[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The largest body this route takes: its own limit, else the server's for a body
     * {@code streamed} to the handler or for one buffered.
     */
    public long bodyLimit(ServerConfig config, boolean streamed) {
        long limit = maxBodySize >= 0 ? maxBodySize : streamed ? config.maxStreamedBodySize() : config.maxBodySize();
        return streamed ? limit : Math.min(limit, Integer.MAX_VALUE - 64);
    }

    public boolean accepts(RequestState req) {
        return knownMethod == req.method
                && (knownMethod != Method.OTHER || method.equals(req.api.methodName()));
    }

    /**
     * Matches the path in {@code d[from, to)} segment by segment; on success writes the variable
     * offsets (relative to {@code base}) into {@code params}. {@code a} is the heap array behind
     * {@code d}, or null.
     */
    public boolean matches(MemorySegment d, byte[] a, int base, int from, int to, int[] params) {
        if (from == to) {
            return literals.length == 1 && literals[0] != null && literals[0].length == 0;
        }
        int i = from;
        int p = 0;
        for (byte[] literal : literals) {
            if (i >= to || at(d, a, base + i) != '/') {
                return false;
            }
            i++;
            int s = i;
            while (i < to && at(d, a, base + i) != '/') {
                i++;
            }
            if (literal == null) {
                if (tail && p == 2 * (paramNames.length - 1)) {
                    // the tail takes everything left, empty included
                    params[p++] = s;
                    params[p++] = to;
                    return true;
                }
                if (i == s) {
                    return false;
                }
                params[p++] = s;
                params[p++] = i;
            } else if (literal.length != i - s
                    || !Ascii.equals(d, a, base + s, literal)) {
                return false;
            }
        }
        return i == to;
    }

    private static byte at(MemorySegment d, byte[] a, int i) {
        return a != null ? a[i] : d.get(ValueLayout.JAVA_BYTE, i);
    }
}
