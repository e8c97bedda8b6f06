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
    private static final RouteOptions DEFAULTS = new RouteOptions(-1, null, false);

    private final long maxBodySize;
    private final Compression compression;
    private final boolean requestDecompression;

    private RouteOptions(long maxBodySize, Compression compression, boolean requestDecompression) {
        this.maxBodySize = maxBodySize;
        this.compression = compression;
        this.requestDecompression = requestDecompression;
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
        return new RouteOptions(bytes, compression, requestDecompression);
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
        return new RouteOptions(maxBodySize, java.util.Objects.requireNonNull(compression, "compression"), requestDecompression);
    }

    /**
     * The route's own compression.
     *
     * @return what {@link #compression(Compression)} set, or null when the route follows its router
     */
    public Compression compression() {
        return compression;
    }

    /**
     * Whether request bodies sent with {@code Content-Encoding: gzip} (or {@code x-gzip}, or
     * {@code deflate}) reach the handler inflated, as they arrive (default false: every body as
     * sent). The route's body limit then applies to the inflated size too, so a small body that
     * inflates past it (a "zip bomb") is answered 413 with bounded memory and the connection
     * closed, as for any body too large; a body that is not valid in its coding is a 400, and one
     * in another coding a 415 naming the accepted ones in {@code Accept-Encoding} (RFC 9110
     * 15.5.16). The handler sees neither {@code Content-Encoding} nor {@code Content-Length} of the
     * coded body: a whole body's length is the inflated one, a streamed body's is unknown (-1).
     *
     * @param on whether to inflate request bodies
     * @return a copy with this setting
     */
    public RouteOptions requestDecompression(boolean on) {
        return new RouteOptions(maxBodySize, compression, on);
    }

    /**
     * Whether request bodies are inflated.
     *
     * @return what {@link #requestDecompression(boolean)} set
     */
    public boolean requestDecompression() {
        return requestDecompression;
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
        if (requestDecompression) {
            s.append(s.length() > 13 ? ", " : "").append("requestDecompression");
        }
        return s.append(']').toString();
    }
}
