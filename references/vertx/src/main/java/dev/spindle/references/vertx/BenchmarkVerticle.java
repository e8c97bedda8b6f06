// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.vertx;

import static dev.spindle.references.support.BenchmarkLimits.MAX_BLOCKING_MS;
import static dev.spindle.references.support.BenchmarkLimits.MAX_DELAY_MS;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.Fixtures;
import dev.spindle.references.support.HttpDate;
import dev.spindle.references.support.RemoteDownstream;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PfxOptions;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of the benchmark app: an {@link HttpServer} with a Vert.x Web {@link Router},
 * deployed once per event loop. Every instance listens on the same port, and Vert.x shares one
 * listening socket among them, handing each accepted connection to one instance's event loop.
 *
 * <p>Handlers run on the instance's event loop and must not block it: {@code /delay} answers from
 * a Vert.x timer, {@code /remote} through Vert.x's {@link WebClient} ({@code /remote-tls} through a
 * second one over HTTPS, {@code /remote-h2} a third over HTTP/2 by ALPN, both to
 * {@code -Dspindle.remoteTls}), and the two blocking routes
 * ({@code /blocking}'s sleep, {@code /remote-blocking}'s JDK {@code HttpClient.send}) are
 * {@link Route#blockingHandler blocking handlers}, which Vert.x runs on its shared worker pool
 * (see {@link VertxServer} for its size). Vert.x serves a connection's pipelined requests one
 * after the other, so answers leave in request order whatever the route.
 *
 * <p>Bodies are pre-encoded buffers and JSON is assembled by hand, as Spindle's app sends the same
 * pre-encoded bytes. Vert.x adds no {@code Date}: each instance keeps one, refreshed every second
 * by a periodic timer on its loop, and stamps it with {@code Server: spindle} on every answer.
 *
 * <p>The WebSocket and event-stream routes ({@code /ws/echo}, {@code /ws/broadcast},
 * {@code /sse/broadcast}, {@code /sse/publish}) are {@link LiveRoutes}, one instance shared by all
 * instances of the verticle, routed after the rest.
 */
final class BenchmarkVerticle extends VerticleBase {
    private static final Logger log = LoggerFactory.getLogger(BenchmarkVerticle.class);
    /** The benchmark contract's limits (Spindle's defaults). */
    static final int MAX_BODY_SIZE = 16 * 1024 * 1024;
    static final int MAX_REQUEST_LINE = 8192;
    static final int MAX_HEADER_SIZE = 32 * 1024;
    /** Connections each instance's client may hold to the downstream: the matrix's 1,000 concurrent calls fit on one loop. */
    static final int DOWNSTREAM_CONNECTIONS = 1000;
    /**
     * HTTP/2 connections an instance's {@code /remote-h2} pool may open (Vert.x's default is 1): 16 of
     * 128 streams each hold the matrix's 1,000 concurrent calls, as Spindle's pool opens another
     * connection once one's streams are all taken.
     */
    static final int H2_CONNECTIONS = 16;
    /** SETTINGS_MAX_CONCURRENT_STREAMS of an HTTP/2 connection: Spindle's default, so the h2 scenarios load both alike. */
    static final long MAX_CONCURRENT_STREAMS = 128;

    private static final CharSequence SERVER = HttpHeaders.createOptimized("spindle");
    private static final CharSequence TEXT_PLAIN = HttpHeaders.createOptimized("text/plain; charset=utf-8");
    private static final CharSequence APPLICATION_JSON = HttpHeaders.createOptimized("application/json");
    private static final CharSequence OCTET_STREAM = HttpHeaders.createOptimized("application/octet-stream");
    private static final Buffer HELLO = Buffer.buffer("Hello, World!");
    private static final Buffer HELLO_JSON = Buffer.buffer("{\"message\":\"Hello, World!\"}");
    private static final Buffer OK = Buffer.buffer("OK");
    private static final CharSequence DOWNLOAD_LENGTH = HttpHeaders.createOptimized(Integer.toString(BenchmarkLimits.DOWNLOAD_BYTES));

    private final String host;
    private final int port;
    private final Path download;
    private final RemoteDownstream downstream;
    /** The downstream of {@code /remote-tls/{ms}}, called over HTTPS. */
    private final RemoteDownstream tlsDownstream;
    private final HttpClient jdkClient;
    private final Duration shutdownGrace;
    private final AtomicInteger boundPort;
    private final LiveRoutes live;
    private CharSequence date;
    private HttpServer server;
    private WebClient client;
    private WebClient tlsClient;
    /** {@code /remote-h2}'s: the TLS downstream over HTTP/2 (h2 by ALPN), streams multiplexed on few connections. */
    private WebClient h2Client;

    /**
     * An instance not yet deployed.
     *
     * @param host the address to bind
     * @param port the port, the same for every instance (Vert.x shares its socket among them)
     * @param download the file {@code /download} serves
     * @param downstream the downstream of the remote routes (perhaps none: they answer 503)
     * @param tlsDownstream the downstream of {@code /remote-tls/{ms}} (perhaps none: it answers 503)
     * @param jdkClient the blocking client of {@code /remote-blocking}, shared by all instances
     * @param shutdownGrace how long stopping waits for requests in flight
     * @param boundPort where the instance records the port it listens on
     * @param live the WebSocket and event-stream routes, shared by all instances
     */
    BenchmarkVerticle(String host, int port, Path download, RemoteDownstream downstream, RemoteDownstream tlsDownstream,
                      HttpClient jdkClient, Duration shutdownGrace, AtomicInteger boundPort, LiveRoutes live) {
        this.host = host;
        this.port = port;
        this.download = download;
        this.downstream = downstream;
        this.tlsDownstream = tlsDownstream;
        this.jdkClient = jdkClient;
        this.shutdownGrace = shutdownGrace;
        this.boundPort = boundPort;
        this.live = live;
    }

    @Override
    public Future<?> start() {
        refreshDate();
        vertx.setPeriodic(1000, id -> refreshDate());
        // this instance's own pool, its connections on this instance's loop
        client = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(DOWNSTREAM_CONNECTIONS));
        // /remote-tls's: the same pool over TLS, trusting -Dspindle.client.trustStore (else the JDK's default trust)
        WebClientOptions tls = new WebClientOptions().setSsl(true);
        String trustStore = System.getProperty(RemoteDownstream.TRUST_STORE_PROPERTY);
        if (trustStore != null && !trustStore.isBlank()) {
            tls.setTrustOptions(new PfxOptions().setPath(trustStore.trim())
                    .setPassword(System.getProperty(RemoteDownstream.TRUST_STORE_PASSWORD_PROPERTY, "")));
        }
        tlsClient = WebClient.create(vertx, tls, new PoolOptions().setHttp1MaxSize(DOWNSTREAM_CONNECTIONS));
        // /remote-h2's: the same TLS, HTTP/2 chosen by ALPN; each connection carries as many streams as the
        // downstream allows (its SETTINGS_MAX_CONCURRENT_STREAMS, 128), up to H2_CONNECTIONS of them per instance
        WebClientOptions h2 = new WebClientOptions(tls).setProtocolVersion(HttpVersion.HTTP_2).setUseAlpn(true);
        h2Client = WebClient.create(vertx, h2, new PoolOptions().setHttp2MaxSize(H2_CONNECTIONS));
        HttpServerOptions options = new HttpServerOptions()
                .setHost(host)
                .setPort(port)
                // the contract's request-line and header-section limits: Vert.x answers 414 and 431 beyond them
                .setMaxInitialLineLength(MAX_REQUEST_LINE)
                .setMaxHeaderSize(MAX_HEADER_SIZE)
                // the WebSocket routes: messages and frames up to 16 MiB, no compression. With one on, Vert.x
                // puts Netty's WebSocketServerExtensionHandler on every HTTP/1.1 connection, which looks for
                // an upgrade in each request and (Netty 4.2.18) drops a connection with more than 128
                // pipelined requests unanswered (maxPipelineDepth), and Vert.x has no option to lift it: the
                // other routes stay as they were, and the WebSocket benchmarks offer no extension
                .setPerFrameWebSocketCompressionSupported(false)
                .setPerMessageWebSocketCompressionSupported(false)
                .setMaxWebSocketFrameSize(LiveRoutes.MAX_WEBSOCKET_MESSAGE)
                .setMaxWebSocketMessageSize(LiveRoutes.MAX_WEBSOCKET_MESSAGE)
                // h2c on the same port, both ways in (the preface, "Upgrade: h2c"): Vert.x's default, said
                // here because the h2 scenarios count on it; 128 streams per connection, as Spindle allows
                .setHttp2ClearTextEnabled(true)
                .setInitialSettings(new Http2Settings().setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS));
        server = vertx.createHttpServer(options);
        // stamped before the router, so that its own answers (a missing Host, a target not starting with '/') carry them too
        Router router = router();
        server.requestHandler(request -> {
            stamp(request.response());
            router.handle(request);
        });
        // a request the codec rejects (400, 414, 431) reaches this handler instead: stamped too, then Vert.x's own answer
        server.invalidRequestHandler(request -> {
            stamp(request.response());
            HttpServerRequest.DEFAULT_INVALID_REQUEST_HANDLER.handle(request);
        });
        return server.listen().onSuccess(s -> boundPort.set(s.actualPort()));
    }

    /** Stops accepting and lets requests in flight finish (each connection closes after its answer), up to the grace period. */
    @Override
    public Future<?> stop() {
        return server.shutdown(shutdownGrace).onComplete(done -> {
            client.close();
            tlsClient.close();
        });
    }

    private Router router() {
        Router router = Router.router(vertx);
        read(router, "/plaintext").handler(ctx -> send(ctx, TEXT_PLAIN, HELLO));
        read(router, "/json").handler(ctx -> send(ctx, APPLICATION_JSON, HELLO_JSON));
        read(router, "/users/:id").handler(ctx -> json(ctx, "{\"id\":" + Fixtures.quote(ctx.pathParam("id")) + "}"));
        read(router, "/search").handler(BenchmarkVerticle::search);
        read(router, "/health").handler(ctx -> send(ctx, TEXT_PLAIN, OK));
        read(router, "/download").handler(this::download);
        // the body read whole (413 beyond the limit), into memory only: no file uploads
        router.post("/echo")
                .handler(BodyHandler.create(false).setBodyLimit(MAX_BODY_SIZE))
                .handler(BenchmarkVerticle::echo);
        // unordered: Vert.x would otherwise run one blocking handler at a time per instance
        read(router, "/blocking/:ms").blockingHandler(BenchmarkVerticle::blocking, false);
        read(router, "/delay/:ms").handler(this::delay);
        read(router, "/remote/:ms").handler(ctx -> remote(ctx, downstream, client));
        read(router, "/remote-tls/:ms").handler(ctx -> remote(ctx, tlsDownstream, tlsClient));
        read(router, "/remote-h2/:ms").handler(ctx -> remote(ctx, tlsDownstream, h2Client));
        read(router, "/remote-blocking/:ms").blockingHandler(this::remoteBlocking, false);
        live.addTo(router);
        return router;
    }

    /** A route for GET and HEAD: Vert.x Web routes HEAD only where a route names it, and answers other methods 405 with {@code Allow}. */
    private static Route read(Router router, String path) {
        return router.route(path).method(HttpMethod.GET).method(HttpMethod.HEAD);
    }

    private void refreshDate() {
        date = HttpHeaders.createOptimized(HttpDate.format(System.currentTimeMillis() / 1000));
    }

    private void stamp(HttpServerResponse response) {
        response.putHeader(HttpHeaders.SERVER, SERVER).putHeader(HttpHeaders.DATE, date);
    }

    /** Vert.x leaves the body out on HEAD, and with it the Content-Length it would compute: that one is set here. */
    private static void send(RoutingContext ctx, CharSequence contentType, Buffer body) {
        HttpServerResponse response = ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, contentType);
        if (ctx.request().method() == HttpMethod.HEAD) {
            response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length()));
        }
        response.end(body);
    }

    private static void json(RoutingContext ctx, String body) {
        send(ctx, APPLICATION_JSON, Buffer.buffer(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static void fail(RoutingContext ctx, int status, String message) {
        ctx.response().setStatusCode(status);
        send(ctx, TEXT_PLAIN, Buffer.buffer(message.getBytes(StandardCharsets.UTF_8)));
    }

    private static void search(RoutingContext ctx) {
        // decoded by Vert.x Web on first use: a malformed escape fails the route with 400
        List<String> q = ctx.queryParam("q");
        if (q.isEmpty()) {
            fail(ctx, 400, "missing query parameter q");
            return;
        }
        json(ctx, "{\"q\":" + Fixtures.quote(q.getFirst()) + "}");
    }

    private static void echo(RoutingContext ctx) {
        String type = ctx.request().getHeader(HttpHeaders.CONTENT_TYPE);
        Buffer body = ctx.body().buffer();
        send(ctx, type != null ? type : OCTET_STREAM, body != null ? body : Buffer.buffer());
    }

    /** The file by {@code sendFile} (zero-copy where the transport allows); on HEAD its headers only, as Vert.x Web's StaticHandler does. */
    private void download(RoutingContext ctx) {
        HttpServerResponse response = ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, OCTET_STREAM);
        if (ctx.request().method() == HttpMethod.HEAD) {
            response.putHeader(HttpHeaders.CONTENT_LENGTH, DOWNLOAD_LENGTH).end();
        } else {
            response.sendFile(download.toString());
        }
    }

    /** A blocking call, as the benchmark stands it in: a worker thread sleeps. */
    private static void blocking(RoutingContext ctx) {
        Integer ms = millis(ctx, MAX_BLOCKING_MS);
        if (ms == null) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(ctx, 503, "interrupted while sleeping");
            return;
        }
        json(ctx, "{\"slept\":" + ms + "}");
    }

    /** A timed answer from a timer of the instance's loop: no thread waits. */
    private void delay(RoutingContext ctx) {
        Integer ms = millis(ctx, MAX_DELAY_MS);
        if (ms == null) {
            return;
        }
        if (ms == 0) {
            // Vert.x timers take at least 1 ms
            json(ctx, "{\"delayed\":0}");
        } else {
            vertx.setTimer(ms, id -> json(ctx, "{\"delayed\":" + ms + "}"));
        }
    }

    /**
     * The downstream's {@code /delay/{ms}} through the WebClient, answered on the loop when it
     * completes, as {@link RemoteDownstream} tabulates. The request's timeout bounds both getting a
     * connection and the wait for data; the downstream sends its whole answer after the delay.
     */
    private void remote(RoutingContext ctx, RemoteDownstream downstream, WebClient client) {
        Integer ms = millis(ctx, MAX_DELAY_MS);
        if (ms == null) {
            return;
        }
        if (!downstream.configured()) {
            fail(ctx, 503, downstream == tlsDownstream ? RemoteDownstream.unconfiguredTlsMessage() : RemoteDownstream.unconfiguredMessage());
            return;
        }
        long timeout = downstream.timeout(ms).toMillis();
        client.getAbs(downstream.delayUri(ms).toString())
                .timeout(timeout)
                .send()
                .onSuccess(answer -> {
                    if (answer.statusCode() != 200) {
                        fail(ctx, 502, "downstream answered " + answer.statusCode());
                        return;
                    }
                    String type = answer.getHeader(HttpHeaders.CONTENT_TYPE.toString());
                    Buffer body = answer.body();
                    send(ctx, type != null ? type : APPLICATION_JSON, body != null ? body : Buffer.buffer());
                })
                .onFailure(e -> {
                    if (e instanceof TimeoutException) {
                        fail(ctx, 504, "downstream did not answer within " + timeout + " ms");
                    } else {
                        log.debug("downstream call failed", e);
                        fail(ctx, 502, "downstream call failed: " + e);
                    }
                });
    }

    /** The same call with the JDK's blocking {@link HttpClient#send}, holding a worker thread until it returns. */
    private void remoteBlocking(RoutingContext ctx) {
        Integer ms = remoteDelay(ctx);
        if (ms == null) {
            return;
        }
        Duration timeout = downstream.timeout(ms);
        try {
            HttpResponse<byte[]> answer = jdkClient.send(HttpRequest.newBuilder(downstream.delayUri(ms)).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            if (answer.statusCode() != 200) {
                fail(ctx, 502, "downstream answered " + answer.statusCode());
                return;
            }
            String type = answer.headers().firstValue("content-type").orElse(null);
            send(ctx, type != null ? type : APPLICATION_JSON, Buffer.buffer(answer.body()));
        } catch (HttpTimeoutException e) {
            // a connect timeout is one too, but no answer was ever coming: a bad gateway
            if (e instanceof HttpConnectTimeoutException) {
                fail(ctx, 502, "downstream call failed: " + e);
            } else {
                fail(ctx, 504, "downstream did not answer within " + timeout.toMillis() + " ms");
            }
        } catch (IOException e) {
            log.debug("downstream call failed", e);
            fail(ctx, 502, "downstream call failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(ctx, 502, "interrupted while calling the downstream");
        }
    }

    /** The {@code ms} path parameter, capped; null after answering 400 when it is not a non-negative number. */
    private static Integer millis(RoutingContext ctx, int max) {
        String raw = ctx.pathParam("ms");
        int ms = BenchmarkLimits.cappedMillis(raw, max);
        if (ms < 0) {
            fail(ctx, 400, "milliseconds must be a non-negative number: " + raw);
            return null;
        }
        return ms;
    }

    /** The delay a remote route asks for; null after answering 400, or 503 when no downstream is configured. */
    private Integer remoteDelay(RoutingContext ctx) {
        Integer ms = millis(ctx, MAX_DELAY_MS);
        if (ms != null && !downstream.configured()) {
            fail(ctx, 503, RemoteDownstream.unconfiguredMessage());
            return null;
        }
        return ms;
    }
}
