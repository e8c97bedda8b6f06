// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.springmvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.ReferenceConformanceSuite;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shared conformance suite against {@link SpringMvcServer} with virtual threads (the
 * {@code SpringMvc-virtual} row), with what it lacks and where Tomcat deviates, each with the reason.
 */
class SpringMvcServerConformanceTest extends ReferenceConformanceSuite {
    /** @return the row's Spring Boot arguments: here {@code SpringMvc-virtual}'s */
    protected String[] startArguments() {
        return new String[] {"--spring.threads.virtual.enabled=true"};
    }

    @Override
    protected Running startReference(String host, int port, int workers) throws IOException {
        ConfigurableApplicationContext context = SpringMvcServer.start(host, port, workers, startArguments());
        return Running.of(() -> SpringMvcServer.port(context), context::close);
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        lacks.put(Feature.TIMEOUTS, "Tomcat's timeouts are Boot properties (server.tomcat.connection-timeout, "
                + "keep-alive-timeout) that the adapter does not take from the suite's ServerConfig");
        lacks.put(Feature.CONNECTION_LIMIT, "Tomcat's max-connections does not answer 503: beyond it, connections wait in "
                + "the accept backlog");
        return lacks;
    }

    /**
     * Where Tomcat 11 (Boot's defaults, nothing added before the app) answers bad input differently
     * from the Spindle contract. The suite holds it to exactly this.
     */
    private static final Map<String, Deviation> DEVIATIONS = Map.ofEntries(
            Map.entry("request line too long", new Deviation(400, true,
                    "Tomcat has no 414: the request line counts against server.max-http-request-header-size "
                            + "(8 KiB, Boot's default) with the headers, and going over it is a 400")),
            Map.entry("header section too large", new Deviation(400, true,
                    "Tomcat answers a header section over server.max-http-request-header-size (8 KiB) with 400, not 431")),
            Map.entry("too many header fields", new Deviation(400, true,
                    "Tomcat answers more than its maxHeaderCount (100) fields with 400, not 431")),
            Map.entry("body over the limit", new Deviation(413, false,
                    "the app answers 413 (Connection: close) before reading, but Tomcat then swallows up to "
                            + "server.tomcat.max-swallow-size (2 MiB) of the announced body before it closes, so a "
                            + "client that sends none is left open until the connection timeout")),
            Map.entry("unsupported version", new Deviation(505, true,
                    "Tomcat answers 505 and closes, but without a Connection: close header")),
            Map.entry("Content-Length with Transfer-Encoding", new Deviation(200, true,
                    "Tomcat lets Transfer-Encoding override Content-Length, serves the request and then closes, "
                            + "which RFC 9112 6.3 allows instead of rejecting it")),
            Map.entry("obs-fold", new Deviation(200, false,
                    "Tomcat unfolds obsolete line folding into one value instead of rejecting it "
                            + "(RFC 9112 5.2 lets a server replace obs-fold with SP)")),
            Map.entry("malformed request line", new Deviation(Deviation.NO_STATUS_LINE, true,
                    "Tomcat still speaks HTTP/0.9: a request line without a version is answered with the bare "
                            + "body and a close")));

    /** Tomcat answers a body cut short by the client's half-close with 400, then closes. */
    private static final Map<String, Deviation> HALF_CLOSE_DEVIATIONS = Map.of(
            "inside a Content-Length body", new Deviation(400, true,
                    "the app is already running and reading the body when the client half-closes; Tomcat turns "
                            + "the early end of input into a 400 (RFC 9112 8 lets a server answer an incomplete message)"),
            "inside a chunked body", new Deviation(400, true,
                    "as for a Content-Length body: Tomcat answers the cut chunked body with 400 before it closes"));

    @Override
    protected Map<String, Deviation> halfCloseDeviations() {
        return HALF_CLOSE_DEVIATIONS;
    }

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }

}
