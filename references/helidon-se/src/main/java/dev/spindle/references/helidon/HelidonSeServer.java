// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.helidon;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.ReferenceLauncher;
import dev.spindle.references.support.RemoteDownstream;
import io.helidon.common.configurable.Resource;
import io.helidon.common.socket.SocketOptions;
import io.helidon.common.tls.Tls;
import io.helidon.webclient.api.WebClient;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http2.Http2Config;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The benchmark app on the Helidon 4 SE webserver, in the style of Helidon's SE guides:
 * {@link WebServer#builder()} with an {@code HttpRouting} and the routes in one {@code HttpService}
 * ({@link BenchmarkRoutes}). Helidon 4 accepts on a platform thread per listener and serves every
 * connection, and every request, on a virtual thread; the handlers are plain blocking code. The
 * remote routes call the downstream named by {@code -Dspindle.remote} (read at start) with
 * Helidon's {@link WebClient}; {@code /remote-tls/{ms}} calls {@code -Dspindle.remoteTls} with a
 * second one over HTTPS (its {@link Tls} trusting the PKCS12 store of {@code -Dspindle.client.trustStore},
 * else the JDK's default trust), {@code /remote-h2/{ms}} the same downstream with a third that
 * speaks HTTP/2 ({@code helidon-webclient-http2}, h2 chosen by ALPN). HTTP/2 (h2c, by the preface or {@code Upgrade: h2c}) comes from
 * {@code helidon-webserver-http2} on the same listener and routing; the server has no TLS mode.
 *
 * <p>Launcher: {@code HelidonSeServer <port> [workers]}. {@code workers} is accepted and ignored,
 * as for {@code VirtualThreadServer}: Helidon 4 has no worker pool, and the virtual threads run on
 * the JDK's carrier threads, one per core ({@code -Djdk.virtualThreadScheduler.parallelism} tunes
 * them). {@code -Dspindle.host} sets the address (127.0.0.1).
 */
public final class HelidonSeServer implements AutoCloseable {
    /** Idle keep-alive connections the client keeps to the downstream: the matrix's 1,000 concurrent calls fit. */
    private static final int DOWNSTREAM_CONNECTIONS = 4096;
    /** SETTINGS_MAX_CONCURRENT_STREAMS of an HTTP/2 connection: Spindle's default, so the h2 scenarios load both alike. */
    private static final long MAX_CONCURRENT_STREAMS = 128;
    /** The protocol ids of Helidon's client (ALPN names): HTTP/1.1, and HTTP/2 over TLS. */
    private static final String HTTP_1_1 = "http/1.1";
    private static final String H2 = "h2";
    private final String host;
    private final int requestedPort;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private WebServer server;
    private WebClient client;
    private WebClient tlsClient;
    private WebClient h2Client;

    /**
     * A server not yet started.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     */
    public HelidonSeServer(String host, int port) {
        this.host = host;
        this.requestedPort = port;
    }

    /**
     * Binds and starts serving.
     *
     * @return this server
     * @throws IOException if it could not bind (Helidon logs the failure and returns a stopped server)
     */
    public HelidonSeServer start() throws IOException {
        // its own cache of keep-alive connections, as large as the benchmark's concurrency (the
        // shared default keeps 256 and closes the others after each call); HTTP/1.1 only, as the
        // downstream is called (with helidon-webclient-http2 present it would otherwise ask to upgrade to h2c)
        client = WebClient.builder()
                .shareConnectionCache(false)
                .connectionCacheSize(DOWNSTREAM_CONNECTIONS)
                .addProtocolPreference(HTTP_1_1)
                .build();
        // /remote-tls's: the same over HTTPS (ALPN offers http/1.1 only); /remote-h2's: HTTP/2 by ALPN
        // ("h2" only), each HTTP/2 connection carrying as many streams as the downstream allows
        Tls tls = downstreamTls();
        tlsClient = WebClient.builder()
                .shareConnectionCache(false)
                .connectionCacheSize(DOWNSTREAM_CONNECTIONS)
                .tls(tls)
                .addProtocolPreference(HTTP_1_1)
                .build();
        h2Client = WebClient.builder()
                .shareConnectionCache(false)
                .connectionCacheSize(DOWNSTREAM_CONNECTIONS)
                .tls(tls)
                .addProtocolPreference(H2)
                .build();
        RemoteDownstream tlsDownstream = RemoteDownstream.fromSystemProperties(RemoteDownstream.TLS_PROPERTY);
        BenchmarkRoutes routes = new BenchmarkRoutes(
                new BenchmarkRoutes.Remote(RemoteDownstream.fromSystemProperties(), client, RemoteDownstream.unconfiguredMessage()),
                new BenchmarkRoutes.Remote(tlsDownstream, tlsClient, RemoteDownstream.unconfiguredTlsMessage()),
                new BenchmarkRoutes.Remote(tlsDownstream, h2Client, RemoteDownstream.unconfiguredTlsMessage()));
        server = WebServer.builder()
                .host(host)
                .port(requestedPort)
                // the benchmark contract's limits (Spindle's defaults): a 16 MiB body (413 beyond),
                // an 8 KiB request line, a 32 KiB header section
                .maxPayloadSize(BenchmarkRoutes.MAX_BODY_SIZE)
                .addProtocol(Http1Config.builder()
                        .maxPrologueLength(BenchmarkRoutes.MAX_REQUEST_LINE)
                        .maxHeadersSize(BenchmarkRoutes.MAX_HEADER_SIZE)
                        .build())
                // HTTP/2 on the same listener, as helidon-webserver-http2 adds it: a connection opening with
                // the preface, or asking "Upgrade: h2c", is served in HTTP/2 by the same routing, a virtual
                // thread per stream; 128 streams per connection, as Spindle allows (Helidon's default is 8192)
                .addProtocol(Http2Config.builder()
                        .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                        .build())
                // stopping lets requests in flight finish, up to the benchmark's longest wait (Helidon's
                // default grace is half a second); the launcher and the tests stop it themselves
                .shutdownGracePeriod(Duration.ofMillis(BenchmarkLimits.MAX_BLOCKING_MS))
                // TCP_NODELAY, as Netty, Vert.x and Spindle's servers set it: Helidon leaves Nagle on by
                // default (tcp-no-delay false). A 10 KB echo leaves Helidon in more than one write (headers,
                // then body); Nagle holds the second until the first segment is ACKed, and the client (wrk,
                // with nothing to send) delays that ACK by its 40 ms timer: the echo-10KB row measured
                // ~44 ms per request at every percentile (1,453 req/s on 64 connections) against ~118k req/s
                // on echo-72B, whose response leaves in one write.
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .shutdownHook(false)
                .routing(routes::register)
                .build()
                .start();
        if (!server.isRunning()) {
            closeClients();
            throw new IOException("cannot bind " + host + ":" + requestedPort);
        }
        return this;
    }

    /** @return the bound port */
    public int port() {
        return server.port();
    }

    /** Stops the listener and its connections; idempotent. */
    @Override
    public synchronized void close() {
        if (terminated.getCount() == 0) {
            return;
        }
        if (server != null) {
            server.stop();
        }
        closeClients();
        terminated.countDown();
    }

    private void closeClients() {
        for (WebClient c : List.of(client, tlsClient, h2Client)) {
            c.closeResource();
        }
    }

    /**
     * The TLS of the TLS downstream's clients: trusting the PKCS12 store {@code -Dspindle.client.trustStore}
     * names (its password {@code -Dspindle.client.trustStorePassword}), as Helidon's {@code Keys} load
     * a trust store; the JDK's default trust when it is unset.
     */
    private static Tls downstreamTls() {
        String store = System.getProperty(RemoteDownstream.TRUST_STORE_PROPERTY);
        if (store == null || store.isBlank()) {
            return Tls.builder().build();
        }
        String password = System.getProperty(RemoteDownstream.TRUST_STORE_PASSWORD_PROPERTY, "");
        return Tls.builder()
                .trust(keys -> keys.keystore(k -> k.trustStore(true)
                        .type("PKCS12")
                        .keystore(Resource.create(Path.of(store.trim())))
                        .passphrase(password)))
                .build();
    }

    /**
     * Waits until {@link #close()} has finished.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * {@code <port> [workers]}: serves until SIGTERM/SIGINT; usage and exit 2 on bad arguments, exit
     * 1 when it cannot start.
     *
     * @param args the port (0 picks a free one) and, optionally, a worker count (ignored)
     */
    public static void main(String[] args) {
        ReferenceLauncher.run("HelidonSeServer", HelidonSeServer.class, args, 1, "accepted and ignored: a virtual thread per request",
                (host, port, workers) -> {
                    HelidonSeServer server = new HelidonSeServer(host, port);
                    server.start();
                    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "helidon-shutdown"));
                    return ReferenceLauncher.Started.of(server.port(), server::awaitTermination);
                });
    }
}
