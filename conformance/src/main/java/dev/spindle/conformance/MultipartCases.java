// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Handler;
import dev.spindle.core.MultipartForm;
import dev.spindle.core.MultipartOptions;
import dev.spindle.core.Part;
import dev.spindle.core.Request;
import dev.spindle.core.Router;
import dev.spindle.core.UploadedFile;
import dev.spindle.core.testing.MultipartBody;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.conformance.h2.H2Response;
import dev.spindle.conformance.h2.Header;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code multipart/form-data} uploads on a real server, over HTTP/1.1 and HTTP/2, to each way a
 * handler reads them: part by part on a blocking handler ({@code Request.multipart()}), as a form
 * with files on disk on a blocking one ({@code Multipart.form()}), without a thread on an
 * asynchronous one ({@code Multipart.readForm()}), and buffered on an inline one. Every route
 * answers the same digest of what it read (each field's value, each file's name, type, size and
 * SHA-256), so one expected answer checks them all: whole uploads, a body split at every byte,
 * malformed bodies (400), a part over its limit (413), and real clients ({@code curl -F}, Python
 * {@code requests}). Run by {@link HttpConformanceSuite} against every server; tagged, to run
 * alone ({@code -Dgroups=multipart}).
 */
@org.junit.jupiter.api.Tag("multipart")
public abstract class MultipartCases extends SuiteSection {
    static final String BOUNDARY = "----spindleConformance7MA4YWxkTrZu0gW";
    static final String TYPE = "multipart/form-data; boundary=" + BOUNDARY;
    /** The most a part of the {@code /mp/small} routes may hold. */
    static final int SMALL_PART = 16 * 1024;
    private static final byte[] NOTES = "first line\r\n--not the boundary\r\n\u00e9t\u00e9\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] PHOTO = new byte[200_000];

    static {
        new Random(38).nextBytes(PHOTO);
    }

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected MultipartCases(SuiteTarget suite) {
        super(suite);
    }

    private Path uploads;

    @Override
    protected Router router() throws IOException {
        uploads = Files.createTempDirectory("spindle-multipart-cases");
        MultipartOptions options = MultipartOptions.defaults().tempDirectory(uploads);
        MultipartOptions small = options.maxPartSize(SMALL_PART);
        return Router.builder()
                .post("/mp/parts", Handler.blocking((req, res) -> res.text(partsDigest(req, options))))
                .post("/mp/form", Handler.blocking((req, res) -> res.text(formDigest(req.multipart(options).form()))))
                .post("/mp/async", Handler.async((req, res) -> req.multipart(options).readForm()
                        .thenAccept(form -> res.text(formDigest(form)))))
                .post("/mp/inline", (req, res) -> res.text(formDigest(req.multipart(options).form())))
                .post("/mp/small/form", Handler.blocking((req, res) -> res.text(formDigest(req.multipart(small).form()))))
                .post("/mp/small/async", Handler.async((req, res) -> req.multipart(small).readForm()
                        .thenAccept(form -> res.text(formDigest(form)))))
                .build();
    }

    @AfterAll
    void deleteTheUploads() throws IOException {
        if (uploads != null) {
            try (Stream<Path> left = Files.list(uploads)) {
                for (Path p : left.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(uploads);
        }
    }

    // --- what the routes answer ------------------------------------------------------------------

    private static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String fileLine(String name, String filename, String type, long size, String sha) {
        return "file " + name + " " + filename + " " + type + " " + size + " " + sha + "\n";
    }

    /** The parts read one by one as streams, the files digested as they pass. */
    private static String partsDigest(Request req, MultipartOptions options) throws IOException {
        StringBuilder fields = new StringBuilder();
        StringBuilder files = new StringBuilder();
        for (Part part : req.multipart(options)) {
            if (part.isFile()) {
                MessageDigest sha = digest();
                long size;
                try (InputStream in = new DigestInputStream(part.stream(), sha)) {
                    size = in.transferTo(java.io.OutputStream.nullOutputStream());
                }
                files.append(fileLine(part.name(), part.filename(), part.contentType(), size, HexFormat.of().formatHex(sha.digest())));
            } else {
                fields.append("field ").append(part.name()).append('=').append(part.text()).append('\n');
            }
        }
        return fields.append(files).toString();
    }

    private static String formDigest(MultipartForm form) {
        StringBuilder out = new StringBuilder();
        for (String name : form.names()) {
            for (String value : form.values(name)) {
                out.append("field ").append(name).append('=').append(value).append('\n');
            }
        }
        for (UploadedFile f : form.files()) {
            try {
                out.append(fileLine(f.name(), f.filename(), f.contentType(), f.size(), sha256(Files.readAllBytes(f.path()))));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.toString();
    }

    // --- bodies ----------------------------------------------------------------------------------

    /** A multipart body with the cases' boundary, built part by part. */
    static MultipartBody body() {
        return new MultipartBody(BOUNDARY);
    }

    /** Two fields and two files, one of them spanning many reads, frames and chunks. */
    static byte[] upload() {
        return body().field("title", "Caf\u00e9 \u20ac").field("note", "two\r\nlines")
                .file("notes", "notes.txt", "text/plain", NOTES)
                .file("photo", "C:\\Users\\ada\\photo.jpg", "image/jpeg", PHOTO).end();
    }

    static String uploadAnswer() {
        return "field title=Caf\u00e9 \u20ac\nfield note=two\r\nlines\n"
                + fileLine("notes", "notes.txt", "text/plain", NOTES.length, sha256(NOTES))
                + fileLine("photo", "photo.jpg", "image/jpeg", PHOTO.length, sha256(PHOTO));
    }

    /** The content of {@link #small()}'s file: the delimiter's bytes, never the delimiter. */
    private static final byte[] TRICKY = ("\r\n--\r\n\r\r\n--" + BOUNDARY.substring(0, 12) + "\r").getBytes(StandardCharsets.US_ASCII);

    /** A small body of two fields and a file: split at each of its bytes. */
    static byte[] small() {
        return body().field("a", "1").field("b", "--" + BOUNDARY.substring(0, 10))
                .file("f", "f.bin", "application/octet-stream", TRICKY).end();
    }

    static String smallAnswer() {
        return "field a=1\nfield b=--" + BOUNDARY.substring(0, 10) + "\n"
                + fileLine("f", "f.bin", "application/octet-stream", TRICKY.length, sha256(TRICKY));
    }

    static byte[] head(String target, String contentType, long length) {
        return ("POST " + target + " HTTP/1.1\r\nHost: t\r\nContent-Type: " + contentType + "\r\n"
                + (length < 0 ? "Transfer-Encoding: chunked" : "Content-Length: " + length) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] chunked(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += 7000) {
            int n = Math.min(7000, body.length - at);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private RawResponse http1(String target, String contentType, byte[] body, boolean chunked) throws IOException {
        try (RawConnection c = suite.connect(server().port())) {
            c.send(concat(head(target, contentType, chunked ? -1 : body.length), chunked ? chunked(body) : body));
            return c.read();
        }
    }

    private H2Response http2(String target, String contentType, byte[] body) throws IOException {
        try (H2Connection c = suite.openH2(server().port())) {
            c.handshake();
            c.request(1, "POST", target, false, new Header("content-type", contentType));
            c.body(1, body, true);
            return c.response(1);
        }
    }

    // --- the cases -------------------------------------------------------------------------------

    static Stream<Arguments> routesAndFramings() {
        return Stream.of("/mp/parts", "/mp/form", "/mp/async", "/mp/inline")
                .flatMap(r -> Stream.of(Arguments.of(r, false), Arguments.of(r, true)));
    }

    /** Two fields and two files, announced or chunked: every route answers the digests of what was sent. */
    @ParameterizedTest(name = "{0}, chunked {1}")
    @MethodSource("routesAndFramings")
    void anUploadWithFieldsAndTwoFilesIsReadWhole(String route, boolean chunked) throws Exception {
        RawResponse r = http1(route, TYPE, upload(), chunked);
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo(uploadAnswer());
        awaitNoUploadLeft();
    }

    @ParameterizedTest(name = "h2 {0}")
    @ValueSource(strings = {"/mp/parts", "/mp/form", "/mp/async", "/mp/inline"})
    void anUploadWithFieldsAndTwoFilesIsReadWholeOverHttp2(String route) throws Exception {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        H2Response r = http2(route, TYPE, upload());
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo(uploadAnswer());
        awaitNoUploadLeft();
    }

    /** The same body split in two at each of its bytes, each half its own write: the same answer every time. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/mp/parts", "/mp/async"})
    void aBodySplitAtEveryByteGivesTheSameAnswer(String route) throws Exception {
        byte[] body = small();
        byte[] head = head(route, TYPE, body.length);
        RawConnection c = null;
        try {
            for (int cut = 0; cut <= body.length; cut++) {
                if (c == null) {
                    c = suite.connect(server().port());
                }
                c.send(concat(head, Arrays.copyOf(body, cut)));
                c.send(Arrays.copyOfRange(body, cut, body.length));
                RawResponse r = c.read();
                assertThat(r.bodyText()).as("split at %d", cut).isEqualTo(smallAnswer());
                if (!suite.keepsConnectionsOpen()) {
                    c.close();
                    c = null;
                }
            }
        } finally {
            if (c != null) {
                c.close();
            }
        }
    }

    /** Over HTTP/2, each split point a stream of its own whose body comes in two DATA frames. */
    @ParameterizedTest(name = "h2 {0}")
    @ValueSource(strings = {"/mp/parts", "/mp/async"})
    void aBodySplitAtEveryByteAcrossDataFramesGivesTheSameAnswer(String route) throws Exception {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        byte[] body = small();
        try (H2Connection c = suite.openH2(server().port())) {
            c.handshake();
            for (int cut = 0; cut <= body.length; cut++) {
                int stream = 2 * cut + 1;
                c.request(stream, "POST", route, false, new Header("content-type", TYPE));
                c.body(stream, Arrays.copyOf(body, cut), false);
                c.body(stream, Arrays.copyOfRange(body, cut, body.length), true);
                assertThat(c.response(stream).bodyText()).as("split at %d", cut).isEqualTo(smallAnswer());
            }
        }
    }

    /** A name, a content type, a body, and the text its 400 carries. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("no closing boundary", TYPE, body().field("a", "1").file("f", "f.bin", "x/y", PHOTO).unfinished(),
                        "the multipart body ends before its closing boundary"),
                Arguments.of("a header line without a colon", TYPE,
                        body().field("a", "1").part("Content-Disposition form-data\r\n", new byte[4]).end(),
                        "a part's header field name is not a token"),
                Arguments.of("no Content-Disposition", TYPE, body().part("Content-Type: text/plain\r\n", new byte[4]).end(),
                        "a part without Content-Disposition"),
                Arguments.of("no boundary parameter", "multipart/form-data", small(), "multipart/form-data without a boundary parameter"));
    }

    static Stream<Arguments> malformedOnEachRoute() {
        return malformed().flatMap(a -> Stream.of("/mp/parts", "/mp/form", "/mp/async").map(route -> {
            Object[] row = a.get();
            return Arguments.of(route, row[0], row[1], row[2], row[3]);
        }));
    }

    @ParameterizedTest(name = "{0}: {1} -> 400")
    @MethodSource("malformedOnEachRoute")
    void aMalformedBodyIs400(String route, String name, String type, byte[] body, String why) throws Exception {
        RawResponse r = http1(route, type, body, false);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).isEqualTo("400 Bad Request: " + why + "\n");
        awaitNoUploadLeft();
    }

    @ParameterizedTest(name = "h2 {0}: {1} -> 400")
    @MethodSource("malformedOnEachRoute")
    void aMalformedBodyIs400OverHttp2(String route, String name, String type, byte[] body, String why) throws Exception {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
        H2Response r = http2(route, type, body);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).isEqualTo("400 Bad Request: " + why + "\n");
        awaitNoUploadLeft();
    }

    /** A file over the route's part limit: 413 naming the part, the file written so far deleted. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/mp/small/form", "/mp/small/async"})
    void aPartOverItsLimitIs413(String route) throws Exception {
        byte[] body = body().field("a", "1").file("big", "big.bin", "x/y", Arrays.copyOf(PHOTO, 40_000)).end();
        for (boolean h2 : new boolean[] {false, true}) {
            if (h2 && !suite.speaksHttp2()) {
                continue;
            }
            int status;
            String text;
            if (h2) {
                H2Response r = http2(route, TYPE, body);
                status = r.status();
                text = r.bodyText();
            } else {
                RawResponse r = http1(route, TYPE, body, false);
                status = r.status();
                text = r.bodyText();
            }
            assertThat(status).as("h2 %s", h2).isEqualTo(413);
            assertThat(text).isEqualTo("413 Content Too Large: part 'big' is larger than " + SMALL_PART + " bytes\n");
            awaitNoUploadLeft();
        }
    }

    // --- real clients ----------------------------------------------------------------------------

    private String url(String path) throws IOException {
        return (suite.overTls() ? "https" : "http") + "://" + suite.host() + ":" + server().port() + path;
    }

    /**
     * The two files of {@link #upload()} on disk for clients that upload files, and its two fields'
     * values (given to curl as files, so no command line carries text outside ASCII).
     */
    private Path[] clientFiles() throws IOException {
        Path dir = Files.createTempDirectory("spindle-multipart-client");
        return new Path[] {Files.write(dir.resolve("notes.txt"), NOTES), Files.write(dir.resolve("photo.jpg"), PHOTO),
            Files.writeString(dir.resolve("title"), "Caf\u00e9 \u20ac"), Files.writeString(dir.resolve("note"), "two\r\nlines")};
    }

    /** {@code curl -F}: fields and files as curl encodes them, over HTTP/1.1 and HTTP/2. */
    @Test
    void curlUploadsAForm() throws Exception {
        Path[] files = clientFiles();
        List<String> versions = new ArrayList<>(List.of("--http1.1"));
        if (suite.speaksHttp2()) {
            versions.add(suite.overTls() ? "--http2" : "--http2-prior-knowledge");
        }
        for (String version : versions) {
            for (String route : List.of("/mp/form", "/mp/async")) {
                String out = run("curl", "-sS", "-k", "--max-time", "30", version, "-w", "%{http_version} %{http_code}",
                        "-F", "title=<" + files[2], "-F", "note=<" + files[3],
                        "-F", "notes=@" + files[0] + ";type=text/plain",
                        "-F", "photo=@" + files[1] + ";type=image/jpeg", url(route));
                assertThat(out).as("curl %s %s", version, route)
                        .isEqualTo(uploadAnswer() + (version.equals("--http1.1") ? "1.1" : "2") + " 200");
            }
        }
        awaitNoUploadLeft();
    }

    /**
     * The JDK's {@code HttpClient} posting a hand-built body (it has no multipart builder): HTTP/1.1,
     * and h2 by ALPN over TLS (on a plain port a request with a body is not upgraded to h2c).
     */
    @Test
    void theJdkHttpClientUploadsAForm() throws Exception {
        List<java.net.http.HttpClient.Version> versions = new ArrayList<>(List.of(java.net.http.HttpClient.Version.HTTP_1_1));
        if (suite.overTls() && suite.speaksHttp2()) {
            versions.add(java.net.http.HttpClient.Version.HTTP_2);
        }
        for (java.net.http.HttpClient.Version version : versions) {
            java.net.http.HttpClient.Builder builder = java.net.http.HttpClient.newBuilder().version(version)
                    .connectTimeout(java.time.Duration.ofSeconds(5));
            try (java.net.http.HttpClient client = (suite.overTls() ? builder.sslContext(suite.clientTls()) : builder).build()) {
                for (String route : List.of("/mp/parts", "/mp/async")) {
                    java.net.http.HttpResponse<String> r = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url(route)))
                            .header("Content-Type", TYPE).POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(upload())).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    assertThat(r.version()).isEqualTo(version);
                    assertThat(r.body()).as("%s %s", version, route).isEqualTo(uploadAnswer());
                }
            }
        }
        awaitNoUploadLeft();
    }

    /** Python's {@code requests} (Debian's python3-requests, which scripts/test.sh installs), over HTTP/1.1. */
    @Test
    void pythonRequestsUploadsAForm() throws Exception {
        Path[] files = clientFiles();
        String script = String.join("\n",
                "import sys, warnings",
                "warnings.filterwarnings('ignore')",
                "import requests",
                "with open(sys.argv[2], 'rb') as notes, open(sys.argv[3], 'rb') as photo:",
                "    r = requests.post(sys.argv[1], verify=False, timeout=30,",
                "        data={'title': 'Caf\\u00e9 \\u20ac', 'note': 'two\\r\\nlines'},",
                "        files={'notes': ('notes.txt', notes, 'text/plain'), 'photo': ('photo.jpg', photo, 'image/jpeg')})",
                "sys.stdout.buffer.write(r.content + b'%d' % r.status_code)");
        for (String route : List.of("/mp/form", "/mp/parts")) {
            String out = run("/usr/bin/python3", "-c", script, url(route), files[0].toString(), files[1].toString());
            assertThat(out).as("requests %s", route).isEqualTo(uploadAnswer() + "200");
        }
        awaitNoUploadLeft();
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new AssertionError(command[0] + " is not installed: scripts/test.sh installs it", e);
        }
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command[0]).isTrue();
        assertThat(p.exitValue()).as("%s exit status; stderr: %s", command[0], err).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    /** The routes' temporary files are deleted once their exchanges end. */
    private void awaitNoUploadLeft() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try (Stream<Path> left = Files.list(uploads)) {
                List<Path> files = left.toList();
                if (files.isEmpty()) {
                    return;
                }
                assertThat(System.nanoTime()).as("temporary files left: %s", files).isLessThan(deadline);
            }
            Thread.sleep(10);
        }
    }
}
