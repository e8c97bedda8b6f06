// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static dev.spindle.conformance.Bodies.pattern;
import static dev.spindle.conformance.Bodies.summary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestTls;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Spindle's client speaking HTTP/2 to downstreams from handlers on the strategy's event loops: h2c
 * by prior knowledge, h2 chosen by ALPN over TLS (and HTTP/1.1 when the server does not choose it),
 * many requests multiplexed on one connection, bodies past the flow-control windows both ways,
 * and the server misbehaving in HTTP/2's own ways (a reset stream, a refused one, a GOAWAY before
 * the answer, a frame that breaks the protocol, a SETTINGS flood, a malformed header): each fails
 * only what it must, with its reason, and the loop goes on serving.
 */
public abstract class Http2ClientSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final char[] PASSWORD = TestTls.PASSWORD.toCharArray();
    private static final int BODY_LIMIT = 1 << 20;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private Client h2c;
    private Client h2;
    /** h2c over one connection per loop and destination. */
    private Client single;
    private CountingProxy downstream;
    private int tlsPort;
    private int tlsHttp1Port;
    private HttpServer caller;

    /**
     * A server of the strategy under test, not started; its handlers run on event loops.
     *
     * @param config its configuration
     * @param router its routes
     * @return the server
     */
    protected abstract HttpServer newServer(ServerConfig config, Router router);

    @BeforeEach
    void start() throws IOException {
        h2c = Client.create(ClientConfig.defaults().h2cPriorKnowledge(true).responseTimeout(Duration.ofSeconds(10))
                .maxResponseBodySize(BODY_LIMIT).maxConnectionsPerDestination(4));
        resources.add(h2c);
        single = Client.create(ClientConfig.defaults().h2cPriorKnowledge(true).responseTimeout(Duration.ofSeconds(5)).maxConnectionsPerDestination(1));
        resources.add(single);
        TestTls.KeyPair localhost = TestTls.localhost();
        h2 = Client.create(ClientConfig.defaults().http2(true).responseTimeout(Duration.ofSeconds(10))
                .trustStore(localhost.trustStore(), PASSWORD));
        resources.add(h2);
        HttpServer target = newServer(ServerConfig.defaults().port(0), downstreamRoutes()).start();
        resources.add(target::close);
        downstream = new CountingProxy(target.port());
        resources.add(downstream);
        HttpServer tls = newServer(ServerConfig.defaults().port(0).tls(TestTls.serverTls()), downstreamRoutes()).start();
        resources.add(tls::close);
        tlsPort = tls.port();
        HttpServer tlsHttp1 = newServer(ServerConfig.defaults().port(0).tls(TestTls.serverTls()).h2(false), downstreamRoutes()).start();
        resources.add(tlsHttp1::close);
        tlsHttp1Port = tlsHttp1.port();
        caller = newServer(ServerConfig.defaults().port(0).workers(1), callerRoutes()).start();
        resources.add(caller::close);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private static Router downstreamRoutes() {
        return Router.builder()
                .get("/version", (req, res) -> res.text(req.version()))
                .get("/delay/{ms}", Handler.async((req, res) -> {
                    int ms = Integer.parseInt(req.pathParam("ms"));
                    return CompletableFuture.runAsync(() -> res.text("slept " + ms),
                            CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
                }))
                .post("/count", Bodies.count())
                .get("/large/{bytes}", Bodies.large())
                .build();
    }

    private Router callerRoutes() {
        return Router.builder()
                .get("/h2c/{port}/{path}", Handler.async((req, res) -> h2c.get(url("http", req.pathParam("port"), req))
                        .totalTimeout(Duration.ofMillis(req.queryParam("total", Long.class, 0L))).send()
                        .handle((answer, failure) -> answer(res, answer, failure))))
                .get("/h2/{port}/{path}", Handler.async((req, res) -> h2.get(url("https", req.pathParam("port"), req)).send()
                        .handle((answer, failure) -> answer(res, answer, failure))))
                .get("/many/{port}/{n}", Handler.async((req, res) -> {
                    List<CompletableFuture<ClientResponse>> answers = new ArrayList<>();
                    for (int i = 0; i < Integer.parseInt(req.pathParam("n")); i++) {
                        answers.add(h2c.get("http://127.0.0.1:" + req.pathParam("port") + "/delay/200").send().toCompletableFuture());
                    }
                    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((done, failure) -> {
                        long ok = answers.stream().filter(a -> !a.isCompletedExceptionally() && a.join().status() == 200).count();
                        res.text(ok + " of " + answers.size());
                        return null;
                    });
                }))
                // the later requests take less time: their answers come back in the other order
                .get("/staggered/{port}", Handler.async((req, res) -> {
                    List<CompletableFuture<String>> answers = new ArrayList<>();
                    for (int ms = 300; ms >= 0; ms -= 60) {
                        answers.add(single.get("http://127.0.0.1:" + req.pathParam("port") + "/delay/" + ms).send()
                                .handle((answer, failure) -> failure != null ? failure.toString() : answer.bodyText()).toCompletableFuture());
                    }
                    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                            .thenRun(() -> res.text(String.join(",", answers.stream().map(CompletableFuture::join).toList())));
                }))
                .get("/many-h2/{port}/{n}", Handler.async((req, res) -> {
                    List<CompletableFuture<ClientResponse>> answers = new ArrayList<>();
                    for (int i = 0; i < Integer.parseInt(req.pathParam("n")); i++) {
                        answers.add(h2.get("https://localhost:" + req.pathParam("port") + "/delay/200").send().toCompletableFuture());
                    }
                    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((done, failure) -> {
                        long ok = answers.stream().filter(a -> !a.isCompletedExceptionally() && a.join().version().equals("HTTP/2")).count();
                        int open = h2.pools().stream().filter(p -> p.destination().equals("https://localhost:" + req.pathParam("port")))
                                .mapToInt(dev.spindle.core.ClientPool::open).sum();
                        res.text(ok + " of " + answers.size() + " over " + open);
                        return null;
                    });
                }))
                .post("/post/{port}", Handler.async((req, res) -> h2c.post("http://127.0.0.1:" + req.pathParam("port") + "/count")
                        .body(pattern(Integer.parseInt(req.queryParam("bytes")))).send()
                        .handle((answer, failure) -> answer(res, answer, failure))))
                .post("/upload/{port}", Handler.async((req, res) -> h2c.post("http://127.0.0.1:" + req.pathParam("port") + "/count")
                        .body(req.bodyPublisher(), -1).send()
                        .handle((answer, failure) -> answer(res, answer, failure))))
                .get("/stream/{port}/{bytes}", Handler.async((req, res) -> h2c.get("http://127.0.0.1:" + req.pathParam("port")
                        + "/large/" + req.pathParam("bytes")).streamResponse().send().handle((answer, failure) -> {
                            if (failure != null) {
                                return answer(res, null, failure);
                            }
                            res.status(answer.status()).body(answer.bodyStream(), -1);
                            return null;
                        })))
                .build();
    }

    private static String url(String scheme, String port, dev.spindle.core.Request req) {
        String path = req.pathParam("path").replace('~', '/');
        return scheme + "://" + (scheme.equals("https") ? "localhost" : "127.0.0.1") + ":" + port + "/" + path;
    }

    /** The downstream's answer as the caller's: its version and body, or 502 naming the client's reason. */
    private static Void answer(Response res, ClientResponse answer, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause == null) {
            res.status(answer.status()).text(answer.version() + " " + answer.bodyText());
        } else if (cause instanceof ClientException e) {
            res.status(502).text(e.reason().name() + ": " + e.getMessage());
        } else {
            res.status(500).text(cause.toString());
        }
        return null;
    }

    private String get(String path) throws IOException {
        try (RawConnection c = new RawConnection(caller.port())) {
            RawResponse r = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            return r.status() + " " + r.bodyText();
        }
    }

    private void assertCallerStillServes() throws IOException {
        assertThat(get("/h2c/" + downstream.port() + "/delay~0")).isEqualTo("200 HTTP/2 slept 0");
    }

    @Test
    void h2cByPriorKnowledgeReachesTheServerAsHttp2() throws IOException {
        assertThat(get("/h2c/" + downstream.port() + "/version")).isEqualTo("200 HTTP/2 HTTP/2");
        assertThat(downstream.accepted().get()).isEqualTo(1);
    }

    @Test
    void manyConcurrentRequestsShareOneConnection() throws IOException {
        assertThat(get("/many/" + downstream.port() + "/64")).isEqualTo("200 64 of 64");
        assertThat(downstream.accepted().get()).as("connections the 64 requests took").isEqualTo(1);
        assertThat(get("/many/" + downstream.port() + "/200")).as("past the server's 128 streams").isEqualTo("200 200 of 200");
        assertThat(downstream.accepted().get()).isLessThanOrEqualTo(4);
    }

    @Test
    void answersInAnotherOrderReachTheirRequests() throws IOException {
        assertThat(get("/staggered/" + downstream.port())).isEqualTo("200 slept 300,slept 240,slept 180,slept 120,slept 60,slept 0");
        assertThat(downstream.accepted().get()).isEqualTo(1);
    }

    @Test
    void aConnectionTheServerClosesWhileIdleIsReplaced() throws Exception {
        HttpServer brief = newServer(ServerConfig.defaults().port(0).idleTimeout(Duration.ofMillis(200)), downstreamRoutes()).start();
        resources.add(brief::close);
        CountingProxy counted = new CountingProxy(brief.port());
        resources.add(counted);
        assertThat(get("/h2c/" + counted.port() + "/delay~0")).isEqualTo("200 HTTP/2 slept 0");
        // the server's GOAWAY ends the idle connection meanwhile
        Thread.sleep(800);
        assertThat(get("/h2c/" + counted.port() + "/delay~1")).isEqualTo("200 HTTP/2 slept 1");
        assertThat(counted.accepted().get()).as("a new connection after the idle close").isEqualTo(2);
    }

    @Test
    void alpnChoosesHttp2OverTls() throws IOException {
        assertThat(get("/h2/" + tlsPort + "/version")).isEqualTo("200 HTTP/2 HTTP/2");
        assertThat(get("/h2/" + tlsPort + "/delay~10")).as("again, on the same connection").isEqualTo("200 HTTP/2 slept 10");
    }

    @Test
    void manyConcurrentRequestsOverTlsShareAFewConnections() throws IOException {
        String answer = get("/many-h2/" + tlsPort + "/300");
        assertThat(answer).startsWith("200 300 of 300 over ");
        // each connection carries up to the server's 128 streams, one still in its handshake as many
        assertThat(Integer.parseInt(answer.substring(answer.lastIndexOf(' ') + 1))).as("connections").isBetween(1, 4);
    }

    @Test
    void aServerThatDoesNotChooseH2IsSpokenToInHttp11() throws IOException {
        assertThat(get("/h2/" + tlsHttp1Port + "/version")).isEqualTo("200 HTTP/1.1 HTTP/1.1");
    }

    @Test
    void aBufferedBodyPastTheWindowsArrivesWhole() throws IOException {
        int bytes = 1_000_000;
        try (RawConnection c = new RawConnection(caller.port())) {
            RawResponse r = c.send("POST /post/" + downstream.port() + "?bytes=" + bytes + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").read();
            assertThat(r.status() + " " + r.bodyText()).isEqualTo("200 HTTP/2 " + summary(pattern(bytes)));
        }
    }

    @Test
    void aStreamedBodyGoesOutAsItArrives() throws IOException {
        byte[] body = pattern(3 << 20);
        try (RawConnection c = new RawConnection(caller.port())) {
            c.send(("POST /upload/" + downstream.port() + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            c.send(body);
            RawResponse r = c.read();
            assertThat(r.status() + " " + r.bodyText()).isEqualTo("200 HTTP/2 " + summary(body));
        }
    }

    @Test
    void aStreamedResponseIsReadAsTheReaderTakesIt() throws IOException {
        int bytes = 4 << 20;
        try (RawConnection c = new RawConnection(caller.port())) {
            RawResponse r = c.send("GET /stream/" + downstream.port() + "/" + bytes + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(summary(r.body())).isEqualTo(summary(pattern(bytes)));
        }
        assertThat(downstream.accepted().get()).isEqualTo(1);
    }

    @Test
    void aBodyTooLargeFailsItsStreamAndTheConnectionGoesOn() throws IOException {
        assertThat(get("/h2c/" + downstream.port() + "/large~" + (2 * BODY_LIMIT))).startsWith("502 BODY_TOO_LARGE");
        assertCallerStillServes();
        assertThat(downstream.accepted().get()).as("the reset stream kept its connection").isEqualTo(1);
    }

    @Test
    void aTotalTimeoutResetsOnlyItsStream() throws IOException {
        assertThat(get("/h2c/" + downstream.port() + "/delay~3000?total=300")).startsWith("502 TOTAL_TIMEOUT");
        assertCallerStillServes();
        assertThat(downstream.accepted().get()).as("the stream was reset, the connection kept").isEqualTo(1);
    }

    @Test
    void aStreamTheServerResetsFailsWithItsCode() throws IOException {
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> RawHttp2Server.frame(out, 3, 0, stream, int32(2)))) {
            assertThat(get("/h2c/" + s.port() + "/x")).startsWith("502 STREAM_RESET").contains("INTERNAL_ERROR");
        }
        assertCallerStillServes();
    }

    @Test
    void aRefusedStreamIsSentAgainOnAnotherConnection() throws IOException {
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> {
            if (connection == 1) {
                RawHttp2Server.frame(out, 3, 0, stream, int32(7));
            } else {
                RawHttp2Server.ok(out, stream, "second");
            }
        })) {
            assertThat(get("/h2c/" + s.port() + "/x")).isEqualTo("200 HTTP/2 second");
            assertThat(s.accepted()).isEqualTo(2);
        }
    }

    @Test
    void aGoAwayBeforeTheAnswerSendsTheRequestAgainOnANewConnection() throws IOException {
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> {
            if (connection == 1) {
                // last_stream_id 0: stream 1 was not processed (RFC 9113 6.8)
                RawHttp2Server.frame(out, 7, 0, 0, concat(int32(0), int32(0)));
            } else {
                RawHttp2Server.ok(out, stream, "after goaway");
            }
        })) {
            assertThat(get("/h2c/" + s.port() + "/x")).isEqualTo("200 HTTP/2 after goaway");
            assertThat(s.accepted()).isEqualTo(2);
        }
        assertCallerStillServes();
    }

    @Test
    void aFrameThatBreaksTheProtocolEndsTheConnection() throws IOException {
        // DATA on stream 0: a connection error (RFC 9113 6.1)
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> RawHttp2Server.frame(out, 0, 0, 0, new byte[4]))) {
            assertThat(get("/h2c/" + s.port() + "/x")).startsWith("502 MALFORMED_RESPONSE").contains("PROTOCOL_ERROR");
        }
        assertCallerStillServes();
    }

    @Test
    void aSettingsFloodEndsTheConnection() throws IOException {
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> {
            for (int i = 0; i < 1100; i++) {
                RawHttp2Server.frame(out, 4, 0, 0, new byte[0]);
            }
        })) {
            assertThat(get("/h2c/" + s.port() + "/x")).startsWith("502 MALFORMED_RESPONSE").contains("ENHANCE_YOUR_CALM");
        }
        assertCallerStillServes();
    }

    @Test
    void aMalformedHeaderFailsItsStreamAndTheConnectionGoesOn() throws IOException {
        try (RawHttp2Server s = new RawHttp2Server((connection, stream, out) -> {
            if (stream == 1) {
                // :status 200, then a literal field named in upper case (RFC 9113 8.2.1: malformed)
                byte[] block = concat(new byte[] {(byte) 0x88, 0x00, 7}, "X-Upper".getBytes(StandardCharsets.US_ASCII), new byte[] {1, 'v'});
                RawHttp2Server.frame(out, 1, 0x5, stream, block);
            } else {
                RawHttp2Server.ok(out, stream, "next");
            }
        })) {
            assertThat(get("/h2c/" + s.port() + "/x")).startsWith("502 MALFORMED_RESPONSE").contains("X-Upper");
            assertThat(get("/h2c/" + s.port() + "/x")).isEqualTo("200 HTTP/2 next");
            assertThat(s.accepted()).as("the stream was reset, not the connection").isEqualTo(1);
        }
    }

    private static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    private static String summary(byte[] b) throws IOException {
        return Bodies.summary(new java.io.ByteArrayInputStream(b));
    }

    /**
     * An HTTP/2 server that answers each request's HEADERS as a test says, frame by frame: it reads
     * the preface, sends an empty SETTINGS, acknowledges the client's and hands every HEADERS
     * frame's stream to the test, with how many connections it has accepted.
     */
    static final class RawHttp2Server implements AutoCloseable {
        /** What the server sends for one request. */
        interface Behaviour {
            void answer(int connection, int stream, DataOutputStream out) throws IOException;
        }

        private final ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
        private final AtomicInteger accepted = new AtomicInteger();
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

        RawHttp2Server(Behaviour behaviour) throws IOException {
            Thread.ofPlatform().daemon().name("raw-h2").start(() -> {
                try {
                    while (true) {
                        Socket s = listener.accept();
                        sockets.add(s);
                        int n = accepted.incrementAndGet();
                        Thread.ofVirtual().start(() -> serve(s, n, behaviour));
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
        }

        private static void serve(Socket s, int connection, Behaviour behaviour) {
            try (s) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                in.readFully(new byte[24]);
                frame(out, 4, 0, 0, new byte[0]);
                while (true) {
                    int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
                    int type = in.readUnsignedByte();
                    int flags = in.readUnsignedByte();
                    int stream = in.readInt() & 0x7FFF_FFFF;
                    in.readFully(new byte[length]);
                    if (type == 4 && (flags & 1) == 0) {
                        frame(out, 4, 1, 0, new byte[0]);
                    } else if (type == 1) {
                        behaviour.answer(connection, stream, out);
                    }
                }
            } catch (EOFException | java.net.SocketException closed) {
                // the client closed
            } catch (IOException e) {
                // the test sees what the client made of it
            }
        }

        static void frame(DataOutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
            out.writeByte(payload.length >>> 16);
            out.writeShort(payload.length & 0xFFFF);
            out.writeByte(type);
            out.writeByte(flags);
            out.writeInt(stream);
            out.write(payload);
            out.flush();
        }

        /** {@code :status 200} and {@code body} in one DATA frame that ends the stream. */
        static void ok(DataOutputStream out, int stream, String body) throws IOException {
            frame(out, 1, 0x4, stream, new byte[] {(byte) 0x88});
            frame(out, 0, 0x1, stream, body.getBytes(StandardCharsets.US_ASCII));
        }

        int port() {
            return listener.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
