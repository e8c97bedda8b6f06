// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.helidon;

import dev.spindle.references.support.BenchmarkLimits;
import static dev.spindle.references.support.BenchmarkLimits.DOWNLOAD_BYTES;
import static dev.spindle.references.support.BenchmarkLimits.MAX_BLOCKING_MS;
import static dev.spindle.references.support.BenchmarkLimits.MAX_DELAY_MS;
import dev.spindle.references.support.Fixtures;
import dev.spindle.references.support.RemoteDownstream;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.WebClient;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Optional;

/**
 * The benchmark app's routes as a Helidon {@link HttpService}. Helidon 4 runs every request on its
 * own virtual thread, so every handler is plain blocking code: {@code /blocking} and
 * {@code /delay} both just sleep (a sleeping virtual thread gives its carrier back),
 * {@code /echo} and {@code /download} read and write streams, and {@code /remote} and
 * {@code /remote-blocking} both make the same blocking call with Helidon's {@link WebClient};
 * {@code /remote-tls} makes it over HTTPS (a second WebClient, its TLS trusting
 * {@code -Dspindle.client.trustStore}), {@code /remote-h2} over HTTP/2 (a third, h2 chosen by ALPN),
 * both to {@code -Dspindle.remoteTls}.
 *
 * <p>Bodies are pre-encoded byte arrays and JSON is assembled by hand: Spindle's app sends the
 * same pre-encoded bytes, so a JSON media module (serialising a constant on every request) would
 * measure a serialiser, not the server. Constant headers are Helidon's cached header values.
 */
final class BenchmarkRoutes implements HttpService {
    /** The file {@code /download} serves, written once per process. */
    private static final java.nio.file.Path DOWNLOAD = Fixtures.downloadFile(BenchmarkLimits.DOWNLOAD_BYTES);
    static final long MAX_BODY_SIZE = 16 * 1024 * 1024;
    static final int MAX_REQUEST_LINE = 8192;
    static final int MAX_HEADER_SIZE = 32 * 1024;

    static final Header SERVER = HeaderValues.createCached(HeaderNames.SERVER, "spindle");
    private static final Header TEXT_PLAIN = HeaderValues.createCached(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    private static final Header APPLICATION_JSON = HeaderValues.createCached(HeaderNames.CONTENT_TYPE, "application/json");
    private static final Header OCTET_STREAM = HeaderValues.createCached(HeaderNames.CONTENT_TYPE, "application/octet-stream");
    private static final Header ALLOW_GET = HeaderValues.createCached(HeaderNames.ALLOW, "GET, HEAD");
    private static final Header ALLOW_POST = HeaderValues.createCached(HeaderNames.ALLOW, "POST");
    private static final Header DOWNLOAD_LENGTH = HeaderValues.createCached(HeaderNames.CONTENT_LENGTH, DOWNLOAD_BYTES);

    private static final byte[] HELLO = ascii("Hello, World!");
    private static final byte[] HELLO_JSON = ascii("{\"message\":\"Hello, World!\"}");
    private static final byte[] OK = ascii("OK");
    private static final byte[] EMPTY = new byte[0];

    private final Remote remote;
    private final Remote remoteTls;
    private final Remote remoteH2;

    /** A downstream, the client that calls it, and the 503 message when none is configured. */
    record Remote(RemoteDownstream downstream, WebClient client, String unconfigured) {
    }

    /**
     * The routes, the remote ones calling their downstreams through their clients.
     *
     * @param remote {@code /remote/{ms}}'s and {@code /remote-blocking/{ms}}'s (perhaps unconfigured: they answer 503)
     * @param remoteTls {@code /remote-tls/{ms}}'s, over HTTPS
     * @param remoteH2 {@code /remote-h2/{ms}}'s, over HTTP/2
     */
    BenchmarkRoutes(Remote remote, Remote remoteTls, Remote remoteH2) {
        this.remote = remote;
        this.remoteTls = remoteTls;
        this.remoteH2 = remoteH2;
    }

    /** Every response carries {@code Server: spindle}, as every Spindle server's does. */
    void register(HttpRouting.Builder routing) {
        routing.addFilter((chain, req, res) -> {
            res.header(SERVER);
            chain.proceed();
        }).register(this);
    }

    @Override
    public void routing(HttpRules rules) {
        read(rules, "/plaintext", (req, res) -> send(req, res, TEXT_PLAIN, HELLO));
        read(rules, "/json", (req, res) -> send(req, res, APPLICATION_JSON, HELLO_JSON));
        rules.post("/echo", BenchmarkRoutes::echo)
                .any("/echo", (req, res) -> notAllowed(res, ALLOW_POST));
        read(rules, "/users/{id}", (req, res) -> json(req, res, "{\"id\":" + Fixtures.quote(req.path().pathParameters().get("id")) + "}"));
        read(rules, "/search", BenchmarkRoutes::search);
        read(rules, "/blocking/{ms}", BenchmarkRoutes::blocking);
        read(rules, "/health", (req, res) -> send(req, res, TEXT_PLAIN, OK));
        read(rules, "/delay/{ms}", BenchmarkRoutes::delay);
        read(rules, "/download", BenchmarkRoutes::download);
        // Helidon 4 has no asynchronous handler: both are the same blocking call on the request's virtual thread
        read(rules, "/remote/{ms}", (req, res) -> remote(req, res, remote));
        read(rules, "/remote-blocking/{ms}", (req, res) -> remote(req, res, remote));
        // the same call over HTTPS, and over HTTP/2 (h2 by ALPN), to the TLS downstream
        read(rules, "/remote-tls/{ms}", (req, res) -> remote(req, res, remoteTls));
        read(rules, "/remote-h2/{ms}", (req, res) -> remote(req, res, remoteH2));
    }

    /**
     * A GET route that HEAD reaches too (Helidon routes HEAD only where a route names it), then, since Helidon matches routes in
     * order and answers 404 when none does whatever the method, a catch-all for the same path that
     * turns any other method into 405 with {@code Allow}.
     */
    private static void read(HttpRules rules, String path, Handler handler) {
        rules.route(HttpRoute.builder().methods(Method.GET, Method.HEAD).path(path).handler(handler))
                .any(path, (req, res) -> notAllowed(res, ALLOW_GET));
    }

    /**
     * Sends {@code body}, or on HEAD only its length: Helidon writes whatever entity a handler
     * sends, HEAD or not, so the handler leaves it out.
     */
    private static void send(ServerRequest req, ServerResponse res, Header contentType, byte[] body) {
        res.header(contentType);
        if (req.prologue().method() == Method.HEAD) {
            res.contentLength(body.length);
            res.send();
        } else {
            res.send(body);
        }
    }

    private static void json(ServerRequest req, ServerResponse res, String body) {
        send(req, res, APPLICATION_JSON, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void notAllowed(ServerResponse res, Header allow) {
        res.status(Status.METHOD_NOT_ALLOWED_405).header(allow).send();
    }

    private static void echo(ServerRequest req, ServerResponse res) {
        Optional<String> type = req.headers().first(HeaderNames.CONTENT_TYPE);
        res.header(type.isPresent() ? HeaderValues.create(HeaderNames.CONTENT_TYPE, type.get()) : OCTET_STREAM);
        // the entity read whole (bounded by the listener's maxPayloadSize), so the answer has a Content-Length
        res.send(req.content().hasEntity() ? req.content().as(byte[].class) : EMPTY);
    }

    private static void search(ServerRequest req, ServerResponse res) {
        Optional<String> q = req.query().first("q").asOptional();
        if (q.isEmpty()) {
            res.status(Status.BAD_REQUEST_400).header(TEXT_PLAIN).send("missing query parameter q");
            return;
        }
        json(req, res, "{\"q\":" + Fixtures.quote(q.get()) + "}");
    }

    /** A blocking call, as the benchmark stands it in: the request's virtual thread sleeps. */
    private static void blocking(ServerRequest req, ServerResponse res) throws InterruptedException {
        Integer ms = millis(req, res, MAX_BLOCKING_MS);
        if (ms != null) {
            Thread.sleep(ms);
            json(req, res, "{\"slept\":" + ms + "}");
        }
    }

    /**
     * A timed answer. Helidon 4 has no asynchronous handler: waiting on the request's virtual
     * thread is its idiomatic wait, and costs no platform thread while it lasts.
     */
    private static void delay(ServerRequest req, ServerResponse res) throws InterruptedException {
        Integer ms = millis(req, res, MAX_DELAY_MS);
        if (ms != null) {
            Thread.sleep(ms);
            json(req, res, "{\"delayed\":" + ms + "}");
        }
    }

    /**
     * The downstream's {@code /delay/{ms}} through the WebClient, its body and content type
     * answered, as {@link RemoteDownstream} tabulates. The timeout is the client's read timeout
     * (the socket's, per read): the downstream sends its whole answer after the delay, so one read
     * waits for all of it.
     */
    private static void remote(ServerRequest req, ServerResponse res, Remote remote) {
        Integer ms = millis(req, res, MAX_DELAY_MS);
        if (ms == null) {
            return;
        }
        RemoteDownstream downstream = remote.downstream();
        if (!downstream.configured()) {
            fail(res, Status.SERVICE_UNAVAILABLE_503, remote.unconfigured());
            return;
        }
        try (HttpClientResponse answer = remote.client().get()
                .uri(downstream.delayUri(ms))
                .readTimeout(downstream.timeout(ms))
                .request()) {
            if (answer.status().code() != Status.OK_200.code()) {
                fail(res, Status.BAD_GATEWAY_502, "downstream answered " + answer.status().code());
                return;
            }
            byte[] body = answer.as(byte[].class);
            Optional<String> type = answer.headers().first(HeaderNames.CONTENT_TYPE);
            send(req, res, type.isPresent() ? HeaderValues.create(HeaderNames.CONTENT_TYPE, type.get()) : APPLICATION_JSON, body);
        } catch (RuntimeException e) {
            if (timedOut(e)) {
                fail(res, Status.GATEWAY_TIMEOUT_504, "downstream did not answer within " + downstream.timeout(ms).toMillis() + " ms");
            } else {
                fail(res, Status.BAD_GATEWAY_502, "downstream call failed: " + e);
            }
        }
    }

    /** Whether the client gave up waiting for an answer (a read timeout), rather than failed to connect or read. */
    private static boolean timedOut(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static void fail(ServerResponse res, Status status, String message) {
        res.status(status).header(TEXT_PLAIN).send(message);
    }

    /** The file, streamed with its length announced (no chunking), as Helidon's own static-content handler sends one. */
    private static void download(ServerRequest req, ServerResponse res) throws IOException {
        res.header(OCTET_STREAM).header(DOWNLOAD_LENGTH);
        if (req.prologue().method() == Method.HEAD) {
            // the headers only: Helidon would send what the handler writes, HEAD or not
            res.send();
            return;
        }
        try (OutputStream out = res.outputStream()) {
            Files.copy(DOWNLOAD, out);
        }
    }

    /** The {@code ms} path parameter, capped; null after answering 400 when it is not a non-negative number. */
    private static Integer millis(ServerRequest req, ServerResponse res, int max) {
        String raw = req.path().pathParameters().get("ms");
        int ms = BenchmarkLimits.cappedMillis(raw, max);
        if (ms < 0) {
            res.status(Status.BAD_REQUEST_400).header(TEXT_PLAIN).send("milliseconds must be a non-negative number: " + raw);
            return null;
        }
        return ms;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
