// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Response compression, opted into for a router ({@link Router.Builder#compression(Compression)})
 * or one route ({@link RouteOptions#compression(Compression)}). One implementation in the core
 * serves HTTP/1.1 and HTTP/2 on every server:
 * <ul>
 *   <li>the coding is negotiated from {@code Accept-Encoding} (RFC 9110 12.5.3): q-values,
 *       {@code *}, {@code q=0} exclusions, ties broken by the order of {@link #encodings()};
 *       {@code identity;q=0} (or {@code *;q=0}) with no acceptable coding is a 406;</li>
 *   <li>every response of such a route carries {@code Vary: Accept-Encoding}, compressed or not;</li>
 *   <li>compressed are bodies of an allowed {@link #types() type}, at least {@link #minSize()}
 *       bytes long when their length is known, with no {@code Content-Encoding} of the handler's,
 *       and never 204, 206 or 304 answers;</li>
 *   <li>a whole body is compressed at once and sent with its new {@code Content-Length} (to HEAD
 *       too, so its headers are GET's); a streamed one (a writer, an input stream, a file) is
 *       compressed as it is sent, chunked on HTTP/1.1 and in DATA frames on HTTP/2, and a writer's
 *       {@code flush()} reaches the client at once (a sync flush), so server-sent events are not
 *       held back;</li>
 *   <li>a strong {@code ETag} becomes weak ({@code W/"..."}) on the compressed variant.</li>
 * </ul>
 * Immutable; each setter-like method returns a changed copy.
 */
public final class Compression {
    /** The media types {@link #defaults()} compresses; see {@link #types(String...)} for the forms. */
    public static final List<String> DEFAULT_TYPES = List.of("text/*", "application/json", "+json", "+xml",
            "application/xml", "application/javascript", "application/x-javascript", "application/ecmascript",
            "application/x-ndjson", "application/wasm", "image/svg+xml", "image/x-icon", "image/bmp",
            "font/ttf", "font/otf", "application/vnd.ms-fontobject");
    /** Already compressed: never compressed again, whatever the allowed types say. */
    private static final List<String> COMPRESSED = List.of("image/png", "image/jpeg", "image/gif", "image/webp",
            "image/avif", "image/heic", "image/heif", "image/jxl", "video/*", "audio/*", "font/woff", "font/woff2",
            "application/zip", "application/gzip", "application/x-gzip", "application/zstd", "application/x-bzip2",
            "application/x-xz", "application/x-7z-compressed", "application/vnd.rar", "application/x-rar-compressed");
    private static final Compression DEFAULTS =
            new Compression(List.of(ContentEncoding.gzip(), ContentEncoding.deflate()), 1024, DEFAULT_TYPES);
    private static final Compression NONE = new Compression(List.of(), 1024, DEFAULT_TYPES);

    private final List<ContentEncoding> encodings;
    private final int minSize;
    private final List<String> types;
    /** {@link #compresses} of the two types the API names, decided once. */
    private final boolean json;
    private final boolean text;

    private Compression(List<ContentEncoding> encodings, int minSize, List<String> types) {
        this.encodings = encodings;
        this.minSize = minSize;
        this.types = types;
        this.json = decide(Response.APPLICATION_JSON);
        this.text = decide(Response.TEXT_PLAIN);
    }

    /**
     * gzip then deflate, bodies of 1 KiB or more, the {@link #DEFAULT_TYPES}: text, JSON, XML,
     * JavaScript, SVG, WebAssembly, uncompressed fonts.
     *
     * @return the default compression
     */
    public static Compression defaults() {
        return DEFAULTS;
    }

    /**
     * No compression: given to a route ({@link RouteOptions#compression(Compression)}) it turns off
     * its router's, and its answers carry no {@code Vary} of compression's.
     *
     * @return the compression that compresses nothing
     */
    public static Compression none() {
        return NONE;
    }

    /**
     * The codings to offer, in the server's order of preference (the first wins a tie of
     * q-values), replacing the current ones; e.g. {@code encodings(ZstdEncoding.create(),
     * ContentEncoding.gzip())} with the {@code spindle-compression-zstd} module.
     *
     * @param inPreferenceOrder one or more encodings, distinct names
     * @return a copy with these encodings
     * @throws IllegalArgumentException if none is given, or a name is repeated or not a token
     */
    public Compression encodings(ContentEncoding... inPreferenceOrder) {
        if (inPreferenceOrder.length == 0) {
            throw new IllegalArgumentException("at least one encoding; Compression.none() compresses nothing");
        }
        List<ContentEncoding> list = new ArrayList<>();
        for (ContentEncoding e : inPreferenceOrder) {
            String name = Objects.requireNonNull(e, "encoding").name();
            if (name == null || name.isEmpty() || !isLowerToken(name) || name.equals("identity")) {
                throw new IllegalArgumentException("an encoding's name is a lower-case token other than identity, got " + name);
            }
            for (ContentEncoding other : list) {
                if (other.name().equals(name)) {
                    throw new IllegalArgumentException("encoding " + name + " given twice");
                }
            }
            list.add(e);
        }
        return new Compression(List.copyOf(list), minSize, types);
    }

    /**
     * The smallest body compressed, when its length is known (a whole body, or a streamed one with
     * a length); smaller ones gain too little to pay for the coding. Bodies of unknown length are
     * always compressed.
     *
     * @param bytes 0 or more (default 1024)
     * @return a copy with this minimum
     * @throws IllegalArgumentException if {@code bytes} is negative
     */
    public Compression minSize(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("minSize must not be negative, got " + bytes);
        }
        return new Compression(encodings, bytes, types);
    }

    /**
     * The media types to compress, replacing the current list. Each is a type and subtype
     * ({@code application/json}), a type with any subtype ({@code text/*}), or a structured-syntax
     * suffix ({@code +json} for any {@code .../...+json}); matched in any case against the media
     * type of {@code Content-Type}, its parameters ignored. A body without a {@code Content-Type} is
     * not compressed. Already-compressed types (images other than SVG, ICO and BMP, audio, video,
     * WOFF fonts, archives) never are, even if a pattern matches them.
     *
     * @param patterns the types to compress
     * @return a copy with these types
     * @throws IllegalArgumentException if a pattern is not one of those forms
     */
    public Compression types(String... patterns) {
        List<String> list = new ArrayList<>();
        for (String p : patterns) {
            String t = Objects.requireNonNull(p, "pattern").strip().toLowerCase(Locale.ROOT);
            int slash = t.indexOf('/');
            boolean suffix = t.length() > 1 && t.charAt(0) == '+' && slash < 0;
            boolean typed = slash > 0 && slash < t.length() - 1 && t.indexOf('/', slash + 1) < 0
                    && (t.indexOf('*') < 0 || t.indexOf('*') == slash + 1 && t.length() == slash + 2);
            if (!suffix && !typed) {
                throw new IllegalArgumentException("a type pattern is type/subtype, type/* or +suffix, got " + p);
            }
            list.add(t);
        }
        return new Compression(encodings, minSize, List.copyOf(list));
    }

    /**
     * The codings offered, in the server's order of preference.
     *
     * @return an unmodifiable list; empty for {@link #none()}
     */
    public List<ContentEncoding> encodings() {
        return encodings;
    }

    /**
     * The smallest body of known length that is compressed.
     *
     * @return the minimum in bytes
     */
    public int minSize() {
        return minSize;
    }

    /**
     * The type patterns compressed.
     *
     * @return an unmodifiable list of patterns, lower case
     */
    public List<String> types() {
        return types;
    }

    /**
     * Whether a body of this content type is compressed (its length and the request permitting).
     *
     * @param contentType a {@code Content-Type} value, parameters allowed; null for none
     * @return true when its media type matches {@link #types()} and is not an already-compressed type
     */
    public boolean compresses(String contentType) {
        if (contentType == Response.APPLICATION_JSON) {
            return json;
        }
        if (contentType == Response.TEXT_PLAIN) {
            return text;
        }
        return contentType != null && decide(contentType);
    }

    private boolean decide(String contentType) {
        int end = contentType.indexOf(';');
        if (end < 0) {
            end = contentType.length();
        }
        int start = 0;
        while (start < end && contentType.charAt(start) == ' ') {
            start++;
        }
        while (end > start && (contentType.charAt(end - 1) == ' ' || contentType.charAt(end - 1) == '\t')) {
            end--;
        }
        return !matchesAny(COMPRESSED, contentType, start, end) && matchesAny(types, contentType, start, end);
    }

    private static boolean matchesAny(List<String> patterns, String type, int start, int end) {
        int slash = type.indexOf('/', start);
        if (slash < 0 || slash >= end) {
            return false;
        }
        for (int i = 0, n = patterns.size(); i < n; i++) {
            String p = patterns.get(i);
            int len = p.length();
            if (p.charAt(0) == '+') {
                if (end - slash - 1 > len && type.regionMatches(true, end - len, p, 0, len)) {
                    return true;
                }
            } else if (p.charAt(len - 1) == '*') {
                if (slash - start == len - 2 && type.regionMatches(true, start, p, 0, len - 1)) {
                    return true;
                }
            } else if (end - start == len && type.regionMatches(true, start, p, 0, len)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLowerToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0x7F || c >= 'A' && c <= 'Z' || !dev.spindle.core.bytes.Ascii.isTchar((byte) c)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        StringBuilder names = new StringBuilder();
        for (ContentEncoding e : encodings) {
            names.append(names.isEmpty() ? "" : ", ").append(e.name());
        }
        return "Compression[encodings=" + names + ", minSize=" + minSize + ", types=" + types + "]";
    }
}
