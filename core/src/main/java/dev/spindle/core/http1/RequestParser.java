// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Incremental, strict HTTP/1.1 request parser (RFC 9112). It is fed whatever bytes have arrived
 * and resumes where it stopped: a request delivered whole, split anywhere, or byte by byte parses
 * the same, and no byte is scanned twice. All positions are relative to {@link InputBuffer#start},
 * the first byte of the request being parsed.
 *
 * <table>
 *   <caption>Limits and the status each one answers</caption>
 *   <tr><th>condition</th><th>status</th><th>default</th></tr>
 *   <tr><td>request line longer than {@link ServerConfig#maxRequestLineLength()}</td><td>414</td><td>8 KiB</td></tr>
 *   <tr><td>header section longer than {@link ServerConfig#maxHeaderSize()}</td><td>431</td><td>32 KiB</td></tr>
 *   <tr><td>more fields than {@link ServerConfig#maxHeaderCount()}</td><td>431</td><td>128</td></tr>
 *   <tr><td>body longer than the request's limit ({@link #limitBody}: the route's, else
 *       {@link ServerConfig#maxBodySize()} when buffered, {@link ServerConfig#maxStreamedBodySize()}
 *       when streamed)</td><td>413</td><td>16 MiB buffered, none streamed</td></tr>
 *   <tr><td>transfer coding other than chunked</td><td>501</td><td></td></tr>
 *   <tr><td>HTTP version other than 1.0 and 1.x</td><td>505</td><td></td></tr>
 *   <tr><td>{@code Expect} other than {@code 100-continue}</td><td>417</td><td></td></tr>
 *   <tr><td>anything malformed, and every framing ambiguity (Content-Length with
 *       Transfer-Encoding, Content-Length repeated or a list even of equal values, whitespace
 *       before a colon, obs-fold, CR/LF/NUL in a value, bare LF, missing Host on HTTP/1.1)</td><td>400</td><td></td></tr>
 *   <tr><td>a request-target that is not origin-form or absolute-form (asterisk-form is for
 *       {@code OPTIONS} only, authority-form for {@code CONNECT} only), or a malformed
 *       percent-escape ({@code %zz}, a trailing {@code %})</td><td>400</td><td></td></tr>
 * </table>
 * Every failure is an {@link HttpException}; the connection answers it and closes.
 *
 * <p>A request with a body is reported at the end of its header section ({@link #HEADERS}), so the
 * connection can route it first: for an inline handler it calls {@link #parse} again, which buffers
 * the whole body; for a handler that streams its body it calls {@link #beginStreaming} and then
 * {@link #streamBody}, which hands the decoded body over as it arrives without buffering it.
 * Either way the body (its length or chunked coding, and its limit) is its {@link BodyDecoder}'s.
 */
public final class RequestParser extends LineScanner {
    static final int NEED_MORE = 0;
    public static final int COMPLETE = 1;
    /** The header section of a request with a body is complete; the body has not been parsed. */
    static final int HEADERS = 2;

    private static final Method[] KNOWN_METHODS = {Method.GET, Method.HEAD, Method.POST, Method.PUT, Method.DELETE,
        Method.PATCH, Method.OPTIONS, Method.TRACE, Method.CONNECT};
    private static final byte[][] METHOD_TOKENS = new byte[KNOWN_METHODS.length][];

    static {
        for (int i = 0; i < KNOWN_METHODS.length; i++) {
            METHOD_TOKENS[i] = KNOWN_METHODS[i].name().getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static final byte[] CONTENT_LENGTH = "content-length".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRANSFER_ENCODING = "transfer-encoding".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION = "connection".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UPGRADE = "upgrade".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] H2C = "h2c".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HOST = "host".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXPECT = "expect".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHUNKED = "chunked".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "close".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = "keep-alive".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTINUE = "100-continue".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP_SLASH = "HTTP/".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_LEADING_EMPTY_LINES = 8;

    private enum State { REQUEST_LINE, HEADERS, BODY }

    private final int maxRequestLine;
    private final int maxHeaderSize;
    private final int maxHeaderCount;
    /** The body of the current request, once its header section is complete ({@link State#BODY}). */
    private final BodyDecoder body;

    private State state = State.REQUEST_LINE;
    private int emptyLines;
    private int headerSectionStart;
    private int hostCount;
    private boolean transferEncoding;
    private int chunkedCodings;
    private boolean chunkedLast;
    private boolean otherCoding;
    private int lastConsumed;

    public RequestParser(ServerConfig config) {
        this.maxRequestLine = config.maxRequestLineLength();
        this.maxHeaderSize = config.maxHeaderSize();
        this.maxHeaderCount = config.maxHeaderCount();
        this.body = new BodyDecoder(config);
    }

    /** True once the header section is complete and the body has not fully arrived. */
    boolean inBody() {
        return state == State.BODY;
    }

    /** True once the current request's line is parsed, so its method is known (HEAD answers have no body). */
    boolean requestLineParsed() {
        return state != State.REQUEST_LINE;
    }

    /** True when bytes of an unfinished request have been consumed or are buffered. */
    boolean inProgress(InputBuffer in) {
        return state != State.REQUEST_LINE || in.available() > 0;
    }

    /**
     * Parses as far as the buffered bytes allow. On {@link #COMPLETE}, {@code req} holds the
     * request (offsets relative to {@code in.start}) and {@link #consumed()} tells its length.
     */
    int parse(InputBuffer in, RequestState req) {
        try {
            return scan(in, req);
        } finally {
            forgetInput();
        }
    }

    /**
     * The scanners hold the input's array only while they scan it: the input buffer lets a refused
     * or dropped body's array go with its budget reservation, and a reference kept here would keep
     * it in the heap, outside the budget, for as long as the connection lingers.
     */
    private void forgetInput() {
        heap = null;
        body.heap = null;
    }

    private int scan(InputBuffer in, RequestState req) {
        MemorySegment d = in.memory;
        heap = in.array;
        int b = in.start;
        int avail = in.end - in.start;
        while (true) {
            switch (state) {
                case REQUEST_LINE -> {
                    int lf = findLf(d, b, avail, maxRequestLine + 2, 414, "request line too long");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    if (lf == lineStart || lf == lineStart + 1 && at(d, b + lineStart) == '\r') {
                        requireCr(d, b, lf);
                        if (++emptyLines > MAX_LEADING_EMPTY_LINES) {
                            throw new HttpException(400, "too many empty lines before the request line");
                        }
                        in.consume(lf + 1);
                        b = in.start;
                        d = in.memory;
                        heap = in.array;
                        avail = in.end - in.start;
                        pos = 0;
                        lineStart = 0;
                        continue;
                    }
                    requireCr(d, b, lf);
                    req.reset();
                    req.data = d;
                    requestLine(d, b, lf, req);
                    pos = lf + 1;
                    lineStart = pos;
                    headerSectionStart = pos;
                    hostCount = 0;
                    transferEncoding = false;
                    chunkedCodings = 0;
                    chunkedLast = false;
                    otherCoding = false;
                    state = State.HEADERS;
                }
                case HEADERS -> {
                    int limit = headerSectionStart + maxHeaderSize - lineStart;
                    int lf = findLf(d, b, avail, limit, 431, "header section too large");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    requireCr(d, b, lf);
                    if (lf - 1 == lineStart) {
                        pos = lf + 1;
                        lineStart = pos;
                        endOfHeaders(req);
                        if (state == State.HEADERS) {
                            return complete(in, req);
                        }
                        req.data = in.memory;
                        req.array = in.array;
                        req.base = in.start;
                        return HEADERS;
                    } else {
                        if (req.headerCount >= maxHeaderCount) {
                            throw new HttpException(431, "too many header fields");
                        }
                        headerLine(d, b, lineStart, lf - 1, req);
                        pos = lf + 1;
                        lineStart = pos;
                    }
                }
                case BODY -> {
                    if (!body.parse(in, req)) {
                        return NEED_MORE;
                    }
                    pos = body.pos;
                    return complete(in, req);
                }
            }
        }
    }

    /** {@link #parse}, buffering any body: never {@link #HEADERS}. */
    public int parseBuffered(InputBuffer in, RequestState req) {
        int result;
        do {
            result = parse(in, req);
        } while (result == HEADERS);
        return result;
    }

    /**
     * After {@link #HEADERS}: the largest body this request may have (its route's limit), in place
     * of {@link ServerConfig#maxBodySize()}; it holds until the next request begins.
     *
     * @throws HttpException 413 if the announced length is larger
     */
    void limitBody(long limit, RequestState req) {
        body.limit(limit, req);
    }

    /**
     * After {@link #HEADERS}: the body will be read with {@link #streamBody}. Consumes the header
     * section from {@code in}, so the caller must have copied what it keeps of the request.
     */
    void beginStreaming(InputBuffer in, RequestState req) {
        in.consume(pos);
        body.beginStreaming(req);
    }

    /**
     * Streaming mode: decodes as much of the body as has arrived and the sink takes, consuming it
     * from {@code in}. {@link #COMPLETE} at the end of the body (trailers included), else
     * {@link #NEED_MORE} (more input, or room in the sink, is needed).
     */
    int streamBody(InputBuffer in, BodyDecoder.BodySink sink) {
        if (state != State.BODY) {
            throw new IllegalStateException("not streaming a body: " + state);
        }
        try {
            if (!body.stream(in, sink)) {
                return NEED_MORE;
            }
        } finally {
            forgetInput();
        }
        return nextRequest();
    }

    /** Length of the request just completed, to consume from the input. */
    int consumed() {
        return lastConsumed;
    }

    private int complete(InputBuffer in, RequestState req) {
        req.data = in.memory;
        req.array = in.array;
        req.base = in.start;
        lastConsumed = pos;
        return nextRequest();
    }

    /** The request is complete: the next one starts at the start of the input once this one is consumed. */
    private int nextRequest() {
        state = State.REQUEST_LINE;
        pos = 0;
        lineStart = 0;
        emptyLines = 0;
        return COMPLETE;
    }

    /** Out of the target loop, so the loop stays small for C2: most targets have no escape. */
    private void percentEscape(MemorySegment d, int b, int i, int end) {
        if (i + 2 >= end || Ascii.hexValue(at(d, b + i + 1)) < 0 || Ascii.hexValue(at(d, b + i + 2)) < 0) {
            throw new HttpException(400, "malformed percent-escape in request target");
        }
    }

    /** The method whose token is {@code data[start, end)}, matched without creating a String. */
    private static Method method(MemorySegment data, byte[] array, int start, int end) {
        int len = end - start;
        for (int i = 0; i < METHOD_TOKENS.length; i++) {
            byte[] t = METHOD_TOKENS[i];
            if (t.length == len && Ascii.equals(data, array, start, t)) {
                return KNOWN_METHODS[i];
            }
        }
        return Method.OTHER;
    }

    private void requestLine(MemorySegment d, int b, int lf, RequestState req) {
        int end = lf - 1;
        int i = lineStart;
        while (i < end && Ascii.isTchar(at(d, b + i))) {
            i++;
        }
        if (i == lineStart || i == end || at(d, b + i) != ' ') {
            throw new HttpException(400, "malformed method in request line");
        }
        req.method = method(d, heap, b + lineStart, b + i);
        req.methodEnd = i;
        int ts = ++i;
        int queryStart = -1;
        while (i < end && at(d, b + i) != ' ') {
            byte c = at(d, b + i);
            if (c < 0x21 || c > 0x7E || c == '#') {
                throw new HttpException(400, "invalid character in request target");
            }
            if (c == '?' && queryStart < 0) {
                queryStart = i + 1;
            } else if (c == '%') {
                percentEscape(d, b, i, end);
            }
            i++;
        }
        if (i == ts || i == end) {
            throw new HttpException(400, "malformed request target");
        }
        req.targetStart = ts;
        req.targetEnd = i;
        req.queryStart = queryStart;
        int pathEnd = queryStart < 0 ? i : queryStart - 1;
        req.pathStart = ts;
        req.pathEnd = pathEnd;
        if (at(d, b + ts) != '/') {
            originOf(d, b, req, pathEnd);
        } else if (req.method == Method.CONNECT) {
            throw new HttpException(400, "CONNECT needs an authority-form request target (host:port)");
        }
        version(d, b, i + 1, end, req);
    }

    /**
     * A target that does not start with {@code /}: absolute-form ({@code http://host/path}, path
     * offsets then point at the path part), asterisk-form for {@code OPTIONS} and authority-form
     * ({@code host:port}, an empty path) for {@code CONNECT}; anything else is 400 (RFC 9112 3.2).
     */
    private void originOf(MemorySegment d, int b, RequestState req, int pathEnd) {
        int ts = req.targetStart;
        if (pathEnd - ts == 1 && at(d, b + ts) == '*') {
            if (req.method != Method.OPTIONS) {
                throw new HttpException(400, "asterisk-form request target is only for OPTIONS");
            }
            return;
        }
        int schemeEnd = ts;
        while (schemeEnd < pathEnd && at(d, b + schemeEnd) != ':') {
            schemeEnd++;
        }
        if (schemeEnd + 2 >= pathEnd || at(d, b + schemeEnd + 1) != '/' || at(d, b + schemeEnd + 2) != '/') {
            if (req.method == Method.CONNECT && schemeEnd > ts && schemeEnd < pathEnd && req.queryStart < 0) {
                req.pathStart = pathEnd;
                return;
            }
            throw new HttpException(400, req.method == Method.CONNECT
                    ? "CONNECT needs an authority-form request target (host:port)"
                    : "request target is neither origin-form nor absolute-form");
        }
        int p = schemeEnd + 3;
        while (p < pathEnd && at(d, b + p) != '/') {
            p++;
        }
        req.pathStart = p;
    }

    private void version(MemorySegment d, int b, int start, int end, RequestState req) {
        if (end - start != 8 || !Ascii.equals(d, b + start, HTTP_SLASH)
                || at(d, b + start + 6) != '.') {
            throw new HttpException(400, "malformed HTTP version");
        }
        int major = at(d, b + start + 5) - '0';
        int minor = at(d, b + start + 7) - '0';
        if (major < 0 || major > 9 || minor < 0 || minor > 9) {
            throw new HttpException(400, "malformed HTTP version");
        }
        if (major != 1) {
            throw new HttpException(505, "HTTP version not supported");
        }
        req.version = minor == 0 ? RequestState.HTTP_1_0 : RequestState.HTTP_1_1;
    }

    private void headerLine(MemorySegment d, int b, int start, int end, RequestState req) {
        int nameEnd = fieldName(d, b, start, end);
        int valueStart = valueStart(d, b, nameEnd, end);
        int valueEnd = valueEnd(d, b, valueStart, end);
        req.addHeader(start, nameEnd, valueStart, valueEnd);
        knownHeader(d, b, start, nameEnd - start, valueStart, valueEnd, req);
    }

    private void knownHeader(MemorySegment d, int b, int name, int len, int vs, int ve, RequestState req) {
        switch (len) {
            case 4 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, HOST) && ++hostCount > 1) {
                    throw new HttpException(400, "more than one Host header");
                }
            }
            case 6 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, EXPECT)) {
                    if (ve - vs == CONTINUE.length && Ascii.equalsIgnoreCase(d, b + vs, CONTINUE)) {
                        req.expectContinue = true;
                    } else {
                        throw new HttpException(417, "unsupported expectation");
                    }
                }
            }
            case 7 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, UPGRADE)) {
                    upgradeTokens(d, b, vs, ve, req);
                }
            }
            case 10 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, CONNECTION)) {
                    connectionTokens(d, b, vs, ve, req);
                }
            }
            case 14 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, CONTENT_LENGTH)) {
                    if (req.contentLength >= 0) {
                        throw new HttpException(400, "more than one Content-Length");
                    }
                    contentLength(d, b, vs, ve, req);
                }
            }
            case 17 -> {
                if (Ascii.equalsIgnoreCase(d, b + name, TRANSFER_ENCODING)) {
                    transferCodings(d, b, vs, ve);
                }
            }
            default -> {
            }
        }
    }

    /**
     * One Content-Length field holding one number. RFC 9110 8.6 lets a recipient accept a repeated
     * or listed length of one value, but a proxy in front may pick another element: like Netty 4.2
     * and nginx, a list (even {@code 11,11}) or a second field is 400.
     */
    private void contentLength(MemorySegment d, int b, int vs, int ve, RequestState req) {
        long value = 0;
        int i = vs;
        for (; i < ve; i++) {
            byte c = at(d, b + i);
            if (c < '0' || c > '9') {
                break;
            }
            if (value > (Long.MAX_VALUE - 9) / 10) {
                throw new HttpException(400, "Content-Length overflows");
            }
            value = value * 10 + (c - '0');
        }
        if (i == vs || i < ve) {
            throw new HttpException(400, i < ve && at(d, b + i) == ',' ? "Content-Length is a list" : "invalid Content-Length");
        }
        req.contentLength = value;
    }

    private void transferCodings(MemorySegment d, int b, int vs, int ve) {
        transferEncoding = true;
        for (long t = nextToken(d, b, vs, ve); t >= 0; t = nextToken(d, b, (int) t, ve)) {
            int s = (int) (t >>> 32);
            int e = (int) t;
            if (e - s == CHUNKED.length && Ascii.equalsIgnoreCase(d, b + s, CHUNKED)) {
                chunkedCodings++;
                chunkedLast = true;
            } else {
                otherCoding = true;
                chunkedLast = false;
            }
        }
    }

    /** RFC 9110 7.8: the protocols the client offers to switch to; only h2c is known. */
    private void upgradeTokens(MemorySegment d, int b, int vs, int ve, RequestState req) {
        for (long t = nextToken(d, b, vs, ve); t >= 0; t = nextToken(d, b, (int) t, ve)) {
            int s = (int) (t >>> 32);
            int e = (int) t;
            if (e - s == H2C.length && Ascii.equalsIgnoreCase(d, b + s, H2C)) {
                req.upgradeH2c = true;
            }
        }
    }

    private void connectionTokens(MemorySegment d, int b, int vs, int ve, RequestState req) {
        for (long t = nextToken(d, b, vs, ve); t >= 0; t = nextToken(d, b, (int) t, ve)) {
            int s = (int) (t >>> 32);
            int e = (int) t;
            if (e - s == CLOSE.length && Ascii.equalsIgnoreCase(d, b + s, CLOSE)) {
                req.connectionClose = true;
            } else if (e - s == KEEP_ALIVE.length && Ascii.equalsIgnoreCase(d, b + s, KEEP_ALIVE)) {
                req.connectionKeepAlive = true;
            }
        }
    }

    /**
     * The next element of a comma-separated list at or after {@code from}, packed as
     * {@code start << 32 | end}, or -1 when none is left. Empty elements are skipped; an element
     * with inner whitespace is malformed.
     */
    private long nextToken(MemorySegment d, int b, int from, int ve) {
        int i = from;
        while (i < ve && (Ascii.isWhitespace(at(d, b + i)) || at(d, b + i) == ',')) {
            i++;
        }
        if (i == ve) {
            return -1;
        }
        int s = i;
        while (i < ve && at(d, b + i) != ',' && !Ascii.isWhitespace(at(d, b + i))) {
            i++;
        }
        int e = i;
        while (i < ve && Ascii.isWhitespace(at(d, b + i))) {
            i++;
        }
        if (i < ve && at(d, b + i) != ',') {
            throw new HttpException(400, "malformed list in header value");
        }
        return (long) s << 32 | e;
    }

    private void endOfHeaders(RequestState req) {
        if (req.version == RequestState.HTTP_1_1 && hostCount == 0) {
            throw new HttpException(400, "missing Host header");
        }
        req.bodyStart = pos;
        req.bodyEnd = pos;
        if (transferEncoding) {
            if (req.contentLength >= 0) {
                throw new HttpException(400, "both Content-Length and Transfer-Encoding");
            }
            if (req.version == RequestState.HTTP_1_0) {
                throw new HttpException(400, "Transfer-Encoding in an HTTP/1.0 request");
            }
            if (chunkedCodings > 1 || chunkedCodings == 1 && !chunkedLast) {
                throw new HttpException(400, "chunked must be the final transfer coding, once");
            }
            if (otherCoding || chunkedCodings == 0) {
                throw new HttpException(501, "unsupported transfer coding");
            }
            req.chunked = true;
            body.begin(true, pos);
            state = State.BODY;
        } else if (req.contentLength > 0) {
            // checked against the limit once the connection has found the route (limitBody), or when parsing goes on
            body.begin(false, pos);
            state = State.BODY;
        }
    }
}
