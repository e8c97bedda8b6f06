// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code RouteOptions.requestDecompression}: request bodies in gzip or deflate reach inline,
 * blocking and asynchronous handlers inflated; a bomb is 413 and a corrupt body 400, each with a
 * close as for a body too large on the wire; another coding is 415 with {@code Accept-Encoding};
 * without the option a body is as sent.
 */
@Timeout(30)
class RequestDecompressionTest {
    static final byte[] TEXT = "name=spindle&note=a body sent compressed; ".repeat(300).getBytes(StandardCharsets.US_ASCII);
    static final long LIMIT = 64 * 1024;

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore wakeups = new Semaphore(0);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    static byte[] deflate(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(out, new Deflater())) {
            z.write(data);
        }
        return out.toByteArray();
    }

    /** What a handler saw: the body's length and a digest of it, and the coding fields still visible. */
    static String seen(Request req, byte[] body) {
        return body.length + " " + Arrays.hashCode(body) + " ce=" + req.header("Content-Encoding") + " cl=" + req.header("Content-Length");
    }

    static Router routes() {
        RouteOptions inflate = RouteOptions.defaults().requestDecompression(true).maxBodySize(LIMIT);
        return Router.builder()
                .post("/inline", (req, res) -> res.text(seen(req, req.bodyBytes()) + " len=" + req.bodyLength()), inflate)
                .post("/blocking", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(seen(req, in.readAllBytes()) + " len=" + req.bodyLength());
                    }
                }), inflate)
                .post("/blocking/whole", Handler.blocking((req, res) -> res.text(seen(req, req.bodyBytes()))), inflate)
                .post("/async", Handler.async((req, res) -> req.readBody().thenAccept(b -> res.text(seen(req, b)))), inflate)
                .post("/async/chunks", Handler.async((req, res) -> {
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    ByteArrayOutputStream all = new ByteArrayOutputStream();
                    req.bodyPublisher().subscribe(new Flow.Subscriber<>() {
                        private Flow.Subscription s;

                        @Override
                        public void onSubscribe(Flow.Subscription s) {
                            this.s = s;
                            s.request(1);
                        }

                        @Override
                        public void onNext(ByteBuffer item) {
                            all.write(item.array(), item.arrayOffset() + item.position(), item.remaining());
                            s.request(1);
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.completeExceptionally(t);
                        }

                        @Override
                        public void onComplete() {
                            res.text(seen(req, all.toByteArray()));
                            done.complete(null);
                        }
                    });
                    return done;
                }), inflate)
                .post("/asis", (req, res) -> res.text(seen(req, req.bodyBytes())))
                .post("/big", (req, res) -> res.text(seen(req, req.bodyBytes())),
                        RouteOptions.defaults().requestDecompression(true).maxBodySize(16 << 20))
                .post("/big/blocking", Handler.blocking((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text(Long.toString(in.transferTo(java.io.OutputStream.nullOutputStream())));
                    }
                }), RouteOptions.defaults().requestDecompression(true).maxBodySize(16 << 20))
                .build();
    }

    private HttpConnection connection(boolean offload) {
        return new HttpConnection(routes(), ServerConfig.defaults(), offload ? executor : null, wakeups::release);
    }

    /** Feeds the request (in pieces of {@code piece} bytes) and writes what the connection hands out, until it settles. */
    private List<RawResponse> exchange(HttpConnection c, byte[] request, int piece) throws InterruptedException {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int at = 0;
        while (true) {
            assertThat(System.nanoTime()).as("the connection answers").isLessThan(deadline);
            if (c.next().writes()) {
                written.writeBytes(drain(c));
            } else if (at < request.length && c.next().reads()) {
                int n = Math.min(piece, request.length - at);
                c.received(ByteBuffer.wrap(request, at, n));
                at += n;
            } else if (c.state() == Connection.State.IDLE || c.state().finished() || c.next() == dev.spindle.core.spi.Next.LINGER
                    || at == request.length && c.state() == Connection.State.CLOSING) {
                break;
            } else if (wakeups.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                c.resume();
            }
        }
        return parseAll(written.toByteArray());
    }

    static byte[] post(String target, String coding, byte[] body, boolean chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("POST " + target + " HTTP/1.1\r\nHost: t\r\n" + (coding == null ? "" : "Content-Encoding: " + coding + "\r\n")
                + (chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: " + body.length + "\r\n\r\n"))
                .getBytes(StandardCharsets.US_ASCII));
        if (chunked) {
            for (int at = 0; at < body.length; at += 1000) {
                int n = Math.min(1000, body.length - at);
                out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body, at, n);
                out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    static String expected(byte[] body) {
        return body.length + " " + Arrays.hashCode(body) + " ce=null cl=null";
    }

    static Stream<Arguments> routesAndFraming() {
        return Stream.of("/inline", "/blocking", "/blocking/whole", "/async", "/async/chunks")
                .flatMap(t -> Stream.of(Arguments.of(t, false), Arguments.of(t, true)));
    }

    @ParameterizedTest(name = "{0}, chunked {1}")
    @MethodSource("routesAndFraming")
    void bodiesReachTheHandlerInflated(String target, boolean chunked) throws Exception {
        for (boolean offload : new boolean[] {false, true}) {
            for (String coding : new String[] {"gzip", "x-gzip", "deflate", "identity", "GZIP"}) {
                byte[] coded = coding.equals("identity") ? TEXT : coding.equals("deflate") ? deflate(TEXT) : gzip(TEXT);
                for (int piece : new int[] {1 << 20, 97}) {
                    List<RawResponse> r = exchange(connection(offload), post(target, coding, coded, chunked), piece);
                    assertThat(r).hasSize(1);
                    assertThat(r.get(0).status()).as("%s %s offloaded %s", target, coding, offload).isEqualTo(200);
                    String text = r.get(0).bodyText();
                    String expected = coding.equals("identity") ? TEXT.length + " " + Arrays.hashCode(TEXT) + " ce=identity cl="
                            + (chunked ? "null" : Integer.toString(TEXT.length)) : expected(TEXT);
                    assertThat(text).as("%s %s", target, coding).startsWith(expected);
                    if (text.contains(" len=") && !coding.equals("identity")) {
                        assertThat(text).endsWith(target.equals("/inline") ? " len=" + TEXT.length : " len=-1");
                    }
                }
            }
        }
    }

    @Test
    void aConnectionCarriesOnAfterInflatedBodies() throws Exception {
        HttpConnection c = connection(true);
        ByteArrayOutputStream requests = new ByteArrayOutputStream();
        for (String target : new String[] {"/inline", "/blocking", "/async", "/inline"}) {
            requests.writeBytes(post(target, "gzip", gzip(TEXT), false));
        }
        List<RawResponse> r = exchange(c, requests.toByteArray(), 1 << 20);
        assertThat(r).hasSize(4).allSatisfy(one -> assertThat(one.bodyText()).startsWith(expected(TEXT)));
    }

    /** A bomb: 4 MiB of zeros gzipped to a few KiB, against a 64 KiB limit: 413 and a close, as for a body too large on the wire. */
    @ParameterizedTest(name = "{0}, chunked {1}")
    @MethodSource("routesAndFraming")
    void aBombIs413AndTheConnectionCloses(String target, boolean chunked) throws Exception {
        byte[] bomb = gzip(new byte[4 << 20]);
        for (boolean offload : new boolean[] {false, true}) {
            HttpConnection c = connection(offload);
            ByteArrayOutputStream requests = new ByteArrayOutputStream();
            requests.writeBytes(post(target, "gzip", bomb, chunked));
            requests.writeBytes(post("/inline", null, TEXT, false));
            List<RawResponse> r = exchange(c, requests.toByteArray(), 4096);
            assertThat(r).as("%s offloaded %s: nothing after the refusal", target, offload).hasSize(1);
            assertThat(r.get(0).status()).isEqualTo(413);
            assertThat(r.get(0).closes()).isTrue();
        }
    }

    /**
     * The bomb: 10 MB of gzip (160 members of 64 MiB of zeros) inflating to 10 GiB, to
     * routes that take 16 MiB: 413, having allocated a few times the limit, not the inflated size.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/big", "/big/blocking"})
    void aTenMegabyteBombOfTenGigabytesIs413InBoundedMemory(String target) throws Exception {
        byte[] member = gzip(new byte[64 << 20]);
        ByteArrayOutputStream bomb = new ByteArrayOutputStream();
        for (int i = 0; i < 160; i++) {
            bomb.writeBytes(member);
        }
        assertThat(bomb.size()).isBetween(9_000_000, 12_000_000);
        byte[] request = post(target, "gzip", bomb.toByteArray(), false);
        // reached by reflection: the tests compile inside core's module, which does not read java.management
        Object threads = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        java.lang.reflect.Method total = Class.forName("com.sun.management.ThreadMXBean").getMethod("getTotalThreadAllocatedBytes");
        long before = (Long) total.invoke(threads);
        List<RawResponse> r = exchange(connection(true), request, 256 * 1024);
        long allocated = (Long) total.invoke(threads) - before;
        assertThat(r).hasSize(1);
        assertThat(r.get(0).status()).isEqualTo(413);
        assertThat(r.get(0).closes()).isTrue();
        assertThat(allocated).as("bytes allocated refusing it").isLessThan(128L << 20);
    }

    static Stream<Arguments> refused() throws IOException {
        byte[] gz = gzip(TEXT);
        byte[] corrupt = gz.clone();
        Arrays.fill(corrupt, 20, 60, (byte) 0x55);
        return Stream.of(
                Arguments.of("gzip", "not gzip at all".getBytes(StandardCharsets.US_ASCII), 400),
                Arguments.of("gzip", corrupt, 400),
                Arguments.of("gzip", Arrays.copyOf(gz, gz.length - 4), 400),
                Arguments.of("deflate", gz, 400),
                Arguments.of("br", gz, 415),
                Arguments.of("gzip, gzip", gz, 415),
                Arguments.of("compress", gz, 415));
    }

    @ParameterizedTest(name = "Content-Encoding: {0} -> {2}")
    @MethodSource("refused")
    void aBodyThatWillNotInflateIsRefused(String coding, byte[] body, int status) throws Exception {
        for (String target : new String[] {"/inline", "/blocking", "/async", "/async/chunks"}) {
            for (boolean offload : new boolean[] {false, true}) {
                List<RawResponse> r = exchange(connection(offload), post(target, coding, body, false), 1 << 20);
                assertThat(r).hasSize(1);
                assertThat(r.get(0).status()).as("%s, offloaded %s", target, offload).isEqualTo(status);
                assertThat(r.get(0).closes()).isTrue();
                if (status == 415) {
                    assertThat(r.get(0).header("Accept-Encoding")).as("RFC 9110 15.5.16").isEqualTo("gzip, deflate");
                }
            }
        }
    }

    @Test
    void withoutTheOptionTheBodyIsAsSent() throws Exception {
        byte[] gz = gzip(TEXT);
        List<RawResponse> r = exchange(connection(false), post("/asis", "gzip", gz, false), 1 << 20);
        assertThat(r.get(0).bodyText()).isEqualTo(gz.length + " " + Arrays.hashCode(gz) + " ce=gzip cl=" + gz.length);
        List<RawResponse> other = exchange(connection(false), post("/asis", "br", gz, false), 1 << 20);
        assertThat(other.get(0).status()).as("a coding nobody undoes is not refused either").isEqualTo(200);
    }
}
