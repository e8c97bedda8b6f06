// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.RequestState;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test-only bridge that lets the fuzz tests in {@code dev.spindle.core.fuzz} drive the
 * package-private {@link RequestParser} exactly as {@link Connection} does, without widening the
 * production API. Only {@link HttpException} is caught: anything else the parser throws reaches
 * the fuzz test as a finding.
 */
public final class FuzzAccess {
    private FuzzAccess() {
    }

    /** A completed request, copied out of the reused buffers at once; the body as Latin-1 text. */
    public record Parsed(String method, String target, String path, String query, String version,
            List<String> headers, String body, boolean keepAlive, boolean expectContinue) {
        public boolean isHead() {
            return method.equals("HEAD");
        }

        static Parsed capture(RequestState r) {
            List<String> headers = new ArrayList<>(r.api.headerCount());
            for (int i = 0; i < r.api.headerCount(); i++) {
                headers.add(r.api.headerName(i) + ": " + r.api.headerValue(i));
            }
            return new Parsed(r.api.methodName(), r.api.target(), r.api.path(), r.api.query(), r.api.version(), List.copyOf(headers),
                    new String(r.api.bodyBytes(), StandardCharsets.ISO_8859_1), r.api.isKeepAliveRequested(), r.expectContinue);
        }
    }

    /**
     * What feeding a byte stream produced: the completed requests, then the status of the parse
     * error that ended it (0: none), whether the connection would answer that error as to a HEAD
     * request (no body), and whether bytes of an unfinished request are left.
     */
    public record Outcome(List<Parsed> requests, int errorStatus, boolean errorAnswersHead, boolean partialLeft) {
        public boolean failed() {
            return errorStatus != 0;
        }
    }

    /** Feeds {@code pieces} in order, as a connection would, collecting every completed request. */
    public static Outcome parse(ServerConfig config, List<byte[]> pieces) {
        RequestParser parser = new RequestParser(config);
        // Small on purpose: growth and compaction happen on short inputs too.
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        List<Parsed> done = new ArrayList<>();
        try {
            for (byte[] piece : pieces) {
                in.append(ByteBuffer.wrap(piece));
                while (parser.parseBuffered(in, req) == RequestParser.COMPLETE) {
                    int consumed = parser.consumed();
                    if (consumed <= 0 || consumed > in.available()) {
                        throw new IllegalStateException("parser consumed " + consumed + " of " + in.available() + " bytes");
                    }
                    done.add(Parsed.capture(req));
                    in.consume(consumed);
                }
            }
        } catch (HttpException e) {
            boolean head = parser.requestLineParsed() && req.method == Method.HEAD;
            return new Outcome(List.copyOf(done), e.status(), head, true);
        }
        return new Outcome(List.copyOf(done), 0, false, parser.inProgress(in));
    }
}
