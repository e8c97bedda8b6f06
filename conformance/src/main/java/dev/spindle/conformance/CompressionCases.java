// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.h2.Frame;
import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.conformance.h2.Header;
import dev.spindle.core.Compression;
import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Content codings on the wire, over HTTP/1.1 and HTTP/2, against a server of the suite's
 * strategy whose router compresses: the {@code Accept-Encoding} table (q-values, {@code *},
 * identity refused), {@code Vary} on every answer, HEAD's headers equal to GET's, 204, 304 and
 * 206 untouched, every kind of handler and body, a writer's flush reaching the client before its
 * body ends, and real clients ({@code curl --compressed}, the JDK's {@code HttpClient}). Run by
 * {@link HttpConformanceSuite} against every server; tagged, to run alone
 * ({@code -Dtest=<Server>ConformanceTest -Dgroups=compression}).
 */
@org.junit.jupiter.api.Tag("compression")
public abstract class CompressionCases extends SuiteSection {
    /** About 4 KiB of JSON, compressible. */
    static final String JSON = "{\"items\":[" + "{\"id\":12345,\"name\":\"a fairly repetitive item\"},".repeat(90) + "{}]}";
    static final byte[] BYTES = JSON.getBytes(StandardCharsets.UTF_8);

    /** The cases, run against the server of {@code suite}, the suite that runs them. */
    protected CompressionCases(SuiteTarget suite) {
        super(suite);
    }

    /** Request bodies inflated, within 1 MiB. */
    private static final dev.spindle.core.RouteOptions INFLATE =
            dev.spindle.core.RouteOptions.defaults().requestDecompression(true).maxBodySize(1 << 20);

    /** Released by the flush case once it has seen the first event. */
    private volatile CountDownLatch secondEvent = new CountDownLatch(0);

    @Override
    protected Router router() {
        return Router.builder()
                .compression(Compression.defaults())
                .get("/json", (req, res) -> res.jsonText(JSON))
                .get("/small", (req, res) -> res.jsonText("{\"id\":1}"))
                .get("/png", (req, res) -> res.contentType("image/png").body(BYTES))
                .get("/etag", (req, res) -> res.header("ETag", "\"v1\"").jsonText(JSON))
                .get("/nocontent", (req, res) -> res.status(204))
                .get("/notmodified", (req, res) -> res.status(304).header("ETag", "\"v1\"").contentType("application/json"))
                .get("/partial", (req, res) -> res.status(206).header("Content-Range", "bytes 0-99/" + BYTES.length)
                        .contentType("application/json").body(java.util.Arrays.copyOf(BYTES, 100)))
                .get("/stream", (req, res) -> res.contentType("application/json").stream(out -> {
                    for (int i = 0; i < BYTES.length; i += 500) {
                        out.write(BYTES, i, Math.min(500, BYTES.length - i));
                    }
                }))
                .get("/input", (req, res) -> res.contentType("application/json").body(new ByteArrayInputStream(BYTES), BYTES.length))
                .get("/blocking", Handler.blocking((req, res) -> res.jsonText(JSON)))
                .get("/async", Handler.async((req, res) -> CompletableFuture.runAsync(() -> res.jsonText(JSON))))
                .get("/events", (req, res) -> res.contentType("text/event-stream").stream(out -> {
                    out.write("data: first\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    try {
                        if (!secondEvent.await(20, TimeUnit.SECONDS)) {
                            throw new IOException("the client never saw the first event");
                        }
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                    out.write("data: second\n\n".getBytes(StandardCharsets.UTF_8));
                }))
                .get("/event-stream", (req, res) -> res.eventStream(stream -> {
                    stream.send(dev.spindle.core.ServerSentEvent.data("first"));
                    Thread.ofVirtual().start(() -> {
                        try {
                            if (secondEvent.await(20, TimeUnit.SECONDS)) {
                                stream.send(dev.spindle.core.ServerSentEvent.data("second"));
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        stream.close();
                    });
                }))
                .post("/inflate/inline", (req, res) -> res.text(digest(req.bodyBytes())), INFLATE)
                .post("/inflate/blocking", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(digest(in.readAllBytes()));
                    }
                }), INFLATE)
                .post("/inflate/async", Handler.async((req, res) -> req.readBody().thenAccept(b -> res.text(digest(b)))), INFLATE)
                .build();
    }

    private void assumeHttp2() {
        Assumptions.assumeTrue(suite.speaksHttp2(), "the server does not speak HTTP/2");
    }

    static byte[] decode(String coding, byte[] body) throws IOException {
        if (coding == null) {
            return body;
        }
        InputStream in = switch (coding) {
            case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(body));
            case "deflate" -> new InflaterInputStream(new ByteArrayInputStream(body));
            default -> throw new AssertionError("a coding the cases did not offer: " + coding);
        };
        try (in) {
            return in.readAllBytes();
        }
    }

    private Answer http1(String method, String path, String acceptEncoding) throws IOException {
        return fetch(false, method, path, acceptEncoding);
    }

    private Answer fetch(boolean h2, String method, String path, String acceptEncoding) throws IOException {
        Header[] fields = acceptEncoding == null ? new Header[0] : new Header[] {new Header("accept-encoding", acceptEncoding)};
        return Answer.fetch(suite, server().port(), h2, method, path, null, fields);
    }

    /** The body of {@code a} as the identity: decoded by its Content-Encoding. */
    private static byte[] identity(Answer a) throws IOException {
        return decode(a.header("Content-Encoding"), a.body());
    }

    static Stream<Arguments> negotiation() {
        // Accept-Encoding, the status, the coding sent (null: identity)
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            rows.add(Arguments.of(h2, null, 200, null));
            rows.add(Arguments.of(h2, "gzip", 200, "gzip"));
            rows.add(Arguments.of(h2, "deflate", 200, "deflate"));
            rows.add(Arguments.of(h2, "gzip, deflate, br, zstd", 200, "gzip"));
            rows.add(Arguments.of(h2, "br;q=1, deflate;q=0.8, gzip;q=0.5", 200, "deflate"));
            rows.add(Arguments.of(h2, "*", 200, "gzip"));
            rows.add(Arguments.of(h2, "*;q=0.5, gzip;q=0", 200, "deflate"));
            rows.add(Arguments.of(h2, "gzip;q=0", 200, null));
            rows.add(Arguments.of(h2, "br", 200, null));
            rows.add(Arguments.of(h2, "identity", 200, null));
            rows.add(Arguments.of(h2, "gzip;q=0.4, identity;q=0.5", 200, null));
            rows.add(Arguments.of(h2, "gzip, identity;q=0", 200, "gzip"));
            rows.add(Arguments.of(h2, "identity;q=0", 406, null));
            rows.add(Arguments.of(h2, "br, *;q=0", 406, null));
        }
        return rows.stream();
    }

    /** RFC 9110 12.5.3: the coding chosen, row by row, and the body always decodes to the identity's bytes. */
    @ParameterizedTest(name = "h2 {0}, Accept-Encoding: {1} -> {2} {3}")
    @MethodSource("negotiation")
    void theCodingIsNegotiatedFromAcceptEncoding(boolean h2, String accept, int status, String coding) throws IOException {
        if (h2) {
            assumeHttp2();
        }
        Answer a = fetch(h2, "GET", "/json", accept);
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.header("Content-Encoding")).isEqualTo(coding);
        assertThat(a.all("Vary")).as("Vary of a compressing route, compressed or not").contains("Accept-Encoding");
        if (status == 200) {
            assertThat(identity(a)).isEqualTo(BYTES);
            assertThat(a.header("Content-Length")).as("a whole body's length, compressed or not").isEqualTo(Integer.toString(a.body().length));
            if (coding != null) {
                assertThat(a.body().length).as("compressed").isLessThan(BYTES.length / 4);
            }
        }
    }

    static Stream<Arguments> bodies() {
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            for (String path : new String[] {"/json", "/stream", "/input", "/blocking", "/async"}) {
                rows.add(Arguments.of(h2, path));
            }
        }
        return rows.stream();
    }

    /** Whole and streamed bodies, from inline, blocking and asynchronous handlers: gzip that decodes to the identity. */
    @ParameterizedTest(name = "h2 {0}, GET {1}")
    @MethodSource("bodies")
    void everyKindOfBodyIsCompressed(boolean h2, String path) throws IOException {
        if (h2) {
            assumeHttp2();
        }
        Answer a = fetch(h2, "GET", path, "gzip");
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(a.all("Vary")).contains("Accept-Encoding");
        assertThat(identity(a)).isEqualTo(BYTES);
        if (path.equals("/stream") || path.equals("/input")) {
            assertThat(a.header("Content-Length")).as("a streamed body compressed has no length").isNull();
        }
    }

    static Stream<Arguments> untouched() {
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            rows.add(Arguments.of(h2, "/nocontent", 204));
            rows.add(Arguments.of(h2, "/notmodified", 304));
            rows.add(Arguments.of(h2, "/partial", 206));
            rows.add(Arguments.of(h2, "/small", 200));
            rows.add(Arguments.of(h2, "/png", 200));
        }
        return rows.stream();
    }

    /** 204 and 304 have no body to code, a 206 is a range of the identity; small and already-compressed bodies go as they are. */
    @ParameterizedTest(name = "h2 {0}, GET {1} -> {2}, not coded")
    @MethodSource("untouched")
    void answersWithoutACodableBodyAreNotCompressed(boolean h2, String path, int status) throws IOException {
        if (h2) {
            assumeHttp2();
        }
        Answer a = fetch(h2, "GET", path, "gzip, deflate");
        assertThat(a.status()).isEqualTo(status);
        assertThat(a.header("Content-Encoding")).isNull();
        assertThat(a.all("Vary")).contains("Accept-Encoding");
        if (status == 204 || status == 304) {
            assertThat(a.body()).isEmpty();
        }
        if (status == 304) {
            assertThat(a.header("ETag")).as("the validator of the variant a 200 would be").isEqualTo("W/\"v1\"");
        }
    }

    @Test
    void aStrongETagIsWeakOnTheCompressedVariant() throws IOException {
        assertThat(http1("GET", "/etag", "gzip").header("ETag")).isEqualTo("W/\"v1\"");
        assertThat(http1("GET", "/etag", null).header("ETag")).isEqualTo("\"v1\"");
    }

    static Stream<Arguments> heads() {
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            for (String path : new String[] {"/json", "/stream", "/input", "/small"}) {
                for (String accept : new String[] {"gzip", "deflate", null}) {
                    rows.add(Arguments.of(h2, path, accept));
                }
            }
        }
        return rows.stream();
    }

    /** RFC 9110 9.3.2: HEAD has GET's header fields (the compressed length, the same coding and framing), and no body. */
    @ParameterizedTest(name = "h2 {0}, HEAD {1}, Accept-Encoding: {2}")
    @MethodSource("heads")
    void headHasTheHeadersOfGet(boolean h2, String path, String accept) throws IOException {
        if (h2) {
            assumeHttp2();
        }
        Answer get = fetch(h2, "GET", path, accept);
        Answer head = fetch(h2, "HEAD", path, accept);
        assertThat(head.body()).isEmpty();
        assertThat(head.withoutDate()).isEqualTo(get.withoutDate());
    }

    static Stream<Arguments> eventStreams() {
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            rows.add(Arguments.of(h2, "/events"));
            rows.add(Arguments.of(h2, "/event-stream"));
        }
        return rows.stream();
    }

    /**
     * Server-sent events, written by hand to a streamed body or sent through {@code res.eventStream}:
     * the first event, flushed, reaches the client compressed while the body is still open.
     */
    @ParameterizedTest(name = "h2 {0}, GET {1}")
    @MethodSource("eventStreams")
    void aFlushReachesTheClientBeforeTheBodyEnds(boolean h2, String path) throws Exception {
        if (h2) {
            assumeHttp2();
        }
        secondEvent = new CountDownLatch(1);
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        if (h2) {
            try (H2Connection c = suite.openH2(server().port())) {
                c.handshake();
                c.request(1, "GET", path, true, new Header("accept-encoding", "gzip"));
                Frame f;
                do {
                    f = c.nextData(1);
                    gz.writeBytes(f.payload());
                } while (!inflated(gz.toByteArray()).contains("data: first\n\n"));
                secondEvent.countDown();
                while ((f.flags() & Frame.END_STREAM) == 0) {
                    f = c.nextData(1);
                    gz.writeBytes(f.payload());
                }
            }
        } else {
            try (RawConnection c = suite.connect(server().port())) {
                c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
                InputStream in = c.socket().getInputStream();
                ByteArrayOutputStream raw = new ByteArrayOutputStream();
                byte[] buf = new byte[4096];
                while (!inflated(chunkData(raw.toByteArray())).contains("data: first\n\n")) {
                    int n = in.read(buf);
                    assertThat(n).as("the first event arrives before the body ends").isPositive();
                    raw.write(buf, 0, n);
                }
                secondEvent.countDown();
                in.transferTo(raw);
                String head = new String(raw.toByteArray(), StandardCharsets.ISO_8859_1);
                assertThat(head).containsIgnoringCase("content-encoding: gzip").containsIgnoringCase("transfer-encoding: chunked");
                gz.writeBytes(chunkData(raw.toByteArray()));
            }
        }
        assertThat(new String(decode("gzip", gz.toByteArray()), StandardCharsets.UTF_8)).isEqualTo("data: first\n\ndata: second\n\n");
    }

    /** The data of the whole chunks after the head of an HTTP/1.1 response read so far. */
    private static byte[] chunkData(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int i = text.indexOf("\r\n\r\n");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        if (i < 0) {
            return data.toByteArray();
        }
        i += 4;
        while (true) {
            int eol = text.indexOf("\r\n", i);
            if (eol < 0) {
                break;
            }
            int size = Integer.parseInt(text.substring(i, eol).trim(), 16);
            if (size == 0 || eol + 2 + size > raw.length) {
                break;
            }
            data.write(raw, eol + 2, size);
            i = eol + 2 + size + 2;
        }
        return data.toByteArray();
    }

    /** What a gzip stream received so far inflates to, as a client decoding on arrival sees it. */
    private static String inflated(byte[] gz) throws Exception {
        if (gz.length <= 10) {
            return "";
        }
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(gz, 10, gz.length - 10);
            byte[] out = new byte[8192];
            int n = inflater.inflate(out);
            return new String(out, 0, n, StandardCharsets.UTF_8);
        } finally {
            inflater.end();
        }
    }

    private String url(String path) throws IOException {
        return (suite.overTls() ? "https" : "http") + "://127.0.0.1:" + server().port() + path;
    }

    /** curl asks for every coding it has (deflate, gzip, br, zstd) and decodes what it gets: the identity's bytes. */
    @ParameterizedTest(name = "curl --compressed {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"--http1.1", "--http2"})
    void curlCompressedGetsTheIdentityBytes(String version) throws Exception {
        if (version.equals("--http2")) {
            assumeHttp2();
        }
        for (String path : new String[] {"/json", "/stream"}) {
            List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "15", "-k", "--compressed", version,
                    "-D", "-", url(path)));
            if (version.equals("--http2") && !suite.overTls()) {
                command.set(6, "--http2-prior-knowledge");
            }
            Process p = new ProcessBuilder(command).start();
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("curl: %s", err).isZero();
            String text = new String(out, StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            assertThat(text.substring(0, end).toLowerCase(Locale.ROOT)).contains("content-encoding: gzip", "vary: accept-encoding");
            assertThat(text.substring(end + 4)).isEqualTo(JSON);
        }
    }

    /** The JDK client sends what it is given and leaves the body coded: it decodes with GZIPInputStream. */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(HttpClient.Version.class)
    void theJdkClientGetsGzipThatDecodes(HttpClient.Version version) throws Exception {
        if (version == HttpClient.Version.HTTP_2) {
            assumeHttp2();
        }
        HttpClient.Builder builder = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5));
        try (HttpClient client = (suite.overTls() ? builder.sslContext(suite.clientTls()) : builder).build()) {
            for (String path : new String[] {"/json", "/stream", "/blocking"}) {
                HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url(path)))
                        .header("Accept-Encoding", "gzip").timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("content-encoding")).hasValue("gzip");
                assertThat(r.headers().allValues("vary")).contains("Accept-Encoding");
                assertThat(decode("gzip", r.body())).isEqualTo(BYTES);
            }
        }
    }

    static String digest(byte[] body) {
        return body.length + " " + java.util.Arrays.hashCode(body);
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    /** 48 MiB of zeros in about 48 KB (three gzip members): within an h2 stream's first window. */
    private static byte[] bomb;

    private static synchronized byte[] bomb() throws IOException {
        if (bomb == null) {
            byte[] member = gzip(new byte[16 << 20]);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < 3; i++) {
                all.writeBytes(member);
            }
            bomb = all.toByteArray();
        }
        return bomb;
    }

    /** Posts {@code body} with {@code Content-Encoding: coding}. */
    private Answer post(boolean h2, String path, String coding, byte[] body) throws IOException {
        return Answer.fetch(suite, server().port(), h2, "POST", path, body, new Header("content-encoding", coding));
    }

    static Stream<Arguments> inflating() {
        List<Arguments> rows = new ArrayList<>();
        for (boolean h2 : new boolean[] {false, true}) {
            for (String path : new String[] {"/inflate/inline", "/inflate/blocking", "/inflate/async"}) {
                rows.add(Arguments.of(h2, path));
            }
        }
        return rows.stream();
    }

    /** {@code RouteOptions.requestDecompression}: a gzip body reaches inline, blocking and asynchronous handlers inflated. */
    @ParameterizedTest(name = "h2 {0}, POST {1}")
    @MethodSource("inflating")
    void aGzipRequestBodyReachesTheHandlerInflated(boolean h2, String path) throws Exception {
        if (h2) {
            assumeHttp2();
        }
        Answer a = post(h2, path, "gzip", gzip(BYTES));
        assertThat(a.status()).isEqualTo(200);
        assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo(digest(BYTES));
    }

    /** A bomb (48 MiB of zeros in 48 KB) to a route taking 1 MiB: 413, as for a body too large on the wire (HTTP/1.1: and a close). */
    @ParameterizedTest(name = "h2 {0}, POST {1}")
    @MethodSource("inflating")
    void aGzipBombIs413(boolean h2, String path) throws Exception {
        if (h2) {
            assumeHttp2();
        }
        Answer a = post(h2, path, "gzip", bomb());
        assertThat(a.status()).isEqualTo(413);
        if (!h2) {
            assertThat(a.header("Connection")).isEqualTo("close");
        }
    }

    /** A body that is not valid gzip: 400; one in a coding the server does not undo: 415 naming those it does (RFC 9110 15.5.16). */
    @ParameterizedTest(name = "h2 {0}, POST {1}")
    @MethodSource("inflating")
    void aCorruptOrUnsupportedBodyIsRefused(boolean h2, String path) throws Exception {
        if (h2) {
            assumeHttp2();
        }
        byte[] corrupt = gzip(BYTES);
        java.util.Arrays.fill(corrupt, 15, 40, (byte) 0x55);
        assertThat(post(h2, path, "gzip", corrupt).status()).isEqualTo(400);
        Answer unsupported = post(h2, path, "br", gzip(BYTES));
        assertThat(unsupported.status()).isEqualTo(415);
        assertThat(unsupported.header("Accept-Encoding")).isEqualTo("gzip, deflate");
    }
}
