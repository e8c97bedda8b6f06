// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Response compression on a sans-I/O HTTP/1.1 connection: the compress / do-not-compress table
 * row by row (status, type, size, the handler's own coding, HEAD), every kind of body, a writer's
 * flush reaching the client before its body ends, and the ETag of the compressed variant.
 */
@Timeout(30)
class CompressionTest {
    static final String JSON = "{\"items\":[" + "{\"id\":12345,\"name\":\"a fairly repetitive item name\"},".repeat(60) + "{}]}";
    static final byte[] BYTES = JSON.getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path dir;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    static Router routes() throws IOException {
        Path file = Files.write(dir.resolve("items.json"), BYTES);
        return Router.builder()
                .compression(Compression.defaults())
                .get("/json", (req, res) -> res.jsonText(JSON))
                .get("/bytes", (req, res) -> res.contentType("application/json").body(BYTES))
                .get("/buffer", (req, res) -> res.contentType("application/json").body(ByteBuffer.wrap(BYTES)))
                .get("/direct", (req, res) -> res.contentType("application/json")
                        .body(ByteBuffer.allocateDirect(BYTES.length).put(BYTES).flip()))
                .get("/unicode", (req, res) -> res.text("é".repeat(2000)))
                .get("/small", (req, res) -> res.jsonText("{\"id\":1}"))
                .get("/empty", (req, res) -> res.contentType("text/plain").body(new byte[0]))
                .get("/png", (req, res) -> res.contentType("image/png").body(BYTES))
                .get("/untyped", (req, res) -> res.body(BYTES))
                .get("/svg", (req, res) -> res.contentType("image/svg+xml").body(BYTES))
                .get("/problem", (req, res) -> res.status(404).contentType("application/problem+json").body(BYTES))
                .get("/nocontent", (req, res) -> res.status(204))
                .get("/notmodified", (req, res) -> res.status(304).contentType("application/json").header("ETag", "\"v1\""))
                .get("/partial", (req, res) -> res.status(206).contentType("application/json")
                        .header("Content-Range", "bytes 0-" + (BYTES.length - 1) + "/" + (BYTES.length * 2)).body(BYTES))
                .get("/coded", (req, res) -> res.contentType("application/json").header("Content-Encoding", "br").body(BYTES))
                .get("/etag", (req, res) -> res.jsonText(JSON).header("ETag", "\"abc\""))
                .get("/weak", (req, res) -> res.jsonText(JSON).header("ETag", "W/\"abc\""))
                .get("/varied", (req, res) -> res.jsonText(JSON).header("Vary", "Origin, accept-encoding"))
                .get("/stream", (req, res) -> res.contentType("text/csv").body(new ByteArrayInputStream(BYTES), BYTES.length))
                .get("/stream/small", (req, res) -> res.contentType("text/csv").body(new ByteArrayInputStream(BYTES, 0, 100), 100))
                .get("/stream/unknown", (req, res) -> res.contentType("text/csv").body(new ByteArrayInputStream(BYTES, 0, 100), -1))
                .get("/writer", (req, res) -> res.contentType("text/plain").stream(out -> {
                    for (int i = 0; i < BYTES.length; i += 100) {
                        out.write(BYTES, i, Math.min(100, BYTES.length - i));
                    }
                }))
                .get("/file", (req, res) -> res.contentType("application/json").file(file))
                .get("/file/part", (req, res) -> res.contentType("application/json").file(file, 10, 2000))
                .get("/off", (req, res) -> res.jsonText(JSON), RouteOptions.defaults().compression(Compression.none()))
                .get("/throws", (req, res) -> {
                    throw new HttpException(400, "x".repeat(2000));
                })
                .build();
    }

    private HttpConnection connection(Router router, boolean offload) {
        return new HttpConnection(router, ServerConfig.defaults(), offload ? executor : null, wakeups::release);
    }

    /** Sends {@code request} and writes what the connection hands out (waiting for producers) until it has answered. */
    private RawResponse exchange(HttpConnection c, String request, boolean head) throws InterruptedException {
        feed(c, request);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (c.next().writes() || c.state() != dev.spindle.core.spi.Connection.State.IDLE && !c.state().finished()) {
            assertThat(System.nanoTime()).as("the connection answers").isLessThan(deadline);
            if (c.next().writes()) {
                written.writeBytes(drain(c));
            } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        List<RawResponse> all = parseAll(written.toByteArray(), head ? Set.of(0) : Set.of());
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    private RawResponse get(String target, String acceptEncoding) throws Exception {
        return exchange(connection(routes(), false), request("GET", target, acceptEncoding), false);
    }

    static String request(String method, String target, String acceptEncoding) {
        return method + " " + target + " HTTP/1.1\r\nHost: t\r\n" + (acceptEncoding == null ? "" : "Accept-Encoding: " + acceptEncoding + "\r\n") + "\r\n";
    }

    static byte[] decode(RawResponse r) throws IOException {
        String coding = r.header("Content-Encoding");
        if (coding == null) {
            return r.body();
        }
        InputStream in = switch (coding) {
            case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(r.body()));
            case "deflate" -> new InflaterInputStream(new ByteArrayInputStream(r.body()));
            default -> throw new AssertionError("unexpected coding " + coding);
        };
        try (in) {
            return in.readAllBytes();
        }
    }

    static Stream<Arguments> decisions() {
        // target, Accept-Encoding, status, coding sent (null: none), the identity body's length
        int n = BYTES.length;
        return Stream.of(
                Arguments.of("/json", "gzip", 200, "gzip", n),
                Arguments.of("/json", "deflate", 200, "deflate", n),
                Arguments.of("/json", "br, deflate;q=0.5, gzip;q=0.4", 200, "deflate", n),
                Arguments.of("/json", null, 200, null, n),
                Arguments.of("/json", "identity", 200, null, n),
                Arguments.of("/json", "gzip;q=0", 200, null, n),
                Arguments.of("/json", "identity;q=0", 406, null, -1),
                Arguments.of("/bytes", "gzip", 200, "gzip", n),
                Arguments.of("/buffer", "gzip", 200, "gzip", n),
                Arguments.of("/direct", "gzip", 200, "gzip", n),
                Arguments.of("/unicode", "gzip", 200, "gzip", 4000),
                Arguments.of("/small", "gzip", 200, null, 8),
                Arguments.of("/small", "gzip, identity;q=0", 200, "gzip", 8),
                Arguments.of("/empty", "gzip", 200, null, 0),
                Arguments.of("/png", "gzip", 200, null, n),
                Arguments.of("/untyped", "gzip", 200, null, n),
                Arguments.of("/svg", "gzip", 200, "gzip", n),
                Arguments.of("/problem", "gzip", 404, "gzip", n),
                Arguments.of("/nocontent", "gzip", 204, null, 0),
                Arguments.of("/notmodified", "gzip", 304, null, 0),
                Arguments.of("/partial", "gzip", 206, null, n),
                Arguments.of("/coded", "gzip", 200, "br", n),
                Arguments.of("/stream", "gzip", 200, "gzip", n),
                Arguments.of("/stream/small", "gzip", 200, null, 100),
                Arguments.of("/stream/unknown", "gzip", 200, "gzip", 100),
                Arguments.of("/writer", "gzip", 200, "gzip", n),
                Arguments.of("/writer", "deflate", 200, "deflate", n),
                Arguments.of("/file", "gzip", 200, "gzip", n),
                Arguments.of("/file/part", "gzip", 200, "gzip", 2000),
                Arguments.of("/off", "gzip", 200, null, n),
                Arguments.of("/throws", "gzip", 400, "gzip", -1));
    }

    @ParameterizedTest(name = "GET {0}, Accept-Encoding {1} -> {2} {3}")
    @MethodSource("decisions")
    void compressesWhereTheTableSays(String target, String accept, int status, String coding, int length) throws Exception {
        for (boolean offload : new boolean[] {false, true}) {
            RawResponse r = exchange(connection(routes(), offload), request("GET", target, accept), false);
            assertThat(r.status()).as("%s, offloaded %s", target, offload).isEqualTo(status);
            assertThat(r.header("Content-Encoding")).as("coding").isEqualTo(coding);
            if (target.equals("/off")) {
                assertThat(r.headers("Vary")).as("a route with compression off varies on nothing").isEmpty();
            } else {
                assertThat(r.headers("Vary")).as("Vary of a compressing route, compressed or not").contains("Accept-Encoding");
            }
            if (length >= 0 && coding != null && !coding.equals("br")) {
                byte[] identity = decode(r);
                assertThat(identity).hasSize(length);
                if (length == BYTES.length) {
                    assertThat(identity).isEqualTo(BYTES);
                }
                if (length > 1000) {
                    assertThat(r.body().length).as("compressed").isLessThan(length / 3);
                }
            } else if (length >= 0 && status != 204 && status != 304) {
                assertThat(r.body()).hasSize(length);
            }
            boolean streamed = target.startsWith("/stream") || target.startsWith("/writer") || target.startsWith("/file");
            if (coding != null && streamed) {
                assertThat(r.header("Transfer-Encoding")).as("a streamed body compressed has no length").isEqualTo("chunked");
                assertThat(r.header("Content-Length")).isNull();
            } else if (status != 204 && status != 304) {
                assertThat(r.header("Content-Length")).isEqualTo(Integer.toString(r.body().length));
            }
        }
    }

    @Test
    void varyIsNotRepeated() throws Exception {
        RawResponse r = get("/varied", "gzip");
        assertThat(r.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(r.headers("Vary")).containsExactly("Origin, accept-encoding");
    }

    @Test
    void aStrongETagBecomesWeakOnTheCompressedVariant() throws Exception {
        assertThat(get("/etag", "gzip").header("ETag")).isEqualTo("W/\"abc\"");
        assertThat(get("/etag", "identity").header("ETag")).isEqualTo("\"abc\"");
        assertThat(get("/weak", "gzip").header("ETag")).isEqualTo("W/\"abc\"");
        assertThat(get("/notmodified", "gzip").header("ETag")).as("a 304 carries the variant's validator").isEqualTo("W/\"v1\"");
        assertThat(get("/notmodified", null).header("ETag")).isEqualTo("\"v1\"");
    }

    static Stream<String> headTargets() {
        return Stream.of("/json", "/bytes", "/small", "/stream", "/writer", "/file", "/png");
    }

    /** RFC 9110 9.3.2: HEAD gets GET's header fields (the compressed length, or the same framing), and no body. */
    @ParameterizedTest(name = "HEAD {0}")
    @MethodSource("headTargets")
    void headHasTheHeadersOfGet(String target) throws Exception {
        for (String accept : new String[] {"gzip", null}) {
            RawResponse get = exchange(connection(routes(), false), request("GET", target, accept), false);
            RawResponse head = exchange(connection(routes(), false), request("HEAD", target, accept), true);
            assertThat(head.body()).isEmpty();
            assertThat(head.withoutDate()).as("HEAD %s, %s", target, accept).isEqualTo(
                    new RawResponse(get.status(), get.reason(), get.headers(), new byte[0]).withoutDate());
        }
    }

    /** Server-sent events: each flush of the writer reaches the client as a piece it can decode, before the body ends. */
    @Test
    void aWritersFlushReachesTheClientBeforeTheBodyEnds() throws Exception {
        SynchronousQueue<String> events = new SynchronousQueue<>();
        Router router = Router.builder()
                .compression(Compression.defaults())
                .get("/events", (req, res) -> res.contentType("text/event-stream").stream(out -> {
                    try {
                        for (String e = events.take(); !e.isEmpty(); e = events.take()) {
                            out.write(("data: " + e + "\n\n").getBytes(StandardCharsets.UTF_8));
                            out.flush();
                        }
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                }))
                .build();
        HttpConnection c = connection(router, true);
        feed(c, request("GET", "/events", "gzip"));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (String event : new String[] {"one", "two", "three"}) {
            assertThat(events.offer(event, 5, TimeUnit.SECONDS)).isTrue();
            String seen = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!seen.contains("data: " + event + "\n\n")) {
                assertThat(System.nanoTime()).as("event %s arrives while the body is open", event).isLessThan(deadline);
                if (c.next().writes()) {
                    wire.writeBytes(drain(c));
                    seen = inflatedSoFar(wire.toByteArray());
                } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    c.resume();
                }
            }
        }
        events.put("");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.state() != dev.spindle.core.spi.Connection.State.IDLE || c.next().writes()) {
            assertThat(System.nanoTime()).as("the body ends").isLessThan(deadline);
            if (c.next().writes()) {
                wire.writeBytes(drain(c));
            } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        RawResponse r = parseAll(wire.toByteArray()).get(0);
        assertThat(r.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(new String(decode(r), StandardCharsets.UTF_8)).isEqualTo("data: one\n\ndata: two\n\ndata: three\n\n");
    }

    /** The chunked body's data so far, inflated as a client would as it arrives (past the 10-byte gzip header). */
    private static String inflatedSoFar(byte[] wire) throws Exception {
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int start = text.indexOf("\r\n\r\n") + 4;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int i = start;
        while (i < wire.length) {
            int eol = text.indexOf("\r\n", i);
            if (eol < 0) {
                break;
            }
            int size = Integer.parseInt(text.substring(i, eol).trim(), 16);
            if (size == 0 || eol + 2 + size > wire.length) {
                break;
            }
            body.write(wire, eol + 2, size);
            i = eol + 2 + size + 2;
        }
        byte[] gz = body.toByteArray();
        if (gz.length <= 10) {
            return "";
        }
        java.util.zip.Inflater inflater = new java.util.zip.Inflater(true);
        inflater.setInput(gz, 10, gz.length - 10);
        byte[] out = new byte[4096];
        int n = inflater.inflate(out);
        inflater.end();
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    @Test
    void keepAliveCarriesOnAfterCompressedAnswers() throws Exception {
        HttpConnection c = connection(routes(), true);
        for (String target : new String[] {"/json", "/writer", "/stream", "/file", "/json"}) {
            RawResponse r = exchange(c, request("GET", target, "gzip"), false);
            assertThat(r.status()).isEqualTo(200);
            assertThat(decode(r)).as(target).isEqualTo(BYTES);
        }
    }

    @Test
    void aRoutesOwnCompressionWinsOverNone() throws Exception {
        Router router = Router.builder()
                .get("/plain", (req, res) -> res.jsonText(JSON))
                .get("/gz", (req, res) -> res.jsonText(JSON), RouteOptions.defaults().compression(Compression.defaults().minSize(0)))
                .build();
        RawResponse plain = exchange(connection(router, false), request("GET", "/plain", "gzip"), false);
        assertThat(plain.header("Content-Encoding")).isNull();
        assertThat(plain.headers("Vary")).isEmpty();
        RawResponse gz = exchange(connection(router, false), request("GET", "/gz", "gzip"), false);
        assertThat(gz.header("Content-Encoding")).isEqualTo("gzip");
        assertThat(decode(gz)).isEqualTo(BYTES);
    }
}
