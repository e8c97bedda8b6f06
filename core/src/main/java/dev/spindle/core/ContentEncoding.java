// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.compress.DeflateEncoding;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A content coding the server can compress responses with (RFC 9110 8.4.1): {@link #gzip()} and
 * {@link #deflate()} from the JDK, or one a module brings, such as {@code spindle-compression-zstd}'s
 * {@code ZstdEncoding}. Encodings are registered explicitly, in the server's order of preference,
 * with {@link Compression#encodings(ContentEncoding...)}; nothing is discovered from the class path.
 *
 * <p>This is the plug-in point: an implementation names its token and makes one stream per body.
 * The server calls {@link #encoder(OutputStream)} for every compressed response, on the thread
 * that produces the body (the connection's for a whole body, the body writer's for a streamed one),
 * so implementations must be thread-safe and should reuse their native state between bodies.
 */
public interface ContentEncoding {
    /**
     * The content-coding token, sent in {@code Content-Encoding} and matched (in any case) against
     * {@code Accept-Encoding}.
     *
     * @return the token, lower case, such as {@code "zstd"}
     */
    String name();

    /**
     * A stream that compresses what is written to it into {@code sink}, for one body. Its
     * {@code flush()} must hand everything written so far to {@code sink} in a form the client can
     * decode at once (a sync flush), then flush {@code sink}: server-sent events rely on it. Its
     * {@code close()} ends the coding (the trailer, if any) and releases what the stream holds; it
     * must not close {@code sink}. {@code close()} is called exactly once, also when the body is
     * abandoned midway.
     *
     * @param sink where the compressed bytes go
     * @return the compressing stream
     * @throws IOException if the coding cannot start
     */
    OutputStream encoder(OutputStream sink) throws IOException;

    /**
     * {@code gzip} (RFC 1952) at zlib's level 6, from {@link java.util.zip.Deflater}; deflaters are
     * pooled (about two per processor kept) and ended when the pool is full.
     *
     * @return the shared gzip encoding
     */
    static ContentEncoding gzip() {
        return DeflateEncoding.GZIP;
    }

    /**
     * {@code gzip} at another level.
     *
     * @param level 1 (fastest) to 9 (smallest)
     * @return a gzip encoding with its own pool of deflaters
     * @throws IllegalArgumentException if {@code level} is not within 1..9
     */
    static ContentEncoding gzip(int level) {
        return DeflateEncoding.of(true, level);
    }

    /**
     * {@code deflate}: the zlib format (RFC 1950) around a deflate stream (RFC 1951), as RFC 9110
     * 8.4.1.2 defines it, at zlib's level 6.
     *
     * @return the shared deflate encoding
     */
    static ContentEncoding deflate() {
        return DeflateEncoding.DEFLATE;
    }

    /**
     * {@code deflate} at another level.
     *
     * @param level 1 (fastest) to 9 (smallest)
     * @return a deflate encoding with its own pool of deflaters
     * @throws IllegalArgumentException if {@code level} is not within 1..9
     */
    static ContentEncoding deflate(int level) {
        return DeflateEncoding.of(false, level);
    }
}
