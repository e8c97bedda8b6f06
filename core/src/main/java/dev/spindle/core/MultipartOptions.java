// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.nio.file.Path;

/**
 * The limits a {@code multipart/form-data} body is read within ({@link Request#multipart(MultipartOptions)}),
 * and where {@link Multipart#form()} puts the files. The route's body limit
 * ({@link RouteOptions#maxBodySize}, else the server's) applies as well. A body over a size or
 * count limit is a 413 {@link HttpException} naming the limit; a malformed one is a 400.
 * Immutable; each setter-like method returns a changed copy.
 *
 * <table class="striped">
 * <caption>Limits and their defaults</caption>
 * <thead><tr><th>limit</th><th>default</th><th>bounds</th></tr></thead>
 * <tbody>
 * <tr><td>{@link #maxParts(int)}</td><td>100</td><td>the parts of one body</td></tr>
 * <tr><td>{@link #maxPartSize(long)}</td><td>no limit of its own</td><td>the content of one part</td></tr>
 * <tr><td>{@link #maxRequestSize(long)}</td><td>no limit of its own</td><td>the whole multipart body, boundaries included</td></tr>
 * <tr><td>{@link #maxFieldSize(int)}</td><td>64 KiB</td><td>a part read into memory: a field of {@link Multipart#form()},
 *     {@link Part#bytes()}, {@link Part#text()}</td></tr>
 * <tr><td>{@link #maxHeaderSize(int)}</td><td>8 KiB</td><td>the header section of one part</td></tr>
 * <tr><td>{@link #maxHeaderCount(int)}</td><td>16</td><td>the header fields of one part</td></tr>
 * </tbody>
 * </table>
 */
public final class MultipartOptions {
    private static final MultipartOptions DEFAULTS = new MultipartOptions(100, Long.MAX_VALUE, Long.MAX_VALUE, 64 * 1024,
            8 * 1024, 16, null);

    private final int maxParts;
    private final long maxPartSize;
    private final long maxRequestSize;
    private final int maxFieldSize;
    private final int maxHeaderSize;
    private final int maxHeaderCount;
    private final Path tempDirectory;

    private MultipartOptions(int maxParts, long maxPartSize, long maxRequestSize, int maxFieldSize, int maxHeaderSize,
                             int maxHeaderCount, Path tempDirectory) {
        this.maxParts = maxParts;
        this.maxPartSize = maxPartSize;
        this.maxRequestSize = maxRequestSize;
        this.maxFieldSize = maxFieldSize;
        this.maxHeaderSize = maxHeaderSize;
        this.maxHeaderCount = maxHeaderCount;
        this.tempDirectory = tempDirectory;
    }

    /** {@return the limits of the table above, files in the JVM's temporary directory} */
    public static MultipartOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The most parts a body may have.
     *
     * @param parts 1 or more
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code parts} is less than 1
     */
    public MultipartOptions maxParts(int parts) {
        return new MultipartOptions(positive("maxParts", parts), maxPartSize, maxRequestSize, maxFieldSize, maxHeaderSize,
                maxHeaderCount, tempDirectory);
    }

    /**
     * The most bytes of content one part may have, a file's included.
     *
     * @param bytes 0 or more ({@link Long#MAX_VALUE} for no limit of its own)
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public MultipartOptions maxPartSize(long bytes) {
        return new MultipartOptions(maxParts, notNegative("maxPartSize", bytes), maxRequestSize, maxFieldSize, maxHeaderSize,
                maxHeaderCount, tempDirectory);
    }

    /**
     * The most bytes the whole multipart body may have, boundaries and headers included.
     *
     * @param bytes 0 or more ({@link Long#MAX_VALUE} for no limit beyond the route's)
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public MultipartOptions maxRequestSize(long bytes) {
        return new MultipartOptions(maxParts, maxPartSize, notNegative("maxRequestSize", bytes), maxFieldSize, maxHeaderSize,
                maxHeaderCount, tempDirectory);
    }

    /**
     * The most bytes of a part held in memory: each field (a part without a {@code filename}) of
     * {@link Multipart#form()}, and what {@link Part#bytes()} and {@link Part#text()} read.
     *
     * @param bytes 0 or more
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public MultipartOptions maxFieldSize(int bytes) {
        return new MultipartOptions(maxParts, maxPartSize, maxRequestSize, (int) notNegative("maxFieldSize", bytes),
                maxHeaderSize, maxHeaderCount, tempDirectory);
    }

    /**
     * The most bytes of one part's header section, its blank line included.
     *
     * @param bytes 64 or more
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code bytes} is less than 64
     */
    public MultipartOptions maxHeaderSize(int bytes) {
        if (bytes < 64) {
            throw new IllegalArgumentException("maxHeaderSize must be at least 64, got " + bytes);
        }
        return new MultipartOptions(maxParts, maxPartSize, maxRequestSize, maxFieldSize, bytes, maxHeaderCount, tempDirectory);
    }

    /**
     * The most header fields one part may have.
     *
     * @param fields 1 or more
     * @return a copy with this limit
     * @throws IllegalArgumentException if {@code fields} is less than 1
     */
    public MultipartOptions maxHeaderCount(int fields) {
        return new MultipartOptions(maxParts, maxPartSize, maxRequestSize, maxFieldSize, maxHeaderSize,
                positive("maxHeaderCount", fields), tempDirectory);
    }

    /**
     * Where {@link Multipart#form()} writes the files it receives (it must exist); they are deleted
     * when the exchange ends.
     *
     * @param directory an existing directory, or null for the JVM's temporary directory
     * @return a copy with this directory
     */
    public MultipartOptions tempDirectory(Path directory) {
        return new MultipartOptions(maxParts, maxPartSize, maxRequestSize, maxFieldSize, maxHeaderSize, maxHeaderCount, directory);
    }

    /** {@return the most parts a body may have} */
    public int maxParts() {
        return maxParts;
    }

    /** {@return the most bytes of content one part may have} */
    public long maxPartSize() {
        return maxPartSize;
    }

    /** {@return the most bytes the multipart body may have} */
    public long maxRequestSize() {
        return maxRequestSize;
    }

    /** {@return the most bytes of a part held in memory} */
    public int maxFieldSize() {
        return maxFieldSize;
    }

    /** {@return the most bytes of one part's header section} */
    public int maxHeaderSize() {
        return maxHeaderSize;
    }

    /** {@return the most header fields of one part} */
    public int maxHeaderCount() {
        return maxHeaderCount;
    }

    /** {@return where files go, or null for the JVM's temporary directory} */
    public Path tempDirectory() {
        return tempDirectory;
    }

    private static int positive(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, got " + value);
        }
        return value;
    }

    private static long notNegative(String what, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must not be negative, got " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return "MultipartOptions[maxParts=" + maxParts + ", maxPartSize=" + maxPartSize + ", maxRequestSize=" + maxRequestSize
                + ", maxFieldSize=" + maxFieldSize + ", maxHeaderSize=" + maxHeaderSize + ", maxHeaderCount=" + maxHeaderCount
                + ", tempDirectory=" + tempDirectory + "]";
    }
}
