// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static dev.spindle.conformance.Bodies.pattern;
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
import dev.spindle.core.Tls;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestTls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Spindle's {@link Client} calling {@code https://} downstreams from handlers of the server under
 * test: Spindle TLS servers of the same strategy (with a trusted certificate, one for another host,
 * one that asks for a client certificate) and raw servers that never finish a handshake. Each call
 * is made both ways a handler makes it: {@code send()} from an asynchronous handler (on an event
 * loop, through the loop's own pool, completing on the handler's thread) and {@code call()} from a
 * blocking one. A table of handshakes that must fail, each with its reason. Each strategy module
 * subclasses it.
 */
@Timeout(60)
public abstract class HttpsClientSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final char[] PASSWORD = TestTls.PASSWORD.toCharArray();

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Queue<String> threadMismatches = new ConcurrentLinkedQueue<>();
    private final Map<String, Client> clients = new HashMap<>();
    private final Map<String, Integer> ports = new HashMap<>();
    private CountingProxy trustedProxy;
    private ConnectProxy tunnels;
    private HttpServer caller;

    /**
     * A server of the strategy under test, not started.
     *
     * @param config its configuration
     * @param router its routes
     * @return the server
     */
    protected abstract HttpServer newServer(ServerConfig config, Router router);

    /**
     * Whether the strategy runs handlers on event loops, where the client sends through the loop's pool.
     *
     * @return true for the event-loop strategies
     */
    protected abstract boolean handlersOnEventLoop();

    @BeforeEach
    void start() throws IOException {
        TestTls.KeyPair localhost = TestTls.localhost();
        TestTls.KeyPair other = TestTls.keyPair("dns:elsewhere.test");
        TestTls.KeyPair clientKey = TestTls.keyPair("dns:client.test");
        ClientConfig trusting = ClientConfig.defaults().responseTimeout(Duration.ofSeconds(10)).trustStore(localhost.trustStore(), PASSWORD);
        client("trusting", trusting);
        client("jdk", ClientConfig.defaults());
        client("other", ClientConfig.defaults().trustStore(other.trustStore(), PASSWORD));
        client("other-unverified", ClientConfig.defaults().trustStore(other.trustStore(), PASSWORD).hostnameVerification(false));
        client("short", trusting.connectTimeout(Duration.ofMillis(300)));
        client("mutual", trusting.keyStore(clientKey.keyStore(), PASSWORD));
        client("following", trusting.followRedirects(2));
        tunnels = new ConnectProxy(false);
        resources.add(tunnels);
        ConnectProxy refusing = new ConnectProxy(true);
        resources.add(refusing);
        client("proxied", trusting.proxy("127.0.0.1", tunnels.port()));
        client("proxy-refuses", trusting.proxy("127.0.0.1", refusing.port()));
        try (ServerSocket nothing = new ServerSocket(0, 1, LOOPBACK)) {
            client("proxy-gone", trusting.proxy("127.0.0.1", nothing.getLocalPort()));
        }

        HttpServer trusted = server("trusted", TestTls.serverTls());
        trustedProxy = new CountingProxy(trusted.port());
        resources.add(trustedProxy);
        ports.put("trusted-proxy", trustedProxy.port());
        server("other", other.serverTls());
        server("mutual", mutualTls(clientKey));
        HttpServer plainServer = newServer(ServerConfig.defaults().port(0), downstreamRoutes()).start();
        resources.add(plainServer::close);
        ports.put("plain-http", plainServer.port());
        ports.put("silent", rawServer(null));
        ports.put("plain", rawServer("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
        ports.put("closing", rawServer(""));
        caller = newServer(ServerConfig.defaults().port(0).workers(1), callerRoutes()).start();
        resources.add(caller::close);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private void client(String name, ClientConfig config) {
        Client c = Client.create(config);
        resources.add(c);
        clients.put(name, c);
    }

    private HttpServer server(String name, Tls tls) throws IOException {
        HttpServer s = newServer(ServerConfig.defaults().port(0).tls(tls), downstreamRoutes()).start();
        resources.add(s::close);
        ports.put(name, s.port());
        return s;
    }

    /** The localhost key, and trust in the client's certificate alone, which the server asks for. */
    private static Tls mutualTls(TestTls.KeyPair clientKey) {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(KeyStore.getInstance(TestTls.keyStore().toFile(), PASSWORD), PASSWORD);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(KeyStore.getInstance(clientKey.trustStore().toFile(), PASSWORD));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return Tls.of(context).parameters(p -> p.setNeedClientAuth(true));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Router downstreamRoutes() {
        return Router.builder()
                .get("/hello", (req, res) -> res.text("hello"))
                .get("/moved", (req, res) -> res.status(302).header("Location", "/hello").text("moved"))
                .post("/count", Bodies.count())
                .get("/large/{bytes}", Bodies.large())
                .build();
    }

    private Router callerRoutes() {
        return Router.builder()
                .get("/get", Handler.async((req, res) -> {
                    Thread handler = Thread.currentThread();
                    return clients.get(req.queryParam("client")).get(req.queryParam("url")).send().handle((answer, failure) -> {
                        if (handlersOnEventLoop() && Thread.currentThread() != handler) {
                            threadMismatches.add(handler.getName() + " -> " + Thread.currentThread().getName());
                        }
                        res.text(outcome(answer, failure));
                        return null;
                    });
                }))
                .get("/get-blocking", Handler.blocking((req, res) -> {
                    try {
                        res.text(outcome(clients.get(req.queryParam("client")).get(req.queryParam("url")).call(), null));
                    } catch (ClientException e) {
                        res.text(outcome(null, e));
                    }
                }))
                // a body of MiB each way through TLS, streamed: the downstream counts the upload, the download is relayed
                .post("/upload", Handler.async((req, res) -> clients.get("trusting").post(req.queryParam("url"))
                        .body(req.bodyPublisher(), req.bodyLength()).send().handle((answer, failure) -> {
                            res.text(outcome(answer, failure));
                            return null;
                        })))
                .get("/download", Handler.async((req, res) -> clients.get("trusting").get(req.queryParam("url"))
                        .streamResponse().send().handle((answer, failure) -> {
                            relay(res, answer, failure);
                            return null;
                        })))
                .build();
    }

    private static void relay(Response res, ClientResponse answer, Throwable failure) {
        if (failure != null) {
            res.status(502).text(outcome(null, failure));
        } else {
            res.status(answer.status()).body(answer.bodyStream(), -1);
        }
    }

    private static String outcome(ClientResponse answer, Throwable failure) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            return cause instanceof ClientException e ? e.reason().name() : cause.toString();
        }
        return answer.status() + " " + answer.bodyText();
    }

    private String https(String server, String host, String path) {
        return URLEncoder.encode("https://" + host + ":" + ports.get(server) + path, StandardCharsets.UTF_8);
    }

    private RawResponse request(String head, byte[] body) throws IOException {
        try (RawConnection c = new RawConnection(caller.port())) {
            c.send(head.getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                c.send(body);
            }
            return c.read();
        }
    }

    private String get(String route, String client, String url) throws IOException {
        RawResponse r = request("GET /" + route + "?client=" + client + "&url=" + url + " HTTP/1.1\r\nHost: x\r\n\r\n", null);
        assertThat(r.status()).isEqualTo(200);
        return r.bodyText();
    }

    @Test
    void callsOverTlsReuseOneConnectionAndCompleteOnTheHandlersThread() throws IOException {
        for (String route : List.of("get", "get-blocking")) {
            for (int i = 0; i < 3; i++) {
                assertThat(get(route, "trusting", https("trusted-proxy", "127.0.0.1", "/hello"))).isEqualTo("200 hello");
            }
        }
        assertThat(get("get", "trusting", https("trusted", "localhost", "/hello"))).as("by name: SNI and the DNS name in the certificate")
                .isEqualTo("200 hello");
        assertThat(threadMismatches).as("completions on the handler's loop thread").isEmpty();
        // off a loop both ways of calling share the blocking path's pool
        assertThat(trustedProxy.accepted()).as("one kept-alive connection per pool").hasValue(handlersOnEventLoop() ? 2 : 1);
    }

    @Test
    void aRedirectIsFollowedWhereTheCallWasMade() throws IOException {
        for (String route : List.of("get", "get-blocking")) {
            assertThat(get(route, "following", https("trusted", "127.0.0.1", "/moved"))).as(route).isEqualTo("200 hello");
            assertThat(get(route, "trusting", https("trusted", "127.0.0.1", "/moved"))).as(route + ", not asked to").isEqualTo("302 moved");
        }
        assertThat(threadMismatches).as("the redirect's request completes on the handler's loop thread too").isEmpty();
    }

    @Test
    void callsGoThroughAProxysTunnelWithTlsInsideIt() throws IOException {
        for (String route : List.of("get", "get-blocking")) {
            assertThat(get(route, "proxied", https("trusted", "127.0.0.1", "/hello"))).as(route + ", https").isEqualTo("200 hello");
            assertThat(get(route, "proxied", https("trusted", "localhost", "/hello"))).as(route + ", https by name").isEqualTo("200 hello");
            assertThat(get(route, "proxied", URLEncoder.encode("http://127.0.0.1:" + ports.get("plain-http") + "/hello", StandardCharsets.UTF_8)))
                    .as(route + ", http").isEqualTo("200 hello");
            assertThat(get(route, "proxied", https("other", "127.0.0.1", "/hello")))
                    .as(route + ": the certificate is checked end to end, through the tunnel").isEqualTo("CERTIFICATE_UNTRUSTED");
            assertThat(get(route, "proxy-refuses", https("trusted", "127.0.0.1", "/hello"))).as(route + ", a 403").isEqualTo("CONNECT_FAILED");
            assertThat(get(route, "proxy-gone", https("trusted", "127.0.0.1", "/hello"))).as(route + ", no proxy").isEqualTo("CONNECT_FAILED");
        }
        assertThat(tunnels.targets()).as("the destinations asked for, one tunnel each, kept alive")
                .contains("127.0.0.1:" + ports.get("trusted"), "localhost:" + ports.get("trusted"), "127.0.0.1:" + ports.get("plain-http"));
        assertThat(threadMismatches).isEmpty();
    }

    @Test
    void bodiesOfMegabytesStreamBothWaysThroughTls() throws IOException {
        byte[] upload = pattern(3 << 20);
        RawResponse up = request("POST /upload?url=" + https("trusted", "127.0.0.1", "/count") + " HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + upload.length + "\r\n\r\n", upload);
        assertThat(up.bodyText()).isEqualTo("200 " + Bodies.summary(new ByteArrayInputStream(upload)));
        RawResponse down = request("GET /download?url=" + https("trusted", "127.0.0.1", "/large/" + (3 << 20)) + " HTTP/1.1\r\nHost: x\r\n\r\n", null);
        assertThat(down.status()).isEqualTo(200);
        assertThat(down.body()).isEqualTo(pattern(3 << 20));
    }

    static Stream<Arguments> handshakes() {
        return Stream.of(
                Arguments.of("a certificate no trust store holds", "jdk", "trusted", "127.0.0.1", "CERTIFICATE_UNTRUSTED"),
                Arguments.of("a trusted certificate for another host", "other", "other", "127.0.0.1", "HOSTNAME_MISMATCH"),
                Arguments.of("the same without the host check", "other-unverified", "other", "127.0.0.1", "200 hello"),
                Arguments.of("a server that never answers the ClientHello", "short", "silent", "127.0.0.1", "TLS_HANDSHAKE_TIMEOUT"),
                Arguments.of("a server that answers in plain HTTP", "trusting", "plain", "127.0.0.1", "TLS_FAILED"),
                Arguments.of("a server that closes at once", "trusting", "closing", "127.0.0.1", "TLS_FAILED"),
                Arguments.of("a client certificate asked for, none given", "trusting", "mutual", "127.0.0.1", "TLS_FAILED"),
                Arguments.of("a client certificate asked for and given", "mutual", "mutual", "127.0.0.1", "200 hello"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("handshakes")
    void aHandshakeEndsAsItMustAndTheCallerServesOn(String name, String client, String server, String host, String outcome)
            throws IOException {
        for (String route : List.of("get", "get-blocking")) {
            assertThat(get(route, client, https(server, host, "/hello"))).as(route).isEqualTo(outcome);
        }
        assertThat(get("get", "trusting", https("trusted", "127.0.0.1", "/hello"))).isEqualTo("200 hello");
        assertThat(threadMismatches).isEmpty();
    }

    /** What a raw TLS server does after its handshake and the request's head. */
    private enum TlsEnding { CLOSE_NOTIFY, TCP_CLOSE, GARBAGE }

    static Stream<Arguments> tlsFaults() {
        String closeDelimited = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\na body the close ends";
        return Stream.of(
                Arguments.of("a body ended by close_notify and the close", closeDelimited, TlsEnding.CLOSE_NOTIFY, "200 a body the close ends"),
                Arguments.of("a body ended by a TCP close without close_notify (maybe cut short)", closeDelimited, TlsEnding.TCP_CLOSE,
                        "CONNECTION_CLOSED"),
                Arguments.of("bytes that are no TLS record after the handshake", "", TlsEnding.GARBAGE, "TLS_FAILED"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tlsFaults")
    void aServerThatEndsTlsBadlyFailsTheRequestAndTheCallerServesOn(String name, String reply, TlsEnding ending, String outcome)
            throws IOException {
        int port = rawTlsServer(accepted -> TestTls.keyStore(), reply, ending);
        for (String route : List.of("get", "get-blocking")) {
            assertThat(get(route, "trusting", URLEncoder.encode("https://127.0.0.1:" + port + "/", StandardCharsets.UTF_8)))
                    .as(route).isEqualTo(outcome);
        }
        assertThat(get("get", "trusting", https("trusted", "127.0.0.1", "/hello"))).isEqualTo("200 hello");
    }

    @Test
    void aCertificateThatChangesOnReconnectIsCheckedAgain() throws IOException {
        // the first connection presents the trusted certificate, every later one another's
        TestTls.KeyPair other = TestTls.keyPair("dns:elsewhere.test");
        int port = rawTlsServer(accepted -> accepted == 1 ? TestTls.keyStore() : other.keyStore(),
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfirst", TlsEnding.CLOSE_NOTIFY);
        String url = URLEncoder.encode("https://127.0.0.1:" + port + "/", StandardCharsets.UTF_8);
        assertThat(get("get", "trusting", url)).isEqualTo("200 first");
        assertThat(get("get", "trusting", url)).as("a new connection, whose session is not resumed with another key")
                .isEqualTo("CERTIFICATE_UNTRUSTED");
    }

    /**
     * A TLS server of its own on a fresh port: each connection gets the key in {@code keyStore}'s
     * store (given the count of connections so far, from 1), reads a request head, answers {@code reply}, then
     * ends as {@code ending} says; returns its port.
     */
    private int rawTlsServer(IntFunction<Path> keyStore, String reply, TlsEnding ending) throws IOException {
        ServerSocket raw = new ServerSocket(0, 50, LOOPBACK);
        resources.add(raw);
        AtomicInteger accepted = new AtomicInteger();
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket plain = raw.accept();
                    SSLContext context = RawSockets.serverContext(keyStore.apply(accepted.incrementAndGet()));
                    Thread.ofVirtual().start(() -> serveRawTls(plain, context, reply, ending));
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return raw.getLocalPort();
    }

    private static void serveRawTls(Socket plain, SSLContext context, String reply, TlsEnding ending) {
        try (plain) {
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, null, plain.getPort(), false);
            tls.setUseClientMode(false);
            tls.startHandshake();
            RawSockets.readHead(tls.getInputStream());
            OutputStream out = tls.getOutputStream();
            out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            switch (ending) {
                case CLOSE_NOTIFY -> tls.close();
                case TCP_CLOSE -> plain.close();
                case GARBAGE -> {
                    plain.getOutputStream().write("this is no TLS record\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    plain.getOutputStream().flush();
                    plain.getInputStream().transferTo(OutputStream.nullOutputStream());
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** A server on a fresh port that reads, then answers {@code reply} once (null: never; "": closes at once); returns its port. */
    private int rawServer(String reply) throws IOException {
        ServerSocket raw = new ServerSocket(0, 50, LOOPBACK);
        resources.add(raw);
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket s = raw.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            if (reply == null) {
                                in.transferTo(OutputStream.nullOutputStream());
                                return;
                            }
                            if (!reply.isEmpty()) {
                                in.read(new byte[512]);
                                out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                                out.flush();
                            }
                        } catch (IOException e) {
                            // the client went away
                        }
                    });
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
        return raw.getLocalPort();
    }
}
