// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.compress;

import dev.spindle.core.HttpException;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.BodyException;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.Route;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Request bodies in a content coding, for routes that inflate them
 * ({@code RouteOptions.requestDecompression}): which coding a request's {@code Content-Encoding}
 * names, the 415 for one the server cannot undo, and a whole (buffered) body inflated in place of
 * the coded one. Streamed bodies are inflated as their handler reads them
 * ({@link InflatingInputStream}, {@link InflatingSubscriber}). HTTP/1.1 and HTTP/2 call these at
 * the same points: when a request's head has arrived, and before a buffered body's handler runs.
 */
public final class RequestDecoding {
    /** No coding: the body is used as it is. */
    public static final int NONE = 0;
    public static final int GZIP = Inflation.GZIP;
    public static final int DEFLATE = Inflation.DEFLATE;
    /** A coding the server does not undo, or more than one. */
    public static final int UNSUPPORTED = -1;
    /** The codings a 415 names in its {@code Accept-Encoding} (RFC 9110 15.5.16). */
    public static final String ACCEPTED = "gzip, deflate";

    private static final byte[] CONTENT_ENCODING = "content-encoding".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "content-length".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private RequestDecoding() {
    }

    /**
     * The coding the request's route undoes for its body: {@link #NONE} when the route does not
     * inflate bodies or the request names no coding (or only {@code identity}), else
     * {@link #GZIP}, {@link #DEFLATE} or {@link #UNSUPPORTED}.
     */
    public static int decoding(RequestState req) {
        Route route = req.route;
        return route == null || !route.options.requestDecompression() ? NONE : coding(req);
    }

    /** The coding the request's {@code Content-Encoding} fields name, whatever its route. */
    static int coding(RequestState req) {
        int coding = NONE;
        for (int h = 0; h < req.headerCount; h++) {
            int s = req.headers[h * 4];
            if (req.headers[h * 4 + 1] - s != CONTENT_ENCODING.length
                    || !dev.spindle.core.bytes.Ascii.equalsIgnoreCase(req.data, req.base + s, CONTENT_ENCODING)) {
                continue;
            }
            int i = req.base + req.headers[h * 4 + 2];
            int to = req.base + req.headers[h * 4 + 3];
            while (i < to) {
                while (i < to && (at(req, i) == ',' || at(req, i) == ' ' || at(req, i) == '\t')) {
                    i++;
                }
                int start = i;
                while (i < to && at(req, i) != ',') {
                    i++;
                }
                int end = i;
                while (end > start && (at(req, end - 1) == ' ' || at(req, end - 1) == '\t')) {
                    end--;
                }
                if (end == start || is(req, start, end, "identity")) {
                    continue;
                }
                int one = is(req, start, end, "gzip") || is(req, start, end, "x-gzip") ? GZIP
                        : is(req, start, end, "deflate") ? DEFLATE : UNSUPPORTED;
                // two codings, even twice the same, are more than one inflation: not undone here
                coding = coding == NONE ? one : UNSUPPORTED;
            }
        }
        return coding;
    }

    /** The refusal of a body the route would inflate but cannot: 415 with {@code Accept-Encoding}; null if there is none. */
    public static HttpException refusal(RequestState req) {
        return decoding(req) == UNSUPPORTED ? unsupported() : null;
    }

    public static HttpException unsupported() {
        return ApiAccess.get().unsupportedEncoding(ACCEPTED);
    }

    /**
     * Replaces a whole buffered body by its inflated bytes, within {@code limit}: the request then
     * lies in an array of its own (the head copied before the body, so every offset holds), and
     * shows neither {@code Content-Encoding} nor {@code Content-Length}.
     *
     * @return null, or the failure to answer: 413 past the limit, 400 for a body not valid in its coding
     */
    public static HttpException inflateWhole(RequestState req, int coding, long limit) {
        int head = req.bodyStart;
        int length = req.bodyEnd - req.bodyStart;
        if (length > 0) {
            byte[] coded;
            int from;
            if (req.array != null) {
                coded = req.array;
                from = req.base + req.bodyStart;
            } else {
                coded = dev.spindle.core.bytes.Ascii.bytes(req.data, req.base + req.bodyStart, length);
                from = 0;
            }
            long most = Math.min(limit, Integer.MAX_VALUE - 64L - head);
            byte[] out = new byte[(int) Math.min(head + Math.max(4096L, 4L * length), head + most + 1)];
            MemorySegment.copy(req.data, ValueLayout.JAVA_BYTE, req.base, out, 0, head);
            int at = head;
            Inflation inflation = new Inflation(coding, most);
            try {
                inflation.setInput(coded, from, length);
                while (true) {
                    if (at == out.length) {
                        out = Arrays.copyOf(out, (int) Math.min(out.length * 2L, head + most + 1));
                    }
                    int n = inflation.inflate(out, at, out.length - at);
                    if (n == 0) {
                        break;
                    }
                    at += n;
                }
                inflation.finish();
            } catch (BodyException e) {
                return new HttpException(e.status, e.getMessage());
            } finally {
                inflation.end();
            }
            req.array = out;
            req.data = MemorySegment.ofArray(out);
            req.base = 0;
            req.bodyEnd = at;
            req.bodyView = null;
        }
        hideCodingFields(req);
        return null;
    }

    /** The handler sees the body as it is now, not as it was sent: without the coding's framing fields. */
    public static void hideCodingFields(RequestState req) {
        int kept = 0;
        for (int h = 0; h < req.headerCount; h++) {
            int s = req.headers[h * 4];
            int len = req.headers[h * 4 + 1] - s;
            boolean coding = len == CONTENT_ENCODING.length && dev.spindle.core.bytes.Ascii.equalsIgnoreCase(req.data, req.base + s, CONTENT_ENCODING)
                    || len == CONTENT_LENGTH.length && dev.spindle.core.bytes.Ascii.equalsIgnoreCase(req.data, req.base + s, CONTENT_LENGTH);
            if (!coding) {
                System.arraycopy(req.headers, h * 4, req.headers, kept * 4, 4);
                kept++;
            }
        }
        req.headerCount = kept;
    }

    private static boolean is(RequestState req, int from, int to, String token) {
        if (to - from != token.length()) {
            return false;
        }
        for (int i = 0; i < token.length(); i++) {
            int c = at(req, from + i);
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != token.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static byte at(RequestState req, int i) {
        return req.array != null ? req.array[i] : req.data.get(ValueLayout.JAVA_BYTE, i);
    }
}
