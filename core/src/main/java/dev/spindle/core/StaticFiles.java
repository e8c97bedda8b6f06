// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.compress.AcceptEncoding;
import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Serves files from a directory or from the classpath under a route's tail variable, registered
 * with {@link Router.Builder#staticFiles}: {@code .staticFiles("/assets", StaticFiles.directory(Path.of("web")))}
 * answers {@code GET /assets/css/site.css} with {@code web/css/site.css}.
 *
 * <ul>
 *   <li>{@code Content-Type} from the file name's extension (a table of common web types,
 *       {@code application/octet-stream} otherwise); a directory answers with its {@code index.html}.</li>
 *   <li>{@code ETag} (size and modification time) and {@code Last-Modified}; {@code If-None-Match}
 *       and {@code If-Modified-Since} answer 304.</li>
 *   <li>Directory files: one {@code Range} of bytes answers 206 with {@code Content-Range} (a
 *       range past the end 416; several ranges, or an {@code If-Range} that no longer holds, get the
 *       whole file); the body is sent by the core's file path (zero-copy where the strategy allows).</li>
 *   <li>With {@link #precompressed()}, a sibling compressed ahead of time ({@code app.js.zst},
 *       {@code app.js.br}, {@code app.js.gz}) is sent instead of the file when the request accepts
 *       its coding ({@code Accept-Encoding}), with the file's content type, its own {@code ETag} and
 *       {@code Content-Encoding}; every answer then says {@code Vary: Accept-Encoding}. A
 *       {@code Range} request gets ranges of the file itself.</li>
 *   <li>Nothing outside the root: the path is decoded first, then any {@code ..} segment,
 *       backslash or NUL, and any segment starting with a dot (hidden files), is 404, and a file
 *       reached through a symbolic link must still lie inside the root.</li>
 * </ul>
 *
 * <p>Its errors are the router's: a missing file is answered by the router's
 * {@link Router.Builder#notFound notFound} handler when one is set, else it is an
 * {@link HttpException} 404; a range past the end is an {@link HttpException} 416 whose
 * {@code Content-Range} gives the file's size. Both pass the exception mappers like any other.
 */
public final class StaticFiles implements Handler {
    /** The tail variable the route registered by {@link Router.Builder#staticFiles} has. */
    static final String VARIABLE = "path";

    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
            Map.entry("css", "text/css; charset=utf-8"), Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("mjs", "text/javascript; charset=utf-8"), Map.entry("json", "application/json"),
            Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("csv", "text/csv; charset=utf-8"),
            Map.entry("xml", "application/xml"), Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"),
            Map.entry("webp", "image/webp"), Map.entry("avif", "image/avif"), Map.entry("ico", "image/x-icon"),
            Map.entry("woff", "font/woff"), Map.entry("woff2", "font/woff2"), Map.entry("ttf", "font/ttf"),
            Map.entry("wasm", "application/wasm"), Map.entry("pdf", "application/pdf"), Map.entry("zip", "application/zip"),
            Map.entry("gz", "application/gzip"), Map.entry("mp4", "video/mp4"), Map.entry("webm", "video/webm"),
            Map.entry("mp3", "audio/mpeg"), Map.entry("ogg", "audio/ogg"), Map.entry("map", "application/json"));

    /** The codings a sibling may carry, in the server's order of preference, with their file name suffixes. */
    private static final String[] CODINGS = {"zstd", "br", "gzip"};
    private static final String[] SUFFIXES = {".zst", ".br", ".gz"};

    private final Path root;
    private final Path realRoot;
    private final String resourcePrefix;
    private final ClassLoader loader;
    private final boolean precompressed;

    private StaticFiles(Path root, String resourcePrefix, ClassLoader loader, boolean precompressed) throws IOException {
        this.root = root;
        this.realRoot = root == null ? null : root.toRealPath();
        this.resourcePrefix = resourcePrefix;
        this.loader = loader;
        this.precompressed = precompressed;
    }

    /**
     * These files, each sent as its sibling compressed ahead of time when there is one the request
     * accepts: {@code name.zst} (zstd), {@code name.br} (Brotli) or {@code name.gz} (gzip), by the
     * request's q-values, ties in that order. The sibling goes with the file's content type, an
     * {@code ETag} of its own and {@code Content-Encoding}; every answer carries
     * {@code Vary: Accept-Encoding}. Siblings are looked up on every request, like the files.
     *
     * @return a handler that serves precompressed siblings
     */
    public StaticFiles precompressed() {
        try {
            return new StaticFiles(root, resourcePrefix, loader, true);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Files under {@code root}, which must be an existing directory. Files are looked up on every
     * request, so changes on disk show at once.
     *
     * @param root the directory to serve
     * @return a handler serving the files under {@code root}
     * @throws IOException if {@code root} is not a directory or its real path cannot be resolved
     */
    public static StaticFiles directory(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new IOException("not a directory: " + root);
        }
        return new StaticFiles(root, null, null, false);
    }

    /**
     * Resources under {@code prefix} on the classpath of this class's loader ({@code "public"}
     * serves {@code public/app.js} as {@code <route prefix>/app.js}); resources in a jar are sent
     * whole (no ranges).
     *
     * @param prefix the resource directory, such as {@code "public"}; leading and trailing slashes are ignored
     * @return a handler serving the resources under {@code prefix}
     */
    public static StaticFiles classpath(String prefix) {
        int start = 0;
        int end = prefix.length();
        while (start < end && prefix.charAt(start) == '/') {
            start++;
        }
        while (end > start && prefix.charAt(end - 1) == '/') {
            end--;
        }
        String p = prefix.substring(start, end);
        try {
            return new StaticFiles(null, p, StaticFiles.class.getClassLoader(), false);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void handle(Request req, Response res) throws Exception {
        String rest = req.pathParam(VARIABLE);
        if (rest == null) {
            throw new IllegalStateException("StaticFiles serves a route ending in {" + VARIABLE + "...}, not " + req.routePattern());
        }
        List<String> segments = segments(rest);
        if (segments == null) {
            throw new NoSuchFile();
        }
        if (root != null) {
            Path file = root;
            for (String s : segments) {
                file = file.resolve(s);
            }
            serveFile(req, res, file, true);
        } else {
            serveResource(req, res, segments);
        }
    }

    /**
     * This handler, with {@code notFound} answering a missing file in its place; the result has
     * {@code notFound}'s kind (inline, blocking or asynchronous), so that handler runs where it may.
     */
    Handler orElse(Handler notFound) {
        if (notFound instanceof Handler.AsyncHandler a) {
            Handler.Async fallback = a.delegate();
            return Handler.async((req, res) -> {
                int headers = res.headerCount();
                try {
                    handle(req, res);
                    return null;
                } catch (NoSuchFile e) {
                    res.state.resetKeepingHeaders(headers);
                    return fallback.handle(req, res);
                }
            });
        }
        Handler fallback = notFound instanceof Handler.Blocking b ? b.delegate() : notFound;
        Handler served = (req, res) -> {
            int headers = res.headerCount();
            try {
                handle(req, res);
            } catch (NoSuchFile e) {
                res.state.resetKeepingHeaders(headers);
                fallback.handle(req, res);
            }
        };
        return notFound instanceof Handler.Blocking ? Handler.blocking(served) : served;
    }

    /** No file for the path: the router's notFound handler answers it if it has one, else a 404. */
    static final class NoSuchFile extends HttpException {
        private static final long serialVersionUID = 1L;

        NoSuchFile() {
            super(404, "no such file");
        }
    }

    /** A range that starts past the end of the file: 416, with the size in {@code Content-Range} (RFC 9110 15.5.17). */
    static final class RangeNotSatisfiable extends HttpException {
        private static final long serialVersionUID = 1L;
        private final long size;

        RangeNotSatisfiable(long size) {
            super(416, "the file has " + size + " bytes");
            this.size = size;
        }

        @Override
        void addRequiredHeaders(Response response) {
            response.header("Content-Range", "bytes */" + size);
        }
    }

    /** The decoded path's segments, or null when one could leave the root or names a hidden file. */
    static List<String> segments(String path) {
        List<String> out = new ArrayList<>();
        int start = 0;
        while (start <= path.length()) {
            int slash = path.indexOf('/', start);
            int end = slash < 0 ? path.length() : slash;
            String s = path.substring(start, end);
            if (!s.isEmpty()) {
                if (s.charAt(0) == '.' || s.indexOf('\\') >= 0 || s.indexOf('\0') >= 0) {
                    return null;
                }
                out.add(s);
            }
            start = end + 1;
        }
        return out;
    }

    private void serveFile(Request req, Response res, Path file, boolean confined) throws IOException {
        BasicFileAttributes attrs;
        try {
            if (Files.isDirectory(file)) {
                file = file.resolve("index.html");
            }
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
            if (!attrs.isRegularFile() || confined && !file.toRealPath().startsWith(realRoot)) {
                throw new NoSuchFile();
            }
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new NoSuchFile();
        }
        long size = attrs.size();
        long modified = attrs.lastModifiedTime().toMillis();
        String range = req.header("Range");
        if (precompressed) {
            res.header("Vary", "Accept-Encoding");
            if (range == null && sendSibling(req, res, file, confined)) {
                return;
            }
        }
        String etag = validators(res, file.getFileName().toString(), size, modified, "");
        res.header("Accept-Ranges", "bytes");
        if (notModified(req, etag, modified)) {
            res.status(304);
            return;
        }
        if (range != null && ifRangeHolds(req.header("If-Range"), etag, modified)) {
            long[] r = range(range, size);
            if (r == UNSATISFIABLE) {
                throw new RangeNotSatisfiable(size);
            }
            if (r != null) {
                res.status(206).header("Content-Range", "bytes " + r[0] + "-" + r[1] + "/" + size);
                res.file(file, r[0], r[1] - r[0] + 1);
                return;
            }
        }
        res.file(file);
    }

    /**
     * Sends the compressed sibling of {@code file} the request prefers, if one exists (within the
     * root when {@code confined}): its validators, or 304, and its bytes.
     *
     * @return whether a sibling answered
     */
    private boolean sendSibling(Request req, Response res, Path file, boolean confined) throws IOException {
        String name = file.getFileName().toString();
        for (int c : preferred(req)) {
            Path sibling = file.resolveSibling(name + SUFFIXES[c]);
            BasicFileAttributes attrs;
            try {
                attrs = Files.readAttributes(sibling, BasicFileAttributes.class);
                if (!attrs.isRegularFile() || confined && !sibling.toRealPath().startsWith(realRoot)) {
                    continue;
                }
            } catch (IOException | java.nio.file.InvalidPathException e) {
                continue;
            }
            long modified = attrs.lastModifiedTime().toMillis();
            String etag = validators(res, name, attrs.size(), modified, "-" + CODINGS[c]);
            res.header("Content-Encoding", CODINGS[c]);
            if (notModified(req, etag, modified)) {
                res.status(304);
            } else {
                res.file(sibling);
            }
            return true;
        }
        return false;
    }

    /**
     * The indexes of {@link #CODINGS} the request accepts, best first (RFC 9110 12.5.3: q-values,
     * {@code *}, ties in the server's order), leaving out any the client ranks below identity.
     */
    private static int[] preferred(Request req) {
        int star = AcceptEncoding.quality(req.state, "*");
        int identity = AcceptEncoding.quality(req.state, "identity");
        int[] q = new int[CODINGS.length];
        int accepted = 0;
        for (int i = 0; i < CODINGS.length; i++) {
            int v = AcceptEncoding.quality(req.state, CODINGS[i]);
            q[i] = v == AcceptEncoding.ABSENT ? Math.max(star, 0) : v;
            if (q[i] > 0 && q[i] >= identity) {
                accepted++;
            } else {
                q[i] = 0;
            }
        }
        int[] order = new int[accepted];
        for (int n = 0; n < accepted; n++) {
            int best = -1;
            for (int i = 0; i < CODINGS.length; i++) {
                if (q[i] > 0 && (best < 0 || q[i] > q[best])) {
                    best = i;
                }
            }
            order[n] = best;
            q[best] = 0;
        }
        return order;
    }

    private void serveResource(Request req, Response res, List<String> segments) throws IOException {
        String name = resourcePrefix + (segments.isEmpty() ? "" : "/" + String.join("/", segments));
        URL url = loader.getResource(name);
        if (url != null && "file".equals(url.getProtocol())) {
            try {
                serveFile(req, res, Path.of(url.toURI()), false);
                return;
            } catch (URISyntaxException e) {
                throw new NoSuchFile();
            }
        }
        URLConnection connection = url == null ? null : url.openConnection();
        if (connection instanceof JarURLConnection jar && jar.getJarEntry() != null && jar.getJarEntry().isDirectory()) {
            url = loader.getResource(name + "/index.html");
            connection = url == null ? null : url.openConnection();
            name = name + "/index.html";
        }
        if (connection == null) {
            throw new NoSuchFile();
        }
        String suffix = "";
        if (precompressed) {
            res.header("Vary", "Accept-Encoding");
            for (int c : preferred(req)) {
                URL sibling = loader.getResource(name + SUFFIXES[c]);
                if (sibling != null) {
                    connection = sibling.openConnection();
                    suffix = "-" + CODINGS[c];
                    res.header("Content-Encoding", CODINGS[c]);
                    break;
                }
            }
        }
        connection.setUseCaches(false);
        long size = connection.getContentLengthLong();
        long modified = connection.getLastModified();
        String etag = validators(res, name.substring(name.lastIndexOf('/') + 1), size, modified, suffix);
        if (notModified(req, etag, modified)) {
            connection.getInputStream().close();
            res.status(304);
            return;
        }
        res.body(connection.getInputStream(), size);
    }

    /** Sets Content-Type (of {@code fileName}), ETag ({@code suffix} names a coded variant) and Last-Modified; returns the ETag. */
    private static String validators(Response res, String fileName, long size, long modified, String suffix) {
        int dot = fileName.lastIndexOf('.');
        String type = dot < 0 ? null : TYPES.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
        String etag = "\"" + Long.toHexString(size) + "-" + Long.toHexString(modified) + suffix + "\"";
        res.contentType(type != null ? type : "application/octet-stream")
                .header("ETag", etag)
                .header("Last-Modified", HTTP_DATE.format(Instant.ofEpochMilli(modified)));
        return etag;
    }

    /** RFC 9110 13.1.2 and 13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
    private static boolean notModified(Request req, String etag, long modified) {
        List<String> noneMatch = req.headers("If-None-Match");
        if (!noneMatch.isEmpty()) {
            for (String line : noneMatch) {
                for (int from = 0, comma; from <= line.length(); from = comma + 1) {
                    comma = line.indexOf(',', from);
                    if (comma < 0) {
                        comma = line.length();
                    }
                    String t = line.substring(from, comma).strip();
                    if (t.equals("*") || (t.startsWith("W/") ? t.substring(2) : t).equals(etag)) {
                        return true;
                    }
                }
            }
            return false;
        }
        Long since = date(req.header("If-Modified-Since"));
        return since != null && modified / 1000 <= since / 1000;
    }

    /** RFC 9110 13.1.5: a range applies only if If-Range (a strong ETag or the exact date) still holds. */
    private static boolean ifRangeHolds(String ifRange, String etag, long modified) {
        if (ifRange == null) {
            return true;
        }
        String v = ifRange.strip();
        if (v.startsWith("\"")) {
            return v.equals(etag);
        }
        Long date = date(v);
        return date != null && date / 1000 == modified / 1000;
    }

    private static Long date(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.from(HTTP_DATE.parse(value.strip())).toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static final long[] UNSATISFIABLE = new long[0];

    /**
     * One {@code bytes} range of a {@code size}-byte representation as {first, last} (inclusive),
     * {@link #UNSATISFIABLE}, or null to ignore the header (malformed, another unit, several ranges).
     */
    static long[] range(String header, long size) {
        String h = header.strip();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            return null;
        }
        String spec = h.substring(6).strip();
        if (spec.isEmpty() || spec.indexOf(',') >= 0) {
            return null;
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return null;
        }
        try {
            String a = spec.substring(0, dash).strip();
            String b = spec.substring(dash + 1).strip();
            if (a.isEmpty()) {
                if (b.isEmpty() || !digits(b)) {
                    return null;
                }
                long suffix = Long.parseLong(b);
                if (suffix == 0 || size == 0) {
                    return UNSATISFIABLE;
                }
                return new long[] {Math.max(0, size - suffix), size - 1};
            }
            if (!digits(a) || !b.isEmpty() && !digits(b)) {
                return null;
            }
            long first = Long.parseLong(a);
            long last = b.isEmpty() ? Long.MAX_VALUE : Long.parseLong(b);
            if (last < first) {
                return null;
            }
            if (first >= size) {
                return UNSATISFIABLE;
            }
            return new long[] {first, Math.min(last, size - 1)};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static boolean digits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return !s.isEmpty();
    }
}
