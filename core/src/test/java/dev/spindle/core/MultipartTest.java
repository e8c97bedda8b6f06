// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.testing.Await;
import dev.spindle.core.testing.MultipartBody;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Multipart bodies as handlers read them, through a sans-I/O connection: part by part and as a
 * form, for inline handlers (a buffered body), blocking ones (streamed, on their own thread) and
 * asynchronous ones (streamed, {@link Multipart#readForm()}), with the limits' answers and the
 * temporary files deleted when the exchange ends.
 */
@org.junit.jupiter.api.Timeout(30)
class MultipartTest {
    private static final String BOUNDARY = "----spindleTestBoundary42";
    private static final byte[] BIG = new byte[300_000];

    static {
        new Random(3).nextBytes(BIG);
    }

    enum Kind { INLINE, BLOCKING, ASYNC }

    @TempDir
    Path temp;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);
    private final List<Path> seenFiles = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** A multipart body with the cases' boundary, built part by part. */
    static MultipartBody body() {
        return new MultipartBody(BOUNDARY);
    }

    static byte[] sample() {
        return body().field("title", "Caf\u00e9 notes").field("tag", "a").field("tag", "b")
                .file("doc", "notes.txt", "text/plain", "hello\r\n--not a boundary\r\n".getBytes(StandardCharsets.US_ASCII))
                .file("blob", "../../x/big.bin", "application/octet-stream", BIG).end();
    }

    static String sha(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b)).substring(0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static String sha(Path file) {
        try {
            return sha(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the form routes answer: the fields, then each file. */
    private String describe(MultipartForm form) {
        StringBuilder out = new StringBuilder();
        for (String name : form.names()) {
            out.append(name).append('=').append(String.join(",", form.values(name))).append('\n');
        }
        for (UploadedFile f : form.files()) {
            assertThat(f.path()).exists().hasParent(temp);
            seenFiles.add(f.path());
            out.append(f.name()).append(':').append(f.filename()).append(':').append(f.contentType()).append(':').append(f.size())
                    .append(':').append(sha(f.path())).append('\n');
        }
        return out.toString();
    }

    private static final String FORM_ANSWER = "title=Caf\u00e9 notes\ntag=a,b\n"
            + "doc:notes.txt:text/plain:25:" + sha("hello\r\n--not a boundary\r\n".getBytes(StandardCharsets.US_ASCII)) + "\n"
            + "blob:big.bin:application/octet-stream:300000:" + sha(BIG) + "\n";

    private Handler formHandler(Kind kind, MultipartOptions options) {
        return switch (kind) {
            case INLINE -> (req, res) -> res.text(describe(req.multipart(options).form()));
            case BLOCKING -> Handler.blocking((req, res) -> res.text(describe(req.multipart(options).form())));
            case ASYNC -> Handler.async((req, res) -> req.multipart(options).readForm().thenAccept(form -> res.text(describe(form))));
        };
    }

    private static String partsAnswer(Request req) throws IOException {
        StringBuilder out = new StringBuilder();
        for (Part part : req.multipart()) {
            byte[] content;
            try (InputStream in = part.stream()) {
                content = in.readAllBytes();
            }
            out.append(part.name()).append(':').append(part.filename()).append(':').append(part.contentType()).append(':')
                    .append(content.length).append(':').append(sha(content)).append('\n');
        }
        return out.toString();
    }

    private Router routes(Kind kind, MultipartOptions options, RouteOptions route) {
        Handler parts = kind == Kind.INLINE ? (req, res) -> res.text(partsAnswer(req))
                : Handler.blocking((req, res) -> res.text(partsAnswer(req)));
        return Router.builder()
                .post("/form", formHandler(kind, options.tempDirectory(temp)), route)
                .post("/parts", parts, route)
                .get("/after", (req, res) -> res.text("after"))
                .build();
    }

    /** Sends {@code body} to {@code target} in 16 KiB pieces and a GET /after behind it: both answers. */
    private List<RawResponse> exchange(Kind kind, Router routes, String target, String contentType, byte[] body) throws Exception {
        HttpConnection c = new HttpConnection(routes, ServerConfig.defaults(), kind == Kind.BLOCKING ? executor : null, wakeups::release);
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("POST " + target + " HTTP/1.1\r\nHost: t\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(body);
        request.writeBytes("GET /after HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        byte[] all = request.toByteArray();
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        int at = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.state().finished() && (at < all.length || c.next().writes() || !c.next().reads())) {
            assertThat(System.nanoTime()).as("the connection settles").isLessThan(deadline);
            if (c.next().writes()) {
                written.writeBytes(drain(c));
            } else if (at < all.length && c.next().reads()) {
                int n = Math.min(16 * 1024, all.length - at);
                ByteBuffer piece = ByteBuffer.wrap(all, at, n);
                c.received(piece);
                at += n - piece.remaining();
            } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        return parseAll(written.toByteArray());
    }

    private static final String TYPE = "multipart/form-data; boundary=" + BOUNDARY;

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aFormHasItsFieldsInMemoryAndItsFilesOnDiskUntilTheExchangeEnds(Kind kind) throws Exception {
        List<RawResponse> answers = exchange(kind, routes(kind, MultipartOptions.defaults(), RouteOptions.defaults()), "/form", TYPE, sample());
        assertThat(answers.get(0).status()).as(answers.get(0).bodyText()).isEqualTo(200);
        assertThat(answers.get(0).bodyText()).isEqualTo(FORM_ANSWER);
        assertThat(answers.get(1).bodyText()).as("the request behind it").isEqualTo("after");
        assertThat(seenFiles).hasSize(2);
        Await.until(() -> seenFiles.stream().noneMatch(Files::exists), "the files deleted at the exchange's end");
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"INLINE", "BLOCKING"})
    void partsAreStreamsInOrder(Kind kind) throws Exception {
        List<RawResponse> answers = exchange(kind, routes(kind, MultipartOptions.defaults(), RouteOptions.defaults()), "/parts", TYPE, sample());
        assertThat(answers.get(0).bodyText()).isEqualTo("title:null:text/plain:11:" + sha("Caf\u00e9 notes".getBytes(StandardCharsets.UTF_8))
                + "\ntag:null:text/plain:1:" + sha(new byte[] {'a'}) + "\ntag:null:text/plain:1:" + sha(new byte[] {'b'})
                + "\ndoc:notes.txt:text/plain:25:" + sha("hello\r\n--not a boundary\r\n".getBytes(StandardCharsets.US_ASCII))
                + "\nblob:big.bin:application/octet-stream:300000:" + sha(BIG) + "\n");
        assertThat(answers.get(1).bodyText()).isEqualTo("after");
    }

    /** A route, options, a content type, a body, and the answer: status and text. */
    static Stream<Arguments> refusals() {
        MultipartOptions d = MultipartOptions.defaults();
        return Stream.of(
                Arguments.of("/form", d, "text/plain", sample(), 415,
                        "415 Unsupported Media Type: expected multipart/form-data, got text/plain\n"),
                Arguments.of("/form", d, "multipart/form-data", sample(), 400,
                        "400 Bad Request: multipart/form-data without a boundary parameter\n"),
                Arguments.of("/form", d, TYPE, body().field("a", "1").file("f", "f.bin", "x/y", BIG).unfinished(), 400,
                        "400 Bad Request: the multipart body ends before its closing boundary\n"),
                Arguments.of("/parts", d, TYPE, body().field("a", "1").part("Content-Type: text/plain\r\n", new byte[3]).end(), 400,
                        "400 Bad Request: a part without Content-Disposition\n"),
                Arguments.of("/form", d.maxParts(4), TYPE, sample(), 413, "413 Content Too Large: the multipart body has more than 4 parts\n"),
                Arguments.of("/form", d.maxFieldSize(5), TYPE, sample(), 413, "413 Content Too Large: field 'title' is larger than 5 bytes\n"),
                Arguments.of("/form", d.maxPartSize(100_000), TYPE, sample(), 413,
                        "413 Content Too Large: part 'blob' is larger than 100000 bytes\n"),
                Arguments.of("/form", d.maxRequestSize(100_000), TYPE, sample(), 413,
                        "413 Content Too Large: the multipart body is larger than 100000 bytes\n"));
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {4}")
    @MethodSource("refusalsOfEachKind")
    void limitsAndMalformedBodiesAreAnsweredWithTheirStatus(Kind kind, String target, MultipartOptions options, String type, byte[] body,
                                                             int status, String answer) throws Exception {
        List<RawResponse> answers = exchange(kind, routes(kind, options, RouteOptions.defaults()), target, type, body);
        assertThat(answers.get(0).status()).isEqualTo(status);
        assertThat(answers.get(0).bodyText()).isEqualTo(answer);
        Await.until(() -> {
            try (Stream<Path> files = Files.list(temp)) {
                return files.findAny().isEmpty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "no temporary file left");
    }

    static Stream<Arguments> refusalsOfEachKind() {
        return refusals().flatMap(a -> Stream.of(Kind.values())
                .filter(k -> k != Kind.ASYNC || a.get()[0].equals("/form"))
                .map(k -> {
                    Object[] row = new Object[a.get().length + 1];
                    row[0] = k;
                    System.arraycopy(a.get(), 0, row, 1, a.get().length);
                    return Arguments.of(row);
                }));
    }

    /** The route's body limit still holds: a multipart body over it is the connection's 413 (streamed) or refused at its head. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void theRoutesBodyLimitStillApplies(Kind kind) throws Exception {
        HttpConnection c = new HttpConnection(routes(kind, MultipartOptions.defaults(), RouteOptions.defaults().maxBodySize(1000)),
                ServerConfig.defaults(), kind == Kind.BLOCKING ? executor : null, wakeups::release);
        byte[] body = sample();
        ConnectionBytes.feed(c, "POST /form HTTP/1.1\r\nHost: t\r\nContent-Type: " + TYPE + "\r\nContent-Length: " + body.length + "\r\n\r\n");
        List<RawResponse> answers = parseAll(drain(c));
        assertThat(answers.get(0).status()).isEqualTo(413);
    }

    @Test
    void aPartsStreamEndsWhenTheNextPartIsAskedFor() throws Exception {
        Router router = Router.builder().post("/skip", (req, res) -> {
            Multipart parts = req.multipart();
            Part first = parts.nextPart();
            int one = first.stream().read();
            Part second = parts.nextPart();
            StringBuilder out = new StringBuilder().append((char) one).append(first.stream().read()).append(second.name());
            out.append(':').append(second.text());
            out.append(':').append(parts.nextPart() == null ? "end" : "more");
            res.text(out.toString());
        }).build();
        byte[] body = body().field("a", "xyz").field("b", "second").end();
        List<RawResponse> answers = exchange(Kind.INLINE, router, "/skip", TYPE, body);
        assertThat(answers.get(0).bodyText()).isEqualTo("x-1b:second:end");
    }

    @Test
    void aStreamedBodyOfAnAsynchronousHandlerIsReadAsAFormNotPartByPart() throws Exception {
        Router router = Router.builder()
                .post("/parts", Handler.async((req, res) -> {
                    try {
                        req.multipart().nextPart();
                        res.text("read");
                    } catch (IllegalStateException e) {
                        res.status(409).text(e.getMessage());
                    }
                    return java.util.concurrent.CompletableFuture.completedFuture(null);
                }))
                .get("/after", (req, res) -> res.text("after"))
                .build();
        List<RawResponse> answers = exchange(Kind.ASYNC, router, "/parts", TYPE, sample());
        assertThat(answers.get(0).status()).isEqualTo(409);
        assertThat(answers.get(0).bodyText()).contains("use readForm()");
    }
}
