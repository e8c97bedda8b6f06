package dev.spindle.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** What the conformance suite does not cover: transport choice, limits from the config, draining on close. */
@Timeout(60)
class NettyServerTest {
    private static final String PLAINTEXT = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    private static HttpServer start(ServerConfig config) throws IOException {
        return new NettyServer(config, BenchmarkApp.routes(), NettyTransport.NIO).start();
    }

    private static ServerConfig config() {
        return ServerConfig.defaults().port(0).workers(1);
    }

    @ParameterizedTest
    @CsvSource({"nio,NIO", "NIO,NIO", "epoll,EPOLL", "io_uring,IO_URING", "iouring,IO_URING", "io-uring,IO_URING", " Epoll ,EPOLL"})
    void transportNames(String name, NettyTransport expected) {
        assertThat(NettyTransport.of(name)).isEqualTo(expected);
    }

    @Test
    void unknownTransportIsRejectedWithTheProperty() {
        assertThatThrownBy(() -> NettyTransport.of("kqueue"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-Dspindle.netty.transport");
    }

    @Test
    void bestTransportIsTheFastestAvailable() {
        NettyTransport best = NettyTransport.best();
        assertThat(best.isAvailable()).isTrue();
        if (NettyTransport.IO_URING.isAvailable()) {
            assertThat(best).isEqualTo(NettyTransport.IO_URING);
        } else if (NettyTransport.EPOLL.isAvailable()) {
            assertThat(best).isEqualTo(NettyTransport.EPOLL);
        }
        String saved = System.getProperty(NettyTransport.PROPERTY);
        try {
            System.clearProperty(NettyTransport.PROPERTY);
            assertThat(NettyTransport.fromSystemProperty()).isEqualTo(best);
            System.setProperty(NettyTransport.PROPERTY, "nio");
            assertThat(new NettyServer(config(), BenchmarkApp.routes()).transport()).isEqualTo(NettyTransport.NIO);
        } finally {
            if (saved == null) {
                System.clearProperty(NettyTransport.PROPERTY);
            } else {
                System.setProperty(NettyTransport.PROPERTY, saved);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "/users/1, /users/1",
        "http://example.com/users/1?x=2, /users/1?x=2",
        "http://example.com, /",
        "http://example.com?q=a, /?q=a",
        "*, *"})
    void targetsAreReducedToOriginForm(String target, String expected) {
        assertThat(RouterHandler.originForm(target)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "GET|/users/a%20b|",
        "GET|http://example.com/users/1?x=%41|",
        "OPTIONS|*|",
        "CONNECT|example.com:443|",
        "GET|/users/%zz|malformed percent-escape in request target",
        "GET|/users/ab%|malformed percent-escape in request target",
        "GET|/search?q=%4|malformed percent-escape in request target",
        "GET|/a#b|invalid character in request target",
        "GET|*|asterisk-form request target is only for OPTIONS",
        "GET|example.com:80|request target is neither origin-form nor absolute-form",
        "CONNECT|example.com|CONNECT needs an authority-form request target (host:port)",
        "CONNECT|/|CONNECT needs an authority-form request target (host:port)"})
    void requestTargetsFollowRfc9112(String method, String target, String problem) {
        assertThat(RequestChecks.targetProblem(io.netty.handler.codec.http.HttpMethod.valueOf(method), target)).isEqualTo(problem);
        assertThat(RequestChecks.targetProblem(io.netty.handler.codec.http.HttpMethod.GET, "/a\u0001b"))
                .isEqualTo("invalid character in request target");
    }

    @ParameterizedTest
    @EnumSource(NettyTransport.class)
    void everyAvailableTransportServesAndClosesCleanly(NettyTransport transport) throws Exception {
        if (!transport.isAvailable()) {
            return;
        }
        HttpServer server = new NettyServer(config(), BenchmarkApp.routes(), transport).start();
        int port = server.port();
        try (server; RawConnection c = new RawConnection(port)) {
            assertThat(c.send(PLAINTEXT).read().bodyText()).isEqualTo("Hello, World!");
        }
        assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 1000))
                .isInstanceOf(ConnectException.class);
    }

    @Test
    void absoluteFormTargetsAreRouted() throws Exception {
        try (HttpServer server = start(config()); RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send("GET http://x/users/7 HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("{\"id\":\"7\"}");
        }
    }

    /**
     * Kept under 128 in flight: Netty 4.2's {@code HttpServerCodec} refuses to decode more than
     * {@code maxPipelineDepth} (128) requests whose responses are still owed and closes the
     * connection; behind a blocking route that can be reached, depending on how reads split.
     */
    @Test
    void pipelinedRequestsBehindBlockingOnesStayInOrder() throws Exception {
        StringBuilder all = new StringBuilder("GET /blocking/50 HTTP/1.1\r\nHost: x\r\n\r\n");
        for (int i = 0; i < 120; i++) {
            all.append("GET /users/").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
            if (i % 40 == 0) {
                all.append("GET /blocking/").append(i % 7).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
            }
        }
        try (HttpServer server = start(config().workers(2)); RawConnection c = new RawConnection(server.port())) {
            c.send(all.toString());
            assertThat(c.read().bodyText()).isEqualTo("{\"slept\":50}");
            for (int i = 0; i < 120; i++) {
                assertThat(c.read().bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
                if (i % 40 == 0) {
                    assertThat(c.read().bodyText()).isEqualTo("{\"slept\":" + (i % 7) + "}");
                }
            }
            assertThat(c.send(PLAINTEXT).read().bodyText()).isEqualTo("Hello, World!");
        }
    }

    @Test
    void aClosingRequestAfterABlockingOneDropsWhatFollows() throws Exception {
        try (HttpServer server = start(config()); RawConnection c = new RawConnection(server.port())) {
            c.send("GET /blocking/30 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + PLAINTEXT);
            assertThat(c.read().bodyText()).isEqualTo("{\"slept\":30}");
            RawResponse last = c.read();
            assertThat(last.bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
            assertThat(last.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "GET /plaintext HTTP/1.1\\r\\nHost: x\\r\\nHost: y\\r\\n\\r\\n|400",
        "POST /echo HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n|400",
        "POST /echo HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked, gzip\\r\\n\\r\\n0\\r\\n\\r\\n|400",
        "POST /echo HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: chunked\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n|400",
        "POST /echo HTTP/1.1\\r\\nHost: x\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n0\\r\\n\\r\\n|501",
        "CONNECT / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n|400"})
    void framingNettyLeavesToTheApplicationIsChecked(String raw, int status) throws Exception {
        try (HttpServer server = start(config()); RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send(raw.replace("\\r\\n", "\r\n")).read();
            assertThat(r.status()).isEqualTo(status);
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void keepAliveOffClosesEveryConnection() throws Exception {
        try (HttpServer server = start(config().keepAlive(false)); RawConnection c = new RawConnection(server.port())) {
            RawResponse r = c.send(PLAINTEXT + PLAINTEXT).read();
            assertThat(r.closes()).isTrue();
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void headerCountAndLineLimitsComeFromTheConfig() throws Exception {
        try (HttpServer server = start(config().maxHeaderCount(3).maxRequestLineLength(64))) {
            try (RawConnection c = new RawConnection(server.port())) {
                assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n").read().status()).isEqualTo(200);
                assertThat(c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n").read().status()).isEqualTo(431);
            }
            try (RawConnection c = new RawConnection(server.port())) {
                RawResponse r = c.send("GET /" + "a".repeat(80) + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(414);
                assertThat(r.header("server")).isEqualTo("spindle");
                assertThat(r.header("date")).endsWith(" GMT");
            }
        }
    }

    @Test
    void connectionsBeyondTheLimitGet503() throws Exception {
        try (HttpServer server = start(config().maxConnections(1)); RawConnection first = new RawConnection(server.port())) {
            assertThat(first.send(PLAINTEXT).read().status()).isEqualTo(200);
            try (RawConnection second = new RawConnection(server.port())) {
                RawResponse r = second.send(PLAINTEXT).read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(second.closedByPeer()).isTrue();
            }
            assertThat(first.send(PLAINTEXT).read().status()).isEqualTo(200);
        }
    }

    @Test
    void closeLetsABlockingRequestFinishAndStopsAccepting() throws Exception {
        HttpServer server = start(config().drainTimeout(Duration.ofSeconds(5)));
        int port = server.port();
        try (RawConnection c = new RawConnection(port)) {
            c.send("GET /blocking/400 HTTP/1.1\r\nHost: x\r\n\r\n");
            Thread.sleep(100);
            long t0 = System.nanoTime();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            RawResponse r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("{\"slept\":400}");
            assertThat(r.closes()).as("a draining server closes after the in-flight response").isTrue();
            closing.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        }
        server.awaitTermination();
        assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 1000))
                .isInstanceOf(ConnectException.class);
    }

    @Test
    void closeIsBoundedByTheDrainTimeout() throws Exception {
        HttpServer server = start(config().drainTimeout(Duration.ofMillis(300)));
        try (RawConnection c = new RawConnection(server.port())) {
            c.send("GET /blocking/5000 HTTP/1.1\r\nHost: x\r\n\r\n");
            Thread.sleep(100);
            long t0 = System.nanoTime();
            server.close();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
            assertThat(c.closedByPeer()).isTrue();
        }
        server.close();
    }

    @Test
    void aTakenPortFailsTheStart() throws Exception {
        try (HttpServer first = start(config())) {
            NettyServer second = new NettyServer(config().port(first.port()), BenchmarkApp.routes(), NettyTransport.NIO);
            assertThatThrownBy(second::start).isInstanceOf(IOException.class);
            second.close();
        }
    }
}
