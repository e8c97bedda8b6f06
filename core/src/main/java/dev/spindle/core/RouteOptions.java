// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * What one route may change of the server's settings, given with it to
 * {@link Router.Builder#route(String, String, Handler, RouteOptions)} (or {@code post}, {@code put}):
 * {@code .post("/upload", Handler.blocking(upload), RouteOptions.defaults().maxBodySize(1L << 30))}
 * lets one streamed upload route take 1 GiB while the other routes keep the server's limits.
 * Immutable; each setter-like method returns a changed copy.
 */
public final class RouteOptions {
    private static final RouteOptions DEFAULTS = new RouteOptions(-1, null);

    private final long maxBodySize;
    private final Compression compression;

    private RouteOptions(long maxBodySize, Compression compression) {
        this.maxBodySize = maxBodySize;
        this.compression = compression;
    }

    /**
     * No option set: the route follows the server's configuration.
     *
     * @return the options that change nothing
     */
    public static RouteOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The largest request body the route accepts, instead of the server's
     * {@link ServerConfig#maxBodySize()} (inline handlers, whose bodies are buffered) or
     * {@link ServerConfig#maxStreamedBodySize()} (blocking and asynchronous handlers, whose bodies
     * are streamed); a larger one, announced or chunked, is answered 413 and the connection closed.
     * A buffered body is capped at {@code Integer.MAX_VALUE - 64} whatever this says, and still
     * counts against {@link ServerConfig#bufferedBodyBudget()}; a streamed body read whole
     * ({@link Request#body()}, {@link RequestBody#readAll()}) is bounded by this limit too.
     *
     * @param bytes 0 or more ({@link Long#MAX_VALUE} for no limit)
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public RouteOptions maxBodySize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxBodySize must not be negative, got " + bytes);
        }
        return new RouteOptions(bytes, compression);
    }

    /**
     * The route's own body limit.
     *
     * @return the limit in bytes, or -1 when the route follows the server's
     */
    public long maxBodySize() {
        return maxBodySize;
    }

    /**
     * The route's own response compression instead of its router's
     * ({@link Router.Builder#compression(Compression)}): {@code Compression.defaults()} turns it on
     * for this route alone, {@link Compression#none()} turns the router's off for it.
     *
     * @param compression how this route's answers are compressed, not null
     * @return a copy with this compression
     */
    public RouteOptions compression(Compression compression) {
        return new RouteOptions(maxBodySize, java.util.Objects.requireNonNull(compression, "compression"));
    }

    /**
     * The route's own compression.
     *
     * @return what {@link #compression(Compression)} set, or null when the route follows its router
     */
    public Compression compression() {
        return compression;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("RouteOptions[");
        if (maxBodySize >= 0) {
            s.append("maxBodySize=").append(maxBodySize);
        }
        if (compression != null) {
            s.append(s.length() > 13 ? ", " : "").append("compression=").append(compression);
        }
        return s.append(']').toString();
    }
}
