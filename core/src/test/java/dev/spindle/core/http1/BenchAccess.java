// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Test-only bridge that lets the JMH benchmarks in {@code dev.spindle.core.bench} drive the
 * package-private parts of the core (parser, router, encoder) exactly as {@link Connection} does,
 * without widening the production API. Nothing here allocates per call.
 */
public final class BenchAccess {
    private BenchAccess() {
    }

    /** Input buffer + parser + reused request, as a connection holds them. */
    public static final class Parser {
        private final InputBuffer in;
        private final RequestParser parser;
        private final RequestState request = new RequestState();

        public Parser(ServerConfig config) {
            in = new InputBuffer(config.readBufferSize());
            parser = new RequestParser(config);
        }

        /**
         * Appends all of {@code src} and parses every complete request in it; returns the number of
         * requests parsed plus their header counts (something a blackhole can consume).
         */
        public int parseAll(ByteBuffer src) {
            in.append(src);
            int n = 0;
            while (parser.parseBuffered(in, request) == RequestParser.COMPLETE) {
                in.consume(parser.consumed());
                n += 1 + request.headerCount;
            }
            return n;
        }

        /** The last request parsed, for sanity checks. */
        public Request last() {
            return request.api;
        }
    }

    /** A parsed request kept around so the router can be timed alone. */
    public static final class Routing {
        private final Router router;
        private final RequestState request;

        public Routing(Router router, String rawRequest) {
            this.router = router;
            Parser p = new Parser(ServerConfig.defaults());
            if (p.parseAll(ByteBuffer.wrap(rawRequest.getBytes(StandardCharsets.ISO_8859_1))) == 0) {
                throw new IllegalArgumentException("incomplete request: " + rawRequest);
            }
            this.request = p.request;
        }

        /** Routes the request (as the connection does for every request) and returns the route's pattern. */
        public String route() {
            request.route = null;
            return ApiAccess.get().route(router, request).pattern;
        }

        public Request request() {
            return request.api;
        }
    }

    /** Response + output buffer: what a handler fills and the encoder writes, drained after each call. */
    public static final class Encoding {
        private final OutputBuffer out = new OutputBuffer(4096);
        private final ResponseState response = new ResponseState();

        /** Encodes {@code body} as a 200 {@code text/plain} keep-alive response; returns the bytes written. */
        public int encodePlaintext(byte[] body) {
            response.reset();
            response.api.contentType(Response.TEXT_PLAIN).body(body);
            ResponseEncoder.encode(out, response, false, ResponseEncoder.CONNECTION_DEFAULT);
            int n = out.pending();
            out.written(n);
            return n;
        }

        /** The bytes {@link #encodePlaintext} writes, for sanity checks. */
        public String encodeToString(byte[] body) {
            response.reset();
            response.api.contentType(Response.TEXT_PLAIN).body(body);
            ResponseEncoder.encode(out, response, false, ResponseEncoder.CONNECTION_DEFAULT);
            ByteBuffer view = out.view();
            String s = StandardCharsets.ISO_8859_1.decode(view).toString();
            out.written(out.pending());
            return s;
        }
    }
}
