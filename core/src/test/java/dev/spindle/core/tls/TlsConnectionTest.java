// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.tls;

import dev.spindle.core.ConnectionBytes;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.Tls;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestRoutes;
import dev.spindle.core.testing.TestTls;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The core's TLS layer without sockets: a client {@link SSLEngine} and a server {@link Connection}
 * exchange records through memory, split however a test likes.
 */
class TlsConnectionTest {
    private static final String HOST = "Host: test\r\n";
    private static final Tls serverTls = TestTls.serverTls();
    private static final SSLContext clientContext = TestTls.clientContext();
    /** What {@code Connection.open} offers through ALPN today. */
    private static final List<String> HTTP_1_1 = List.of(Tls.ALPN_HTTP_1_1);

    private static ServerConfig tlsConfig() {
        return ServerConfig.defaults().tls(serverTls);
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\n" + HOST + "\r\n";
    }

    private static String echo(byte[] body) {
        return "POST /echo HTTP/1.1\r\n" + HOST + "Content-Type: application/octet-stream\r\nContent-Length: " + body.length + "\r\n\r\n";
    }

    @Test
    void aRequestOverTlsIsAnsweredAndAlpnPicksHttp11() throws Exception {
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        p.send(get("/plaintext"));
        p.shuttle();
        RawResponse r = single(p.received());
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("Hello, World!");
        assertThat(p.client.getApplicationProtocol()).isEqualTo("http/1.1");
        assertThat(p.server.state()).isEqualTo(Connection.State.IDLE);
        assertThat(p.server.next().reads()).isTrue();
    }

    @Test
    void pipelinedRequestsInOneRecordAreAnsweredInOrder() throws Exception {
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            batch.append(get("/users/" + i));
        }
        p.send(batch.toString());
        p.shuttle();
        List<RawResponse> all = parseAll(p.received());
        assertThat(all).hasSize(64);
        for (int i = 0; i < 64; i++) {
            assertThat(all.get(i).bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
        }
    }

    /** Records cut at every size from one byte up, both ways, and writes the socket takes only partly. */
    @ParameterizedTest
    @ValueSource(ints = {1, 7, 100, 1000, 16_384, 100_000})
    void aLargeEchoSurvivesRecordsSplitAtAnySize(int chunk) throws Exception {
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        p.chunk = chunk;
        byte[] body = new byte[Math.min(300_000, chunk * 5_000)];
        new Random(chunk).nextBytes(body);
        p.send(echo(body).getBytes(StandardCharsets.ISO_8859_1));
        p.send(body);
        p.send(get("/plaintext"));
        p.shuttle();
        List<RawResponse> all = parseAll(p.received());
        assertThat(all).hasSize(2);
        assertThat(all.get(0).status()).isEqualTo(200);
        assertThat(Arrays.equals(all.get(0).body(), body)).as("echoed body intact").isTrue();
        assertThat(all.get(1).bodyText()).isEqualTo("Hello, World!");
    }

    @Test
    void aBlockingHandlerAnswersThroughTlsWhenResumed() throws Exception {
        Queue<Runnable> tasks = new ArrayDeque<>();
        Executor manual = tasks::add;
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig(), manual, () -> { }));
        p.send(get("/blocking/0"));
        p.shuttle();
        assertThat(p.received()).isEmpty();
        assertThat(tasks).hasSize(1);
        tasks.poll().run();
        p.server.resume();
        p.shuttle();
        assertThat(single(p.received()).status()).isEqualTo(200);
    }

    @Test
    void connectionCloseEndsWithCloseNotify() throws Exception {
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        p.send("GET /plaintext HTTP/1.1\r\n" + HOST + "Connection: close\r\n\r\n");
        p.shuttle();
        RawResponse r = single(p.received());
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(p.client.isInboundDone()).as("the client got close_notify").isTrue();
        assertThat(p.server.next()).isEqualTo(Next.LINGER);
        p.server.endOfInput();
        assertThat(p.server.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void thePeersCloseNotifyEndsTheConnectionAfterItsAnswer() throws Exception {
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        p.shuttle();
        p.send(get("/plaintext"));
        p.keepClientRecords(p.clientRecords());
        p.client.closeOutbound();
        p.shuttle();
        assertThat(single(p.received()).status()).isEqualTo(200);
        assertThat(p.server.next().reads()).isFalse();
        assertThat(p.server.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void plainHttpOnTheTlsPortIsAnswered400InPlainText() {
        Connection c = new TlsConnection(new HttpConnection(TestRoutes.routes(), tlsConfig()), tlsConfig(), HTTP_1_1);
        c.received(ByteBuffer.wrap(get("/plaintext").getBytes(StandardCharsets.ISO_8859_1)));
        RawResponse r = single(ConnectionBytes.drain(c));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.bodyText()).contains("HTTPS");
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(c.next()).isEqualTo(Next.LINGER);
    }

    @Test
    void bytesThatAreNeitherTlsNorHttpEndTheConnection() {
        Connection c = new TlsConnection(new HttpConnection(TestRoutes.routes(), tlsConfig()), tlsConfig(), HTTP_1_1);
        byte[] junk = new byte[64];
        new Random(1).nextBytes(junk);
        junk[0] = 22;
        junk[1] = 9;
        c.received(ByteBuffer.wrap(junk));
        ConnectionBytes.drain(c);
        assertThat(c.next().reads()).isFalse();
        assertThat(c.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void aHandshakeThatStallsIsDroppedAfterTheHeaderTimeout() throws Exception {
        ServerConfig config = tlsConfig().headerTimeout(Duration.ofSeconds(1));
        Peer p = new Peer(new HttpConnection(TestRoutes.routes(), config));
        p.send(get("/plaintext"));
        ByteBuffer hello = p.clientRecords();
        p.server.received(hello.limit(hello.position() + 20));
        long t = System.nanoTime();
        p.server.tick(t);
        assertThat(p.server.next()).isNotEqualTo(Next.CLOSE);
        assertThat(p.server.nanosToTick(t)).isLessThanOrEqualTo(Duration.ofSeconds(1).toNanos());
        p.server.tick(t + Duration.ofMillis(1100).toNanos());
        assertThat(p.server.next()).isEqualTo(Next.CLOSE);
    }

    @Test
    void aRefusedConnectionSendsItsAnswerOverTls() throws Exception {
        Peer p = new Peer(HttpConnection.rejecting(tlsConfig(), 503, "too many connections"));
        assertThat(p.server.next().writes()).as("nothing before the handshake").isFalse();
        p.shuttle();
        RawResponse r = single(p.received());
        assertThat(r.status()).isEqualTo(503);
        assertThat(p.client.isInboundDone()).isTrue();
    }

    @Test
    void aRefusedConnectionAnswersAPlainRequestInPlainText() {
        Connection c = new TlsConnection(HttpConnection.rejecting(tlsConfig(), 503, "too many connections"), tlsConfig(), HTTP_1_1);
        c.received(ByteBuffer.wrap(get("/plaintext").getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(single(ConnectionBytes.drain(c)).status()).isEqualTo(503);
    }

    @Test
    void parametersRestrictTheProtocolsOfEveryConnection() throws Exception {
        ServerConfig only13 = ServerConfig.defaults().tls(serverTls.parameters(p -> p.setProtocols(new String[] {"TLSv1.3"})));
        Peer ok = new Peer(new HttpConnection(TestRoutes.routes(), only13));
        ok.send(get("/plaintext"));
        ok.shuttle();
        assertThat(single(ok.received()).status()).isEqualTo(200);
        assertThat(ok.client.getSession().getProtocol()).isEqualTo("TLSv1.3");

        Peer old = new Peer(new HttpConnection(TestRoutes.routes(), only13), "TLSv1.2");
        old.send(get("/plaintext"));
        assertThatThrownBy(old::shuttle).isInstanceOf(SSLException.class);
        assertThat(old.received()).isEmpty();
        assertThat((old.server.next() == Next.CLOSE) || (old.server.next() == Next.LINGER)).as("the server gives up on it").isTrue();
    }

    /**
     * ALPN: the server's protocols (most preferred first), the client's offer (null: no ALPN
     * extension), its TLS version (null: the defaults), and the protocol the inner connection must
     * be told (null: none negotiated, which is HTTP/1.1).
     */
    static Stream<Arguments> alpnCases() {
        List<String> h2First = List.of("h2", "http/1.1");
        return Stream.of(
                Arguments.of(HTTP_1_1, List.of("h2", "http/1.1"), null, "http/1.1"),
                Arguments.of(HTTP_1_1, List.of("h2", "http/1.1"), "TLSv1.2", "http/1.1"),
                Arguments.of(HTTP_1_1, null, null, null),
                Arguments.of(HTTP_1_1, null, "TLSv1.2", null),
                Arguments.of(h2First, List.of("http/1.1", "h2"), null, "h2"),
                Arguments.of(h2First, List.of("http/1.1", "h2"), "TLSv1.2", "h2"),
                Arguments.of(h2First, List.of("http/1.1"), null, "http/1.1"),
                Arguments.of(h2First, List.of("spdy/3", "http/1.1"), null, "http/1.1"),
                Arguments.of(h2First, null, null, null));
    }

    /**
     * The server picks the first of its own protocols the client offers and tells the inner
     * connection once, when the handshake completes (on an unwrap in TLS 1.3; in TLS 1.2 the
     * server's Finished goes last, on a wrap), before any request byte reaches it; where the
     * choice is HTTP/1.1 or nothing, a request is answered.
     */
    @ParameterizedTest
    @MethodSource("alpnCases")
    void alpnPicksTheServersFirstProtocolTheClientOffersAndTellsTheInnerConnectionOnce(
            List<String> server, List<String> client, String tlsVersion, String expected) throws Exception {
        RecordingConnection inner = new RecordingConnection(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        Peer p = new Peer(new TlsConnection(inner, tlsConfig(), server), tlsVersion, client);
        boolean speaksHttp11 = expected == null || expected.equals("http/1.1");
        if (speaksHttp11) {
            // sent with the client's Finished where the TLS version lets it (1.3): the protocol must still come first
            p.send(get("/plaintext"));
        }
        p.shuttle();
        assertThat(p.client.getApplicationProtocol()).as("the client's view").isEqualTo(expected == null ? "" : expected);
        assertThat(inner.protocols).as("told once").containsExactly(expected);
        assertThat(inner.events.getFirst()).as("told before any plaintext").isEqualTo("protocol " + expected);
        if (speaksHttp11) {
            assertThat(inner.events).hasSizeGreaterThan(1);
            assertThat(single(p.received()).bodyText()).isEqualTo("Hello, World!");
            p.send(get("/plaintext"));
            p.shuttle();
            assertThat(single(p.received()).status()).isEqualTo(200);
            assertThat(inner.protocols).as("still told once").hasSize(1);
        }
    }

    /**
     * What {@link Connection#open} offers: h2 first, then HTTP/1.1. A client preferring h2 gets it,
     * and its preface and request are answered in HTTP/2 frames (the server's SETTINGS first, then
     * HEADERS on stream 1); a client offering HTTP/1.1 alone still gets HTTP/1.1.
     */
    @Test
    void connectionOpenOffersH2ThenHttp11() throws Exception {
        Peer h2 = new Peer(Connection.open(TestRoutes.routes(), tlsConfig()), null, List.of("h2", "http/1.1"));
        byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        h2.send(preface);
        h2.send(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
        // HEADERS, END_STREAM | END_HEADERS, stream 1: :method GET, :scheme https, :path /plaintext (static table 2, 7, and a literal)
        byte[] block = {(byte) 0x82, (byte) 0x87, 0x04, 0x0a, '/', 'p', 'l', 'a', 'i', 'n', 't', 'e', 'x', 't'};
        h2.send(new byte[] {0, 0, (byte) block.length, 1, 5, 0, 0, 0, 1});
        h2.send(block);
        h2.shuttle();
        assertThat(h2.client.getApplicationProtocol()).isEqualTo("h2");
        byte[] answer = h2.plaintext.toByteArray();
        assertThat(answer[3]).as("the server's first frame is SETTINGS").isEqualTo((byte) 4);
        assertThat(new String(answer, StandardCharsets.ISO_8859_1)).as("the body in a DATA frame").contains("Hello, World!");

        Peer h1 = new Peer(Connection.open(TestRoutes.routes(), tlsConfig()), null, List.of("http/1.1"));
        h1.send(get("/plaintext"));
        h1.shuttle();
        assertThat(h1.client.getApplicationProtocol()).isEqualTo("http/1.1");
        assertThat(single(h1.received()).status()).isEqualTo(200);
    }

    /**
     * A client offering ALPN but none of the server's protocols gets the fatal
     * {@code no_application_protocol} alert (RFC 7301 3.2), and the inner connection is told nothing
     * and receives nothing.
     */
    @Test
    void aClientOfferingNoneOfTheServersProtocolsGetsNoApplicationProtocol() throws Exception {
        RecordingConnection inner = new RecordingConnection(new HttpConnection(TestRoutes.routes(), tlsConfig()));
        Peer p = new Peer(new TlsConnection(inner, tlsConfig(), HTTP_1_1), null, List.of("h2"));
        p.send(get("/plaintext"));
        assertThatThrownBy(p::shuttle).isInstanceOf(SSLException.class).hasMessageContaining("no_application_protocol");
        assertThat(p.received()).isEmpty();
        assertThat(inner.events).isEmpty();
        assertThat(p.server.next().reads()).isFalse();
        assertThat(p.server.next().writes()).isFalse();
    }

    private static RawResponse single(byte[] bytes) {
        List<RawResponse> all = parseAll(bytes);
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    /** A TLS client in memory, talking to a server connection; {@link #chunk} bytes move per step each way. */
    private static final class Peer {
        final SSLEngine client;
        final Connection server;
        int chunk = Integer.MAX_VALUE;
        private final ByteArrayOutputStream pendingPlain = new ByteArrayOutputStream();
        private ByteBuffer toServer = ByteBuffer.allocate(0);
        private ByteBuffer toClient = ByteBuffer.allocate(0);
        private final ByteArrayOutputStream plaintext = new ByteArrayOutputStream();

        Peer(Connection server) throws SSLException {
            this(server, null);
        }

        /** A client offering only {@code protocol}, or the defaults with null. */
        Peer(Connection server, String protocol) throws SSLException {
            this(server, protocol, List.of("h2", "http/1.1"));
        }

        /** As {@link #Peer(Connection, String)}, offering {@code alpn} through ALPN, or sending no ALPN extension with null. */
        Peer(Connection server, String protocol, List<String> alpn) throws SSLException {
            this.server = server instanceof HttpConnection http ? new TlsConnection(http, http.config(), HTTP_1_1) : server;
            client = clientContext.createSSLEngine("localhost", 443);
            client.setUseClientMode(true);
            SSLParameters params = client.getSSLParameters();
            if (protocol != null) {
                params.setProtocols(new String[] {protocol});
            }
            if (alpn != null) {
                params.setApplicationProtocols(alpn.toArray(String[]::new));
            }
            client.setSSLParameters(params);
            client.beginHandshake();
        }

        void send(String ascii) {
            send(ascii.getBytes(StandardCharsets.ISO_8859_1));
        }

        void send(byte[] bytes) {
            pendingPlain.writeBytes(bytes);
        }

        /** Everything the client has to send, wrapped into records (handshake first), after what was kept. */
        ByteBuffer clientRecords() throws SSLException {
            ByteBuffer src = ByteBuffer.wrap(pendingPlain.toByteArray());
            pendingPlain.reset();
            ByteBuffer net = ByteBuffer.allocate(toServer.remaining() + src.remaining() * 2 + 65_536);
            net.put(toServer);
            while (true) {
                runTasks();
                SSLEngineResult.HandshakeStatus hs = client.getHandshakeStatus();
                if (hs == SSLEngineResult.HandshakeStatus.NEED_UNWRAP
                        || hs != SSLEngineResult.HandshakeStatus.NEED_WRAP && !src.hasRemaining()) {
                    break;
                }
                if (net.remaining() < 20_000) {
                    net = ByteBuffer.allocate(net.capacity() * 2).put(net.flip());
                }
                SSLEngineResult r = client.wrap(src, net);
                if (r.bytesProduced() == 0 && r.bytesConsumed() == 0) {
                    break;
                }
            }
            pendingPlain.write(src.array(), src.position(), src.remaining());
            return net.flip();
        }

        void keepClientRecords(ByteBuffer rest) {
            toServer = ByteBuffer.allocate(rest.remaining()).put(rest).flip();
        }

        /** Moves what the server has to send to the client's side. */
        void flushServer() {
            while (server.next().writes()) {
                ByteBuffer out = server.outbound();
                int n = Math.min(out.remaining(), chunk);
                byte[] copy = new byte[n];
                out.get(out.position(), copy);
                server.written(n);
                ByteBuffer joined = ByteBuffer.allocate(toClient.remaining() + n);
                toClient = joined.put(toClient).put(copy).flip();
            }
        }

        /** Moves records both ways until neither side has anything to say. */
        void shuttle() throws SSLException {
            for (int round = 0; round < 1_000_000; round++) {
                boolean moved = false;
                ByteBuffer records = clientRecords();
                if (records.hasRemaining() && !(server.next() == Next.CLOSE)) {
                    int n = Math.min(records.remaining(), chunk);
                    ByteBuffer part = records.slice(records.position(), n);
                    records.position(records.position() + n);
                    server.received(part);
                    moved = true;
                }
                keepClientRecords(records);
                int before = toClient.remaining();
                flushServer();
                moved |= toClient.remaining() != before;
                moved |= clientReads();
                if (!moved && !toServer.hasRemaining()) {
                    return;
                }
            }
            throw new AssertionError("no quiescence");
        }

        private boolean clientReads() throws SSLException {
            boolean any = false;
            ByteBuffer app = ByteBuffer.allocate(client.getSession().getApplicationBufferSize());
            while (toClient.hasRemaining() && !client.isInboundDone()) {
                SSLEngineResult r = client.unwrap(toClient, app.clear());
                runTasks();
                plaintext.write(app.array(), 0, app.position());
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW || r.bytesConsumed() == 0) {
                    break;
                }
                any = true;
            }
            return any;
        }

        private void runTasks() {
            for (Runnable t = client.getDelegatedTask(); t != null; t = client.getDelegatedTask()) {
                t.run();
            }
        }

        byte[] received() {
            byte[] all = plaintext.toByteArray();
            plaintext.reset();
            return all;
        }
    }
}
