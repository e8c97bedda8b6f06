// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.vertx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.ReferenceConformanceSuite;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared conformance suite against {@link VertxServer}, with what it lacks and where it
 * deviates, each with the reason. Where Vert.x's answer cannot be read as the suite reads one (its
 * status line names HTTP/1.0 or HTTP/2.0), or the case is not about bad input, the suite's case is
 * skipped with the reason ({@link #skippedCases()}) and {@link #vertxBehavesAsDeclared} holds Vert.x to
 * what it does instead.
 */
class VertxServerConformanceTest extends ReferenceConformanceSuite {
    @Override
    protected Running startReference(String host, int port, int workers) throws IOException {
        VertxServer server = new VertxServer(host, port, workers).start();
        return Running.of(server::port, server::close);
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        lacks.put(Feature.TIMEOUTS, "Vert.x's HttpServerOptions has an idle timeout, off by default and not set here (as "
                + "deployed by default), and no request-header (408) or write timeout");
        lacks.put(Feature.CONNECTION_LIMIT, "no connection limit: Vert.x's HTTP server accepts whatever the backlog holds");
        return lacks;
    }

    /** Vert.x's 400 for a request its codec rejects, and the reason shared by every such case. */
    private static final String CLOSES_WITHOUT_SAYING = "Vert.x's invalid-request handler answers the request Netty's "
            + "codec rejected with 400 and closes the connection, but sends no Connection: close";

    /** Where Vert.x answers bad input with another status, or without saying it closes. The suite holds it to exactly this. */
    private static final Map<String, Deviation> DEVIATIONS = deviations();

    private static Map<String, Deviation> deviations() {
        Map<String, Deviation> d = new HashMap<>();
        for (String name : new String[] {"Content-Length with Transfer-Encoding", "differing Content-Length",
                "non-numeric Content-Length", "negative Content-Length", "overflowing Content-Length", "space before colon",
                "NUL in a value", "CR in a value", CL_LIST, CL_LIST_SPACE, CL_TWICE}) {
            d.put(name, new Deviation(400, true, CLOSES_WITHOUT_SAYING));
        }
        d.put("unsupported transfer coding", new Deviation(400, true,
                "Netty's codec rejects a Transfer-Encoding other than chunked as malformed, not 501; " + CLOSES_WITHOUT_SAYING));
        d.put("header section too large", new Deviation(431, true,
                "Vert.x answers 431 as the contract says and closes, but sends no Connection: close"));
        d.put("too many header fields", new Deviation(404, false,
                "Vert.x limits the header section's bytes (32 KiB here), not the number of fields, so GET / reaches the "
                        + "router, where it is no route"));
        d.put("body over the limit", new Deviation(413, false,
                "Vert.x Web's BodyHandler answers 413 from the Content-Length before reading the body and keeps the "
                        + "connection: Vert.x reads and drops the body, then serves the next request"));
        d.put("lower-case HTTP-name (case-sensitive, RFC 9112 2.3)", new Deviation(501, true,
                "Netty's codec upper-cases an unrecognised HTTP-name, so http/1.1 reaches Vert.x as an unknown version, which "
                        + "it answers 501 Not Implemented and closes"));
        d.put("obs-fold", new Deviation(200, false,
                "Netty's codec unfolds obsolete line folding into one value instead of rejecting it (RFC 9112 5.2 lets a "
                        + "server replace obs-fold with SP)"));
        d.put("missing Host", new Deviation(400, false,
                "Vert.x Web's router answers a missing Host 400 before any route, as a route failure: the connection is kept"));
        d.put("bad chunk size", new Deviation(200, true,
                "Netty's codec fails the body with a NumberFormatException, not a DecoderException, which Vert.x Web's "
                        + "BodyHandler fails the route with as status 200: the answer is 200 with the body OK, and Vert.x "
                        + "closes the connection the codec failed"));
        d.put("control character in target", new Deviation(404, false,
                "Netty's codec accepts a control character in the target, and the router finds no route for it"));
        d.put(ASTERISK_GET, new Deviation(404, false,
                "Vert.x does not check the request-target form: the router answers a path not starting with '/' 404 "
                        + "(\"for compatibility\", its source says) and keeps the connection"));
        d.put(AUTHORITY_GET, new Deviation(404, false,
                "Vert.x does not check the request-target form: the router answers a path not starting with '/' 404 "
                        + "(\"for compatibility\", its source says) and keeps the connection"));
        d.put(BAD_ESCAPE, new Deviation(400, false,
                "the router fails the malformed path parameter with 400 as a route failure and keeps the connection"));
        d.put(TRAILING_PERCENT, new Deviation(400, false,
                "the router fails the malformed path parameter with 400 as a route failure and keeps the connection"));
        return Map.copyOf(d);
    }

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

    /**
     * The suite's cases Vert.x cannot pass, by test method and invocation name (empty: every
     * invocation), with what it does instead; {@link #vertxBehavesAsDeclared} tests what it does.
     */
    private static final Map<String, Map<String, String>> SKIPPED = Map.of(
            "http10ClosesUnlessKeepAliveIsAsked", Map.of("", "Vert.x answers an HTTP/1.0 request with an HTTP/1.0 status "
                    + "line (RFC 9112 2.5 says a server should send its own highest version, HTTP/1.1); the connection "
                    + "handling itself conforms"),
            "badInputGetsItsStatusAndACloseAndTheServerGoesOn", Map.of(
                    "request line too long -> 414", "the 414 comes with an HTTP/1.0 status line (Netty's codec gives up "
                            + "before the version is read), then a close",
                    "unsupported version -> 505", "Vert.x answers an unknown version 501 with that version in its status "
                            + "line (HTTP/2.0 501), then a close",
                    "malformed request line -> 400", "the 400 comes with an HTTP/1.0 status line (no version was read), "
                            + "then a close"),
            "benchmarkAppRoutes", Map.of("GET /plaintext/ -> 404", "Vert.x Web ignores a trailing slash when it matches a "
                    + "route's path: /plaintext/ is /plaintext, 200"),
            "halfCloseAfterACompleteRequestStillGetsTheWholeResponse", Map.of("blocking route", "Vert.x does not allow half "
                    + "closure: the client's end of input closes the connection, and the answer of a handler still "
                    + "running on the worker pool is lost"));

    @Override
    protected Map<String, Map<String, String>> skippedCases() {
        return SKIPPED;
    }

    /**
     * What Vert.x does instead, for each skipped case: the status line of each answer, in order,
     * whether they carry {@code Server: spindle} (the 501 for an unknown version leaves Vert.x before
     * any handler of the app), and whether it then closes the connection.
     */
    static Stream<Arguments> declaredBehaviour() {
        return Stream.of(
                Arguments.of("HTTP/1.0", "GET /plaintext HTTP/1.0\r\n\r\n", new String[] {"HTTP/1.0 200 OK"}, true, true),
                Arguments.of("HTTP/1.0 keep-alive", "GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                        + "GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                        new String[] {"HTTP/1.0 200 OK", "HTTP/1.0 200 OK"}, true, false),
                Arguments.of("request line too long", "GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
                        new String[] {"HTTP/1.0 414 Request-URI Too Long"}, true, true),
                Arguments.of("unsupported version", "GET /plaintext HTTP/2.0\r\nHost: x\r\n\r\n",
                        new String[] {"HTTP/2.0 501 Not Implemented"}, false, true),
                Arguments.of("malformed request line", "GET /plaintext\r\nHost: x\r\n\r\n",
                        new String[] {"HTTP/1.0 400 Bad Request"}, true, true),
                Arguments.of("trailing slash", "GET /plaintext/ HTTP/1.1\r\nHost: x\r\n\r\n", new String[] {"HTTP/1.1 200 OK"}, true, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("declaredBehaviour")
    void vertxBehavesAsDeclared(String name, String raw, String[] statusLines, boolean stamped, boolean closes) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(5000);
            s.getOutputStream().write(raw.getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            for (String statusLine : statusLines) {
                String head = head(in);
                assertThat(head).as(name).startsWith(statusLine + "\r\n");
                if (stamped) {
                    assertThat(head.toLowerCase(Locale.ROOT)).as(name).contains("\r\nserver: spindle\r\n");
                }
                in.readNBytes(contentLength(head));
            }
            if (closes) {
                assertThat(endOfInput(s, 5000)).as("%s: closed after the answer", name).isTrue();
            } else {
                assertThat(endOfInput(s, 500)).as("%s: connection kept", name).isFalse();
            }
        }
    }

    /** A half-close while a blocking handler runs: Vert.x closes at once and the answer is lost (Spindle answers, then closes). */
    @Test
    void halfCloseDuringABlockingHandlerClosesWithoutTheAnswer() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(5000);
            s.getOutputStream().write("GET /blocking/300 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.shutdownOutput();
            long since = System.nanoTime();
            assertThat(s.getInputStream().readAllBytes()).as("nothing before the close").isEmpty();
            assertThat((System.nanoTime() - since) / 1_000_000).as("closed before the handler's 300 ms were up").isLessThan(300);
        }
    }

    /** The response head, through the blank line. */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed inside the response head: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return 0;
    }

    /** Whether the peer closes within {@code millis} (end of input or reset); a byte arriving instead fails. */
    private static boolean endOfInput(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            int b = s.getInputStream().read();
            if (b >= 0) {
                throw new AssertionError("unexpected byte after the answers: " + b);
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }
}
