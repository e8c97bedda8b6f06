// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.RawConnection;
import dev.spindle.conformance.ReferenceConformanceSuite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shared conformance suite against {@link SpringWebFluxServer} (Boot's defaults, the
 * bounded-elastic offload), with what it lacks and where Reactor Netty and WebFlux deviate, each
 * with the reason. Where the answer cannot be written as a status (an HTTP/1.0 status line, a
 * connection closed on the client's half-close), the suite's case is skipped with the reason
 * ({@link #skippedCases()}) and a test here holds the server to what it does instead.
 */
class SpringWebFluxServerConformanceTest extends ReferenceConformanceSuite {
    @Override
    protected Running startReference(String host, int port, int workers) throws IOException {
        ConfigurableApplicationContext context = SpringWebFluxServer.start(host, port, workers);
        return Running.of(() -> SpringWebFluxServer.port(context), context::close);
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        lacks.put(Feature.TIMEOUTS, "Reactor Netty under Boot has no timeout by default (server.netty.idle-timeout is "
                + "unset; no header (408) or write timeout), and the adapter does not take the suite's ServerConfig");
        lacks.put(Feature.CONNECTION_LIMIT, "no connection limit: Reactor Netty serves every connection it accepts");
        return lacks;
    }

    /** Spring's Reactor Netty adapter answers a target java.net.URI rejects itself: 400, the connection kept. */
    private static final String URI_REJECTED = "Netty's decoder takes the target, but Spring's Reactor Netty adapter "
            + "cannot build a java.net.URI from it and answers 400 itself (before any filter, so without Server "
            + "or Date), keeping the connection";

    /**
     * Where Reactor Netty 1.3 (Boot's defaults) and WebFlux answer bad input differently from the
     * Spindle contract. The suite holds them to exactly this.
     */
    private static final Map<String, Deviation> DEVIATIONS = Map.ofEntries(
            Map.entry("too many header fields", new Deviation(404, false,
                    "Reactor Netty limits the header section's bytes (server.max-http-request-header-size, 32 KiB here), "
                            + "not the number of fields, so GET / reaches WebFlux, which has no route for it")),
            Map.entry("body over the limit", new Deviation(413, false,
                    "the app answers 413 before reading; Reactor Netty keeps the connection, discards the announced "
                            + "body as it arrives and serves the next request")),
            Map.entry("unsupported transfer coding", new Deviation(400, true,
                    "Netty's decoder cannot frame a body whose Transfer-Encoding is not chunked and rejects the "
                            + "request as malformed: 400, not 501")),
            Map.entry("unsupported version", new Deviation(400, true,
                    "Netty's decoder knows HTTP/1.0 and HTTP/1.1 only: another version is a malformed request, 400, not 505")),
            Map.entry("lower-case HTTP-name (case-sensitive, RFC 9112 2.3)", new Deviation(200, false,
                    "Netty upper-cases the HTTP-version as it parses it, so http/1.1 is served as HTTP/1.1")),
            Map.entry("obs-fold", new Deviation(200, false,
                    "Netty's decoder unfolds obsolete line folding into the previous value instead of rejecting it "
                            + "(RFC 9112 5.2 lets a server replace obs-fold with SP)")),
            Map.entry("missing Host", new Deviation(200, false,
                    "neither Reactor Netty nor WebFlux requires a Host header on HTTP/1.1: the request is served")),
            Map.entry("control character in target", new Deviation(400, false, URI_REJECTED)),
            Map.entry(BAD_ESCAPE, new Deviation(400, false, URI_REJECTED)),
            Map.entry(TRAILING_PERCENT, new Deviation(400, false, URI_REJECTED)),
            Map.entry(ASTERISK_GET, new Deviation(404, false,
                    "Reactor Netty does not check the request-target form: '*' becomes the path /*, which no route matches")),
            Map.entry(AUTHORITY_GET, new Deviation(404, false,
                    "Reactor Netty does not check the request-target form: 'example.com:80' becomes the path "
                            + "/example.com:80, which no route matches")));

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

    /** Reactor Netty closes a connection as soon as the client half-closes it (Netty's ALLOW_HALF_CLOSURE is off). */
    private static final String CLOSES_ON_HALF_CLOSE = "Reactor Netty closes the connection as soon as the client "
            + "half-closes it (Netty's ALLOW_HALF_CLOSURE is off by default): answers already written arrive, one still "
            + "being produced (the offloaded /blocking) is dropped";

    /**
     * The suite's cases Reactor Netty cannot pass, by test method and invocation name ("" for every
     * invocation), with what it does instead; the tests below hold it to that.
     */
    private static final Map<String, Map<String, String>> SKIPPED = Map.of(
            "http10ClosesUnlessKeepAliveIsAsked", Map.of("", "Reactor Netty answers an HTTP/1.0 request with an "
                    + "HTTP/1.0 status line (the suite's reader takes HTTP/1.1 only) and closes the connection after it, "
                    + "Connection: keep-alive or not"),
            "halfCloseAfterACompleteRequestStillGetsTheWholeResponse", Map.of("blocking route", CLOSES_ON_HALF_CLOSE),
            "halfCloseAfterPipelinedRequestsGetsThemAllInOrder", Map.of("", CLOSES_ON_HALF_CLOSE));

    @Override
    protected Map<String, Map<String, String>> skippedCases() {
        return SKIPPED;
    }

    /** Everything the server sends on {@code c} until it closes (the socket's timeout bounds the wait). */
    private static String untilClosed(RawConnection c) throws IOException {
        c.socket().setSoTimeout(5000);
        return new String(c.socket().getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    /** HTTP/1.0 is answered HTTP/1.0 and the connection closed after it, even when keep-alive is asked. */
    @Test
    void http10IsAnsweredAsHttp10ThenClosed() throws Exception {
        for (String keepAlive : new String[] {"", "Connection: keep-alive\r\n"}) {
            try (RawConnection c = connect(port)) {
                c.send("GET /plaintext HTTP/1.0\r\n" + keepAlive + "\r\n");
                String answer = untilClosed(c);
                assertThat(answer).as(keepAlive).startsWith("HTTP/1.0 200 OK\r\n").endsWith("\r\n\r\nHello, World!");
                assertThat(answer.toLowerCase()).as(keepAlive).doesNotContain("connection: keep-alive");
            }
        }
    }

    /** A half-close while an offloaded answer is being produced: the connection is closed without it. */
    @Test
    void halfCloseDropsTheAnswerStillBeingProduced() throws Exception {
        try (RawConnection c = connect(port)) {
            c.send("GET /blocking/300 HTTP/1.1\r\nHost: x\r\n\r\n");
            c.socket().shutdownOutput();
            assertThat(untilClosed(c)).isEmpty();
        }
    }

    /**
     * Pipelined requests then a half-close: the answers written before it arrive in order (how
     * many depends on how far the loop got), the offloaded one and everything behind it do not.
     */
    @Test
    void halfCloseAfterPipelinedRequestsEndsAtTheOffloadedOne() throws Exception {
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            all.append(i == 10 ? "GET /blocking/200" : "GET /users/" + i).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        try (RawConnection c = connect(port)) {
            c.send(all.toString());
            c.socket().shutdownOutput();
            String answers = untilClosed(c);
            assertThat(answers).doesNotContain("slept").doesNotContain("{\"id\":\"11\"}");
            int answered = answers.split("HTTP/1.1 200 OK", -1).length - 1;
            for (int i = 0; i < answered; i++) {
                assertThat(answers).as("answer %d of %d", i, answered).contains("{\"id\":\"" + i + "\"}");
            }
        }
    }
}
