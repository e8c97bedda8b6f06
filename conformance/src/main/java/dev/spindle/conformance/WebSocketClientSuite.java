// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientException;
import dev.spindle.core.Handler;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Spindle's WebSocket client ({@link Client#webSocket}) used by asynchronous handlers of the server
 * under test, talking to another server of the same strategy and to raw servers that answer the
 * handshake wrongly. On an event-loop strategy the loop opens the socket itself, and every callback
 * of the client's endpoint, and the handshake's completion, must run on the handler's own loop
 * thread; elsewhere the client runs on virtual threads. Each strategy module subclasses it.
 */
@Timeout(60)
public abstract class WebSocketClientSuite {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final List<AutoCloseable> resources = new ArrayList<>();
    /** Callbacks or completions that ran on another thread than their handler, though it ran on an event loop. */
    private final Queue<String> threadMismatches = new ConcurrentLinkedQueue<>();
    private Client client;
    /** Trusts the test certificate, for {@code wss:}. */
    private Client trusting;
    private HttpServer downstream;
    private HttpServer secureDownstream;
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
     * Whether the strategy runs handlers on event loops, where the loop drives the client's socket.
     *
     * @return true for the event-loop strategies
     */
    protected abstract boolean handlersOnEventLoop();

    @BeforeEach
    void start() throws IOException {
        client = Client.create();
        resources.add(client);
        trusting = Client.create(ClientConfig.defaults().trustStore(TestTls.localhost().trustStore(), TestTls.PASSWORD.toCharArray()));
        resources.add(trusting);
        downstream = newServer(ServerConfig.defaults().port(0), downstreamRoutes()).start();
        resources.add(downstream::close);
        secureDownstream = newServer(ServerConfig.defaults().port(0).tls(TestTls.serverTls()), downstreamRoutes()).start();
        resources.add(secureDownstream::close);
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
                .websocket("/echo", new WebSocket.Endpoint() {
                    @Override
                    public void onOpen(WebSocket s) {
                        s.sendText("welcome");
                    }

                    @Override
                    public void onText(WebSocket s, String message) {
                        s.sendText(message);
                    }
                })
                .build();
    }

    private Router callerRoutes() {
        return Router.builder()
                // a conversation: the server's welcome, one text sent in onOpen, one from another thread, then our close
                .get("/talk", Handler.async((req, res) -> {
                    Thread handler = Thread.currentThread();
                    CompletableFuture<String> heard = new CompletableFuture<>();
                    List<String> texts = new ArrayList<>();
                    WebSocket.Endpoint endpoint = new WebSocket.Endpoint() {
                        @Override
                        public void onOpen(WebSocket s) {
                            onHandlerThread(handler, "onOpen");
                            s.sendText("one");
                        }

                        @Override
                        public void onText(WebSocket s, String message) {
                            onHandlerThread(handler, "onText");
                            texts.add(message);
                            if (message.equals("one")) {
                                CompletableFuture.runAsync(() -> s.sendText("two"));
                            } else if (message.equals("two")) {
                                s.close(1000, "done");
                            }
                        }

                        @Override
                        public void onClose(WebSocket s, int code, String reason) {
                            onHandlerThread(handler, "onClose");
                            heard.complete(String.join(",", texts) + " | " + code);
                        }
                    };
                    Client c = req.queryParam("trust") != null ? trusting : client;
                    return c.webSocket(req.queryParam("url")).connect(endpoint)
                            .thenCompose(socket -> {
                                onHandlerThread(handler, "the handshake's completion");
                                return heard;
                            })
                            .handle((text, failure) -> {
                                res.text(failure == null ? text : reason(failure));
                                return null;
                            });
                }))
                .get("/open", Handler.async((req, res) -> {
                    Thread handler = Thread.currentThread();
                    return client.webSocket(req.queryParam("url")).connectTimeout(Duration.ofMillis(1000))
                            .connect(new WebSocket.Endpoint() { })
                            .handle((socket, failure) -> {
                                onHandlerThread(handler, "the handshake's failure");
                                if (socket != null) {
                                    socket.close(1000, "");
                                }
                                res.text(failure == null ? "open" : reason(failure));
                                return null;
                            });
                }))
                .build();
    }

    private void onHandlerThread(Thread handler, String what) {
        if (handlersOnEventLoop() && Thread.currentThread() != handler) {
            threadMismatches.add(what + ": " + handler.getName() + " -> " + Thread.currentThread().getName());
        }
    }

    private static String reason(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause instanceof ClientException e ? e.reason().name() : cause.toString();
    }

    private String get(String path) throws IOException {
        try (RawConnection c = new RawConnection(caller.port())) {
            RawResponse r = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            return r.bodyText();
        }
    }

    private static String url(String hostPort, String path) {
        return java.net.URLEncoder.encode("ws://" + hostPort + path, StandardCharsets.UTF_8);
    }

    @Test
    void aHandlerTalksToADownstreamWebSocketAndEveryCallbackRunsOnItsThread() throws IOException {
        for (String host : List.of("127.0.0.1", "localhost")) {
            assertThat(get("/talk?url=" + url(host + ":" + downstream.port(), "/echo")))
                    .as("to %s: the welcome, both echoes, then the close handshake with our code", host)
                    .isEqualTo("welcome,one,two | 1000");
        }
        assertThat(threadMismatches).as("callbacks and completions on the handler's loop thread").isEmpty();
    }

    /** Who answers a failed handshake: nobody (a closed port), the downstream (no such route), or a raw server. */
    private enum Peer { CLOSED_PORT, DOWNSTREAM, RAW }

    @Test
    void anOpenSocketIsCountedInTheClientsPools() throws Exception {
        String destination = "ws://127.0.0.1:" + downstream.port();
        WebSocket socket = client.webSocket(destination + "/echo", new WebSocket.Endpoint() { })
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(client.pools()).contains(new dev.spindle.core.ClientPool(destination, 1, 0, 0));
        socket.close(1000, "done");
        socket.closed().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(client.pools()).noneMatch(p -> p.destination().equals(destination));
    }

    @Test
    void aWssSocketTalksThroughTlsAndAnUntrustedCertificateFailsIt() throws IOException {
        for (String host : List.of("127.0.0.1", "localhost")) {
            assertThat(get("/talk?trust=1&url=" + secureUrl(host + ":" + secureDownstream.port(), "/echo")))
                    .as("to %s over TLS", host).isEqualTo("welcome,one,two | 1000");
        }
        assertThat(get("/talk?url=" + secureUrl("127.0.0.1:" + secureDownstream.port(), "/echo")))
                .as("the JDK's trust store does not hold the test certificate").isEqualTo("CERTIFICATE_UNTRUSTED");
        assertThat(get("/talk?trust=1&url=" + url("127.0.0.1:" + secureDownstream.port(), "/echo")))
                .as("plain ws: to a TLS port: its 400").isEqualTo("HANDSHAKE_FAILED");
        assertThat(threadMismatches).isEmpty();
    }

    private static String secureUrl(String hostPort, String path) {
        return java.net.URLEncoder.encode("wss://" + hostPort + path, StandardCharsets.UTF_8);
    }

    static Stream<Arguments> failedHandshakes() {
        return Stream.of(
                Arguments.of("nothing listens on the port", Peer.CLOSED_PORT, null, "CONNECT_FAILED"),
                Arguments.of("no WebSocket route there (404)", Peer.DOWNSTREAM, null, "HANDSHAKE_FAILED"),
                Arguments.of("the server never answers", Peer.RAW, null, "RESPONSE_TIMEOUT"),
                Arguments.of("the server closes at once", Peer.RAW, "", "CONNECTION_CLOSED"),
                Arguments.of("a 200 instead of a 101", Peer.RAW, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "HANDSHAKE_FAILED"),
                Arguments.of("a 101 without the accept key", Peer.RAW,
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", "HANDSHAKE_FAILED"),
                Arguments.of("no HTTP at all", Peer.RAW, "SSH-2.0-OpenSSH_9.2\r\n\r\n", "MALFORMED_RESPONSE"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failedHandshakes")
    void aFailedHandshakeFailsTheConnectWithItsReasonAndTheLoopServesOn(String name, Peer peer, String reply, String reason)
            throws IOException {
        String target = switch (peer) {
            case CLOSED_PORT -> {
                try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
                    yield url("127.0.0.1:" + s.getLocalPort(), "/");
                }
            }
            case DOWNSTREAM -> url("127.0.0.1:" + downstream.port(), "/nowhere");
            case RAW -> {
                ServerSocket raw = new ServerSocket(0, 50, LOOPBACK);
                resources.add(raw);
                rawServer(raw, reply);
                yield url("127.0.0.1:" + raw.getLocalPort(), "/");
            }
        };
        assertThat(get("/open?url=" + target)).isEqualTo(reason);
        assertThat(get("/talk?url=" + url("127.0.0.1:" + downstream.port(), "/echo")))
                .as("the loop still opens sockets and serves").isEqualTo("welcome,one,two | 1000");
        assertThat(threadMismatches).isEmpty();
    }

    /** Reads each connection's handshake head, then answers {@code reply} (null: never; "": a close). */
    private static void rawServer(ServerSocket raw, String reply) {
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Socket s = raw.accept();
                    Thread.ofVirtual().start(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            RawSockets.readHead(in);
                            if (reply == null) {
                                in.transferTo(OutputStream.nullOutputStream());
                                return;
                            }
                            out.write(reply.getBytes(StandardCharsets.ISO_8859_1));
                            out.flush();
                        } catch (IOException e) {
                            // the client went away
                        }
                    });
                }
            } catch (IOException closed) {
                // the test is over
            }
        });
    }
}
