// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.conformance.ReferenceConformanceSuite;
import java.io.IOException;
import java.util.Map;

/** The shared conformance suite against {@link NettyServer}, with what it lacks and where it deviates, each with the reason. */
class NettyServerConformanceTest extends ReferenceConformanceSuite {
    @Override
    protected Running startReference(String host, int port, int workers) throws IOException {
        NettyServer server = new NettyServer(host, port, workers).start();
        return Running.of(() -> server.address().getPort(), server::close);
    }

    @Override
    protected Map<Feature, String> lacks() {
        Map<Feature, String> lacks = super.lacks();
        lacks.put(Feature.TIMEOUTS, "the fastest public Netty entries install no IdleStateHandler or read/write timeout "
                + "handler: an idle, stalled or never-reading client keeps its connection until it closes");
        lacks.put(Feature.CONNECTION_LIMIT, "no connection limit: like the public entries, it accepts whatever the backlog holds");
        return lacks;
    }

    /**
     * Where Netty's codec, with nothing added before the app (as in the fastest public entries),
     * answers bad input differently from the Spindle contract. The suite holds it to exactly this.
     */
    private static final Map<String, Deviation> DEVIATIONS = Map.of(
            "obs-fold", new Deviation(200, false,
                    "Netty's HttpObjectDecoder unfolds obsolete line folding into one value instead of rejecting it "
                            + "(RFC 9112 5.2 lets a server replace obs-fold with SP)"),
            "missing Host", new Deviation(200, false,
                    "Netty's codec does not require Host, and the app adds no per-request header check"),
            "too many header fields", new Deviation(404, false,
                    "Netty limits the header section's bytes (32 KiB here), not the number of fields, so the request "
                            + "reaches the app and GET / is not a route"),
            "lower-case HTTP-name (case-sensitive, RFC 9112 2.3)", new Deviation(505, true,
                    "Netty's HttpVersion upper-cases an HTTP-name it does not recognise as sent, so http/1.1 reaches "
                            + "the app as an unknown version; the app, as the fastest public entries, only checks "
                            + "for HTTP/1.1 or HTTP/1.0 and answers anything else 505"),
            "unsupported transfer coding", new Deviation(400, true,
                    "Netty's decoder rejects a Transfer-Encoding other than chunked as a malformed message before the "
                            + "app sees it, and the app answers every decoder failure 400 and closes"));

    @Override
    protected Map<String, Deviation> knownDeviations() {
        return DEVIATIONS;
    }
}
