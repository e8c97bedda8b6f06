// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.Fixtures;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;

/**
 * The benchmark app's routes as both Netty handlers (HTTP/1.1 and HTTP/2) read them: a request's
 * path and method become what it asks for, with its path variable decoded and checked. Each
 * handler then answers in its own protocol's idiom.
 */
final class BenchmarkRoutes {
    /** What a request asks for. */
    enum Kind {
        PLAINTEXT, JSON, HEALTH, ECHO, SEARCH, DOWNLOAD,
        /** {@code GET /users-list}: ~2 KB of JSON, compressed on HTTP/1.1 when the request accepts gzip. */
        USERS_LIST,
        /** {@code POST /multipart}: a {@code multipart/form-data} upload (HTTP/1.1; 404 over HTTP/2, which no scenario uploads on). */
        MULTIPART,
        /** {@code /users/{id}}: {@link Target#value} is the id, decoded. */
        USER,
        /**
         * {@code /blocking/{ms}}, {@code /delay/{ms}}, {@code /remote/{ms}}, {@code /remote-blocking/{ms}},
         * {@code /remote-tls/{ms}} and {@code /remote-h2/{ms}} (the TLS downstream's, over HTTPS and
         * over HTTP/2): {@link Target#millis}.
         */
        BLOCKING, DELAY, REMOTE, REMOTE_BLOCKING, REMOTE_TLS, REMOTE_H2,
        NOT_FOUND,
        /** A method the route does not take: 405 with {@code Allow: GET, HEAD}. */
        GET_ONLY,
        /** 405 with {@code Allow: POST}. */
        POST_ONLY,
        /** A path variable that is not valid percent-encoding. */
        MALFORMED,
        /** A millisecond value that is no number or out of range: 400. */
        BAD_VALUE,
        /** A remote route while no downstream is configured: 503. */
        NO_DOWNSTREAM,
        /** {@code /remote-tls/{ms}} while no TLS downstream is configured: 503. */
        NO_TLS_DOWNSTREAM
    }

    /** A request's route and its variable (null, or 0 ms, when it has none). */
    record Target(Kind kind, String value, int millis) {
        private Target(Kind kind) {
            this(kind, null, 0);
        }
    }

    private static final Target[] PLAIN = new Target[Kind.values().length];

    static {
        for (Kind k : Kind.values()) {
            PLAIN[k.ordinal()] = new Target(k);
        }
    }

    private BenchmarkRoutes() {
    }

    /**
     * What the request asks for.
     *
     * @param path the target's path (the query cut off)
     * @param get whether the method is GET or HEAD
     * @param post whether the method is POST
     * @param downstreamConfigured whether the remote routes have a downstream to call
     * @param tlsDownstreamConfigured whether {@code /remote-tls/{ms}} has its TLS downstream to call
     */
    static Target match(String path, boolean get, boolean post, boolean downstreamConfigured, boolean tlsDownstreamConfigured) {
        switch (path) {
            case "/plaintext":
                return get ? plain(Kind.PLAINTEXT) : plain(Kind.GET_ONLY);
            case "/json":
                return get ? plain(Kind.JSON) : plain(Kind.GET_ONLY);
            case "/health":
                return get ? plain(Kind.HEALTH) : plain(Kind.GET_ONLY);
            case "/echo":
                return post ? plain(Kind.ECHO) : plain(Kind.POST_ONLY);
            case "/search":
                return get ? plain(Kind.SEARCH) : plain(Kind.GET_ONLY);
            case "/users-list":
                return get ? plain(Kind.USERS_LIST) : plain(Kind.GET_ONLY);
            case "/download":
                return get ? plain(Kind.DOWNLOAD) : plain(Kind.GET_ONLY);
            case "/multipart":
                return post ? plain(Kind.MULTIPART) : plain(Kind.POST_ONLY);
            default:
                return variable(path, get, downstreamConfigured, tlsDownstreamConfigured);
        }
    }

    private static Target variable(String path, boolean get, boolean downstreamConfigured, boolean tlsDownstreamConfigured) {
        Kind kind;
        String value;
        if (path.startsWith("/users/")) {
            kind = Kind.USER;
            value = path.substring(7);
        } else if (path.startsWith("/blocking/")) {
            kind = Kind.BLOCKING;
            value = path.substring(10);
        } else if (path.startsWith("/delay/")) {
            kind = Kind.DELAY;
            value = path.substring(7);
        } else if (path.startsWith("/remote/")) {
            kind = Kind.REMOTE;
            value = path.substring(8);
        } else if (path.startsWith("/remote-blocking/")) {
            kind = Kind.REMOTE_BLOCKING;
            value = path.substring(17);
        } else if (path.startsWith("/remote-tls/")) {
            kind = Kind.REMOTE_TLS;
            value = path.substring(12);
        } else if (path.startsWith("/remote-h2/")) {
            kind = Kind.REMOTE_H2;
            value = path.substring(11);
        } else {
            return plain(Kind.NOT_FOUND);
        }
        if (value.isEmpty() || value.indexOf('/') >= 0) {
            return plain(Kind.NOT_FOUND);
        }
        if (!get) {
            return plain(Kind.GET_ONLY);
        }
        String decoded = Wire.decodeSegment(value);
        if (decoded == null) {
            return plain(Kind.MALFORMED);
        }
        if (kind == Kind.USER) {
            return new Target(kind, decoded, 0);
        }
        int capped = BenchmarkLimits.cappedMillis(decoded, kind == Kind.BLOCKING ? BenchmarkLimits.MAX_BLOCKING_MS : BenchmarkLimits.MAX_DELAY_MS);
        if (capped < 0) {
            return plain(Kind.BAD_VALUE);
        }
        if ((kind == Kind.REMOTE || kind == Kind.REMOTE_BLOCKING) && !downstreamConfigured) {
            return plain(Kind.NO_DOWNSTREAM);
        }
        if ((kind == Kind.REMOTE_TLS || kind == Kind.REMOTE_H2) && !tlsDownstreamConfigured) {
            return plain(Kind.NO_TLS_DOWNSTREAM);
        }
        return new Target(kind, null, capped);
    }

    private static Target plain(Kind kind) {
        return PLAIN[kind.ordinal()];
    }

    /**
     * The body {@code /search} answers.
     *
     * @param uri the whole request target
     * @return the JSON body, or null when the target has no {@code q} parameter
     * @throws IllegalArgumentException when the query is not valid percent-encoding
     */
    static String search(String uri) {
        List<String> q = new QueryStringDecoder(uri).parameters().get("q");
        return q == null || q.isEmpty() ? null : "{\"q\":" + Fixtures.quote(q.get(0)) + "}";
    }

    /** The body {@code /users/{id}} answers. */
    static String user(String id) {
        return "{\"id\":" + Fixtures.quote(id) + "}";
    }
}
