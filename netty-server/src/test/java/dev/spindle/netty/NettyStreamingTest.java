package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Asynchronous handlers, streamed bodies both ways, unread bodies and the timeouts, on real sockets. */
@Timeout(120)
class NettyStreamingTest {
    private static final AtomicLong produced = new AtomicLong();
    private static final AtomicReference<Throwable> producerFailure = new AtomicReference<>();

    /** The benchmark app plus routes that stream, count or ignore bodies. */
    private static Router routes() {
        return BenchmarkApp.register(Router.builder())
                .get("/stream/known", (req, res) -> res.body(new ByteArrayInputStream(pattern(100_000)), 100_000))
                .get("/stream/unknown", (req, res) -> res.body(new ByteArrayInputStream(pattern(100_000)), -1))
                .get("/stream/short", (req, res) -> res.body(new ByteArrayInputStream(pattern(10)), 20))
                .get("/writer", (req, res) -> res.stream(out -> {
                    out.write("one,".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    out.write("two,".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    out.write("three".getBytes(StandardCharsets.US_ASCII));
                }))
                .get("/writer/failing", (req, res) -> res.stream(out -> {
                    out.write(pattern(50_000));
                    throw new IOException("the producer broke");
                }))
                .get("/endless", (req, res) -> res.stream(out -> {
                    byte[] chunk = new byte[8192];
                    try {
                        for (long i = 0; i < 1L << 30; i += chunk.length) {
                            out.write(chunk);
                            produced.addAndGet(chunk.length);
                        }
                    } catch (IOException e) {
                        producerFailure.set(e);
                        throw e;
                    }
                }))
                .post("/count", Handler.blocking((req, res) -> {
                    long n = 0;
                    byte[] buf = new byte[65536];
                    try (InputStream in = req.bodyStream()) {
                        for (int r; (r = in.read(buf)) >= 0; ) {
                            n += r;
                        }
                    }
                    res.text(Long.toString(n));
                }))
                .post("/count/async", Handler.async((req, res) -> {
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    req.bodyPublisher().subscribe(new Flow.Subscriber<>() {
                        private Flow.Subscription subscription;
                        private long n;

                        @Override
                        public void onSubscribe(Flow.Subscription s) {
                            subscription = s;
                            s.request(1);
                        }

                        @Override
                        public void onNext(ByteBuffer item) {
                            n += item.remaining();
                            subscription.request(1);
                        }

                        @Override
                        public void onError(Throwable t) {
                            done.completeExceptionally(t);
                        }

                        @Override
                        public void onComplete() {
                            res.text(Long.toString(n));
                            done.complete(null);
                        }
                    });
                    return done;
                }))
                .post("/ignore", Handler.blocking((req, res) -> res.text("ignored")))
                .get("/never", Handler.async((req, res) -> new CompletableFuture<Void>()))
                .get("/bigfile", (req, res) -> res.file(bigFile()))
                .build();
    }

    private static java.nio.file.Path bigFile;

    /** A sparse 256 MiB file: more than any socket buffer holds. */
    private static synchronized java.nio.file.Path bigFile() throws IOException {
        if (bigFile == null) {
            bigFile = java.nio.file.Files.createTempFile("spindle-netty-big-", ".bin");
            bigFile.toFile().deleteOnExit();
            try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(bigFile.toFile(), "rw")) {
                f.setLength(256L << 20);
            }
        }
        return bigFile;
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i % 251);
        }
        return b;
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().port(0).workers(1);
    }

    private static HttpServer start(ServerConfig config, NettyTransport transport) throws IOException {
        return new NettyServer(config, routes(), transport).start();
    }

    private static HttpServer start(ServerConfig config) throws IOException {
        return start(config, NettyTransport.NIO);
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void delayedResponsesDoNotHoldTheEventLoop(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        int clients = 300;
        try (HttpServer server = start(config(), transport)) {
            long t0 = System.nanoTime();
            List<Future<String>> bodies = new ArrayList<>();
            try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < clients; i++) {
                    bodies.add(executor.submit(() -> {
                        try (RawConnection c = new RawConnection(server.port())) {
                            return c.send(get("/delay/500")).read().bodyText();
                        }
                    }));
                }
            }
            for (Future<String> body : bodies) {
                assertThat(body.get()).isEqualTo("{\"delayed\":500}");
            }
            // one event loop, 300 half-second waits: only if none of them holds the loop
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void asyncAndBlockingRoutesKeepPipelinedOrder() throws Exception {
        try (HttpServer server = start(config()); RawConnection c = new RawConnection(server.port())) {
            c.send(get("/delay/200") + get("/plaintext") + get("/delay/10") + get("/blocking/30") + get("/delay/0") + get("/json"));
            assertThat(c.read().bodyText()).isEqualTo("{\"delayed\":200}");
            assertThat(c.read().bodyText()).isEqualTo("Hello, World!");
            assertThat(c.read().bodyText()).isEqualTo("{\"delayed\":10}");
            assertThat(c.read().bodyText()).isEqualTo("{\"slept\":30}");
            assertThat(c.read().bodyText()).isEqualTo("{\"delayed\":0}");
            assertThat(c.read().bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
            assertThat(c.send(get("/delay/x")).read().status()).isEqualTo(400);
        }
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void downloadSendsTheFileAndHeadOnlyItsLength(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        try (HttpServer server = start(config(), transport); RawConnection c = new RawConnection(server.port())) {
            for (int round = 0; round < 3; round++) {
                RawResponse r = c.send(get("/download")).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("content-length")).isEqualTo(Integer.toString(BenchmarkApp.DOWNLOAD_BYTES));
                assertThat(r.header("content-type")).isEqualTo("application/octet-stream");
                assertThat(r.body()).hasSize(BenchmarkApp.DOWNLOAD_BYTES);
                for (int i = 0; i < r.body().length; i++) {
                    if (r.body()[i] != BenchmarkApp.DownloadFile.at(i)) {
                        throw new AssertionError("byte " + i + " differs");
                    }
                }
            }
            RawResponse head = c.send("HEAD /download HTTP/1.1\r\nHost: x\r\n\r\n").read(true);
            assertThat(head.header("content-length")).isEqualTo(Integer.toString(BenchmarkApp.DOWNLOAD_BYTES));
            assertThat(c.send(get("/plaintext")).read().bodyText()).isEqualTo("Hello, World!");
            // pipelined behind a download, in order
            c.send(get("/download") + get("/json"));
            assertThat(c.read().body()).hasSize(BenchmarkApp.DOWNLOAD_BYTES);
            assertThat(c.read().bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
        }
    }

    @Test
    void filesGoInChunksWhereFileRegionsCannot() throws Exception {
        try (HttpServer server = new NettyServer(config(), routes(), NettyTransport.NIO).withoutFileRegions().start();
                RawConnection c = new RawConnection(server.port())) {
            c.send(get("/download") + get("/json"));
            RawResponse r = c.read();
            assertThat(r.header("content-length")).isEqualTo(Integer.toString(BenchmarkApp.DOWNLOAD_BYTES));
            for (int i = 0; i < r.body().length; i++) {
                if (r.body()[i] != BenchmarkApp.DownloadFile.at(i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }
            assertThat(r.body()).hasSize(BenchmarkApp.DOWNLOAD_BYTES);
            assertThat(c.read().bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
        }
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void streamedBodiesAreFramedByTheirLength(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        try (HttpServer server = start(config(), transport)) {
            try (RawConnection c = new RawConnection(server.port())) {
                RawResponse known = c.send(get("/stream/known")).read();
                assertThat(known.header("content-length")).isEqualTo("100000");
                assertThat(known.body()).isEqualTo(pattern(100_000));
                RawResponse unknown = c.send(get("/stream/unknown")).read();
                assertThat(unknown.header("transfer-encoding")).isEqualTo("chunked");
                assertThat(unknown.body()).isEqualTo(pattern(100_000));
                RawResponse written = c.send(get("/writer")).read();
                assertThat(written.header("transfer-encoding")).isEqualTo("chunked");
                assertThat(written.bodyText()).isEqualTo("one,two,three");
                RawResponse head = c.send("HEAD /stream/unknown HTTP/1.1\r\nHost: x\r\n\r\n").read(true);
                assertThat(head.status()).isEqualTo(200);
                assertThat(c.send(get("/plaintext")).read().bodyText()).isEqualTo("Hello, World!");
            }
            try (RawConnection c = new RawConnection(server.port())) {
                RawResponse r = c.send("GET /stream/unknown HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
                assertThat(r.header("transfer-encoding")).isNull();
                assertThat(r.closes()).isTrue();
                assertThat(r.body()).isEqualTo(pattern(100_000));
            }
        }
    }

    @Test
    void aBodyThatBreaksItsFramingEndsTheConnection() throws Exception {
        try (HttpServer server = start(config())) {
            for (String target : new String[] {"/stream/short", "/writer/failing"}) {
                try (Socket s = new Socket("127.0.0.1", server.port())) {
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write(get(target).getBytes(StandardCharsets.US_ASCII));
                    byte[] all = s.getInputStream().readAllBytes();
                    String text = new String(all, StandardCharsets.ISO_8859_1);
                    assertThat(text).as(target).startsWith("HTTP/1.1 200 OK");
                    assertThat(text).as(target).doesNotEndWith("0\r\n\r\n");
                }
            }
            try (RawConnection c = new RawConnection(server.port())) {
                assertThat(c.send(get("/plaintext")).read().bodyText()).isEqualTo("Hello, World!");
            }
        }
    }

    @Test
    void aSlowReaderHoldsTheProducerBack() throws Exception {
        produced.set(0);
        producerFailure.set(null);
        try (HttpServer server = start(config()); Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024);
            s.connect(new InetSocketAddress("127.0.0.1", server.port()));
            s.getOutputStream().write(get("/endless").getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(1500);
            long held = produced.get();
            assertThat(held).as("bytes produced for a client that reads nothing").isGreaterThan(0).isLessThan(16L << 20);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            long read = 0;
            while (read < 32L << 20) {
                read += in.read(buf);
            }
            assertThat(produced.get()).isGreaterThanOrEqualTo(read - (1 << 20));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (producerFailure.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(producerFailure.get()).as("the producer learns that the connection is gone").isNotNull();
    }

    /**
     * The write timeout is about progress: a client reading a long response slowly, for longer than
     * the timeout, keeps its connection; one that stops reading loses it after about the timeout.
     */
    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void aSlowReaderKeepsItsConnectionAndAStalledOneLosesIt(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        try (HttpServer server = start(config().writeTimeout(Duration.ofMillis(400)), transport)) {
            for (String target : new String[] {"/bigfile", "/endless"}) {
                try (Socket s = new Socket()) {
                    s.setReceiveBufferSize(32 * 1024);
                    s.connect(new InetSocketAddress("127.0.0.1", server.port()));
                    s.getOutputStream().write(get(target).getBytes(StandardCharsets.US_ASCII));
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[64 * 1024];
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1200);
                    while (System.nanoTime() < deadline) {
                        assertThat(in.read(buf)).as("%s read slowly", target).isPositive();
                        Thread.sleep(50);
                    }
                    Thread.sleep(2000);
                    s.setSoTimeout(10_000);
                    long drained = 0;
                    try {
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            drained += n;
                        }
                    } catch (java.net.SocketException e) {
                        // reset: closed too
                    }
                    assertThat(drained).as("%s: what the kernel held when the server gave up", target).isLessThan(64L << 20);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void largeUploadsStreamToBlockingAndAsyncHandlers(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        long size = 64L << 20;
        try (HttpServer server = start(config().maxBodySize(size), transport);
                RawConnection c = new RawConnection(server.port())) {
            for (String target : new String[] {"/count", "/count/async"}) {
                c.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + size + "\r\n\r\n");
                sendZeros(c.socket().getOutputStream(), size);
                RawResponse r = c.read();
                assertThat(r.status()).as(target).isEqualTo(200);
                assertThat(r.bodyText()).as(target).isEqualTo(Long.toString(size));
            }
            c.send("POST /count HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
            OutputStream out = c.socket().getOutputStream();
            byte[] chunk = new byte[100_000];
            for (int i = 0; i < 100; i++) {
                out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(chunk);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(c.read().bodyText()).isEqualTo("10000000");
        }
    }

    private static void sendZeros(OutputStream out, long size) throws IOException {
        byte[] chunk = new byte[256 * 1024];
        for (long sent = 0; sent < size; sent += chunk.length) {
            out.write(chunk, 0, (int) Math.min(chunk.length, size - sent));
        }
        out.flush();
    }

    @Test
    void aStreamedRouteSends100ContinueWhenItReads() throws Exception {
        try (HttpServer server = start(config()); RawConnection c = new RawConnection(server.port())) {
            RawResponse interim = c.send("POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n").read();
            assertThat(interim.status()).isEqualTo(100);
            RawResponse r = c.send("hello").read();
            assertThat(r.bodyText()).isEqualTo("5");
            assertThat(r.closes()).isFalse();
            // a handler that does not read: no 100, and the connection ends after its answer
            RawResponse ignored = c.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n").read();
            assertThat(ignored.status()).isEqualTo(200);
            assertThat(ignored.bodyText()).isEqualTo("ignored");
            assertThat(ignored.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void anUnreadBodyIsDiscardedUpToTheLimit() throws Exception {
        try (HttpServer server = start(config().discardLimit(100_000))) {
            try (RawConnection c = new RawConnection(server.port())) {
                c.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n\r\n");
                c.send(new byte[50_000]);
                RawResponse r = c.read();
                assertThat(r.bodyText()).isEqualTo("ignored");
                assertThat(r.closes()).isFalse();
                assertThat(c.send(get("/plaintext")).read().bodyText()).isEqualTo("Hello, World!");
            }
            try (RawConnection c = new RawConnection(server.port())) {
                c.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n");
                RawResponse r = c.read();
                assertThat(r.bodyText()).isEqualTo("ignored");
                assertThat(r.closes()).isTrue();
                assertThat(c.closedByPeer()).isTrue();
            }
        }
    }

    @Test
    void maxBodySizeLimitsJoinedBodiesAndMaxStreamedBodySizeStreamedOnes() throws Exception {
        try (HttpServer server = start(config().maxBodySize(1000).maxStreamedBodySize(1000))) {
            for (String target : new String[] {"/echo", "/count"}) {
                try (RawConnection c = new RawConnection(server.port())) {
                    RawResponse r = c.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n").read();
                    assertThat(r.status()).as(target).isEqualTo(413);
                    assertThat(c.closedByPeer()).isTrue();
                }
                try (RawConnection c = new RawConnection(server.port())) {
                    RawResponse r = c.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "3e8\r\n" + "a".repeat(1000) + "\r\n1\r\nb\r\n0\r\n\r\n").read();
                    assertThat(r.status()).as(target).isEqualTo(413);
                    assertThat(r.closes()).isTrue();
                }
                try (RawConnection c = new RawConnection(server.port())) {
                    c.send("POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n").send(new byte[1000]);
                    assertThat(c.read().status()).as(target).isEqualTo(200);
                }
            }
        }
    }

    @Test
    void aStalledRequestGets408() throws Exception {
        try (HttpServer server = start(config().headerTimeout(Duration.ofMillis(500)))) {
            for (String partial : new String[] {
                "GET /plaintext HTTP/1.1\r\nHost: x\r\n",
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b",
                "POST /count HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b"}) {
                try (RawConnection c = new RawConnection(server.port())) {
                    long t0 = System.nanoTime();
                    RawResponse r = c.send(partial).read();
                    assertThat(r.status()).as(partial).isEqualTo(408);
                    assertThat(r.closes()).isTrue();
                    assertThat(c.closedByPeer()).isTrue();
                    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(5));
                }
            }
            // a keep-alive connection that waits between requests is not timed out
            try (RawConnection c = new RawConnection(server.port())) {
                assertThat(c.send(get("/plaintext")).read().status()).isEqualTo(200);
                Thread.sleep(800);
                assertThat(c.send(get("/plaintext")).read().status()).isEqualTo(200);
            }
        }
    }

    @Test
    void aHandlerThatNeverAnswersGets503() throws Exception {
        try (HttpServer server = start(config().handlerTimeout(Duration.ofMillis(500)));
                RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send(get("/never")).read();
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void idleConnectionsAreClosed() throws Exception {
        try (HttpServer server = start(config().idleTimeout(Duration.ofMillis(500)));
                RawConnection c = new RawConnection(server.port())) {
            assertThat(c.send(get("/plaintext")).read().status()).isEqualTo(200);
            long t0 = System.nanoTime();
            c.socket().setSoTimeout(5000);
            assertThat(c.closedByPeer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(3));
        }
    }

    @Test
    void repeatedOrListedContentLengthsAreRejected() throws Exception {
        try (HttpServer server = start(config())) {
            for (String lengths : new String[] {"Content-Length: 5,5", "Content-Length: 5, 5", "Content-Length: 5\r\nContent-Length: 5"}) {
                try (RawConnection c = new RawConnection(server.port())) {
                    RawResponse r = c.send("POST /echo HTTP/1.1\r\nHost: x\r\n" + lengths + "\r\n\r\nhello").read();
                    assertThat(r.status()).as(lengths).isEqualTo(400);
                    assertThat(c.closedByPeer()).isTrue();
                }
            }
        }
    }
}
