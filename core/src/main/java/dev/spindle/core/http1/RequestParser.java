package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
 */
public final class RequestParser {
    static final int NEED_MORE = 0;
    public static final int COMPLETE = 1;
    /** The header section of a request with a body is complete; the body has not been parsed. */
    static final int HEADERS = 2;

    /** Takes decoded body bytes; returns how many it took (fewer when it is full). */
    interface BodySink {
        int accept(MemorySegment data, byte[] array, long offset, int length);
    }

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
    private static final byte[] HOST = "host".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXPECT = "expect".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHUNKED = "chunked".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "close".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEEP_ALIVE = "keep-alive".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTINUE = "100-continue".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP_SLASH = "HTTP/".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_CHUNK_LINE = 4096;
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long LF_WORD = 0x0A0A0A0A0A0A0A0AL;
    private static final int MAX_LEADING_EMPTY_LINES = 8;

    private enum State { REQUEST_LINE, HEADERS, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS }

    private final int maxRequestLine;
    private final int maxHeaderSize;
    private final int maxHeaderCount;
    private final long defaultBodyLimit;
    /** The current request's body limit: {@link #defaultBodyLimit} until {@link #limitBody} sets the route's. */
    private long maxBody;

    private State state = State.REQUEST_LINE;
    /** Next byte to examine. */
    private int pos;
    /** Start of the line being scanned. */
    private int lineStart;
    private int emptyLines;
    private int headerSectionStart;
    private int hostCount;
    private boolean transferEncoding;
    private int chunkedCodings;
    private boolean chunkedLast;
    private boolean otherCoding;
    private long chunkRemaining;
    /** Streaming mode: the body is handed to a sink and consumed as it is decoded. */
    private boolean streaming;
    /** Streaming mode: body bytes decoded so far, and bytes of a Content-Length body still to come. */
    private long streamed;
    private long bodyRemaining;
    private int trailerBytes;
    /** The array behind the memory being parsed, or null when it is native: array reads are cheaper. */
    private byte[] heap;

    public RequestParser(ServerConfig config) {
        this.maxRequestLine = config.maxRequestLineLength();
        this.maxHeaderSize = config.maxHeaderSize();
        this.maxHeaderCount = config.maxHeaderCount();
        this.defaultBodyLimit = config.maxBodySize();
        this.maxBody = defaultBodyLimit;
    }

    /** True once the header section is complete and the body has not fully arrived. */
    boolean inBody() {
        return state.ordinal() >= State.BODY.ordinal();
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
                    maxBody = defaultBodyLimit;
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
                        headerLine(d, b, lineStart, lf - 1, req, true);
                        pos = lf + 1;
                        lineStart = pos;
                    }
                }
                case BODY -> {
                    if (req.contentLength > maxBody) {
                        throw bodyTooLarge();
                    }
                    if (avail - req.bodyStart < req.contentLength) {
                        return NEED_MORE;
                    }
                    req.bodyEnd = req.bodyStart + (int) req.contentLength;
                    pos = req.bodyEnd;
                    return complete(in, req);
                }
                case CHUNK_SIZE -> {
                    int lf = findLf(d, b, avail, MAX_CHUNK_LINE, 400, "chunk size line too long");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    requireCr(d, b, lf);
                    chunkRemaining = chunkSize(d, b + lineStart, b + lf - 1, req.bodyEnd - req.bodyStart);
                    pos = lf + 1;
                    lineStart = pos;
                    state = chunkRemaining == 0 ? State.TRAILERS : State.CHUNK_DATA;
                    headerSectionStart = pos;
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkRemaining, avail - pos);
                    if (n == 0) {
                        return NEED_MORE;
                    }
                    if (in.isLent()) {
                        // chunks are joined by moving bytes; never write to memory the caller lent
                        in.keepTail();
                        d = in.memory;
                        heap = in.array;
                        b = in.start;
                    }
                    MemorySegment.copy(d, b + pos, d, b + req.bodyEnd, n);
                    req.bodyEnd += n;
                    pos += n;
                    chunkRemaining -= n;
                    if (chunkRemaining == 0) {
                        state = State.CHUNK_END;
                    }
                }
                case CHUNK_END -> {
                    if (avail - pos < 2) {
                        return NEED_MORE;
                    }
                    if (at(d, b + pos) != '\r' || at(d, b + pos + 1) != '\n') {
                        throw new HttpException(400, "chunk data not followed by CRLF");
                    }
                    pos += 2;
                    lineStart = pos;
                    state = State.CHUNK_SIZE;
                }
                case TRAILERS -> {
                    int limit = headerSectionStart + maxHeaderSize - lineStart;
                    int lf = findLf(d, b, avail, limit, 431, "trailer section too large");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    requireCr(d, b, lf);
                    if (lf - 1 == lineStart) {
                        pos = lf + 1;
                        return complete(in, req);
                    }
                    headerLine(d, b, lineStart, lf - 1, req, false);
                    pos = lf + 1;
                    lineStart = pos;
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
        maxBody = limit;
        if (req.contentLength > limit) {
            throw bodyTooLarge();
        }
    }

    private HttpException bodyTooLarge() {
        return new HttpException(413, "body larger than " + maxBody + " bytes");
    }

    /** Whether the body being parsed is handed to a sink rather than buffered. */
    boolean isStreaming() {
        return streaming;
    }

    /**
     * After {@link #HEADERS}: the body will be read with {@link #streamBody}. Consumes the header
     * section from {@code in}, so the caller must have copied what it keeps of the request.
     */
    void beginStreaming(InputBuffer in, RequestState req) {
        in.consume(pos);
        streaming = true;
        streamed = 0;
        trailerBytes = 0;
        bodyRemaining = req.chunked ? -1 : req.contentLength;
        pos = 0;
        lineStart = 0;
    }

    /**
     * Streaming mode: decodes as much of the body as has arrived and the sink takes, consuming it
     * from {@code in}. {@link #COMPLETE} at the end of the body (trailers included), else
     * {@link #NEED_MORE} (more input, or room in the sink, is needed).
     */
    int streamBody(InputBuffer in, BodySink sink) {
        while (true) {
            MemorySegment d = in.memory;
            heap = in.array;
            int b = in.start;
            int avail = in.end - in.start;
            switch (state) {
                case BODY -> {
                    int n = (int) Math.min(bodyRemaining, avail);
                    if (n == 0) {
                        return NEED_MORE;
                    }
                    int taken = sink.accept(d, heap, b, n);
                    in.consume(taken);
                    bodyRemaining -= taken;
                    streamed += taken;
                    if (bodyRemaining == 0) {
                        return endStreaming();
                    }
                    if (taken < n) {
                        return NEED_MORE;
                    }
                }
                case CHUNK_SIZE -> {
                    int lf = findLf(d, b, avail, MAX_CHUNK_LINE, 400, "chunk size line too long");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    requireCr(d, b, lf);
                    chunkRemaining = chunkSize(d, b, b + lf - 1, streamed);
                    in.consume(lf + 1);
                    pos = 0;
                    lineStart = 0;
                    state = chunkRemaining == 0 ? State.TRAILERS : State.CHUNK_DATA;
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkRemaining, avail);
                    if (n == 0) {
                        return NEED_MORE;
                    }
                    int taken = sink.accept(d, heap, b, n);
                    in.consume(taken);
                    chunkRemaining -= taken;
                    streamed += taken;
                    if (chunkRemaining == 0) {
                        state = State.CHUNK_END;
                    } else if (taken < n) {
                        return NEED_MORE;
                    }
                }
                case CHUNK_END -> {
                    if (avail < 2) {
                        return NEED_MORE;
                    }
                    if (at(d, b) != '\r' || at(d, b + 1) != '\n') {
                        throw new HttpException(400, "chunk data not followed by CRLF");
                    }
                    in.consume(2);
                    state = State.CHUNK_SIZE;
                }
                case TRAILERS -> {
                    int lf = findLf(d, b, avail, maxHeaderSize - trailerBytes, 431, "trailer section too large");
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    requireCr(d, b, lf);
                    if (lf == 1) {
                        in.consume(2);
                        return endStreaming();
                    }
                    headerLine(d, b, 0, lf - 1, null, false);
                    trailerBytes += lf + 1;
                    in.consume(lf + 1);
                    pos = 0;
                    lineStart = 0;
                }
                default -> throw new IllegalStateException("not streaming a body: " + state);
            }
        }
    }

    private int endStreaming() {
        streaming = false;
        state = State.REQUEST_LINE;
        pos = 0;
        lineStart = 0;
        emptyLines = 0;
        return COMPLETE;
    }

    /** Length of the request just completed, to consume from the input. */
    int consumed() {
        return lastConsumed;
    }

    private int lastConsumed;

    private int complete(InputBuffer in, RequestState req) {
        req.data = in.memory;
        req.array = in.array;
        req.base = in.start;
        lastConsumed = pos;
        state = State.REQUEST_LINE;
        pos = 0;
        lineStart = 0;
        emptyLines = 0;
        return COMPLETE;
    }

    /**
     * Finds the next LF from {@link #pos}, remembering how far it looked. Fails with
     * {@code status} once the line from {@link #lineStart} exceeds {@code maxLine} bytes.
     */
    private int findLf(MemorySegment d, int b, int avail, int maxLine, int status, String message) {
        int limit = Math.min(avail, lineStart + maxLine);
        int i = pos;
        // Eight bytes at a time (SWAR): the lowest byte of the word that equals LF is exact.
        for (; i + Long.BYTES <= limit; i += Long.BYTES) {
            long x = (heap != null ? (long) LONGS.get(heap, b + i) : d.get(LONG_LE, b + i)) ^ LF_WORD;
            long found = (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < limit; i++) {
            if (at(d, b + i) == '\n') {
                return i;
            }
        }
        pos = limit;
        if (avail - lineStart >= maxLine) {
            throw new HttpException(status, message);
        }
        return -1;
    }

    private byte at(MemorySegment d, int i) {
        byte[] h = heap;
        return h != null ? h[i] : d.get(BYTE, i);
    }

    /** Out of the target loop, so the loop stays small for C2: most targets have no escape. */
    private void percentEscape(MemorySegment d, int b, int i, int end) {
        if (i + 2 >= end || Ascii.hexValue(at(d, b + i + 1)) < 0 || Ascii.hexValue(at(d, b + i + 2)) < 0) {
            throw new HttpException(400, "malformed percent-escape in request target");
        }
    }

    private void requireCr(MemorySegment d, int b, int lf) {
        if (lf == lineStart || at(d, b + lf - 1) != '\r') {
            throw new HttpException(400, "line not terminated by CRLF");
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

    private void headerLine(MemorySegment d, int b, int start, int end, RequestState req, boolean record) {
        if (Ascii.isWhitespace(at(d, b + start))) {
            throw new HttpException(400, "obsolete line folding is not allowed");
        }
        int i = start;
        while (i < end && Ascii.isTchar(at(d, b + i))) {
            i++;
        }
        if (i == end || at(d, b + i) != ':') {
            throw new HttpException(400, i < end && Ascii.isWhitespace(at(d, b + i))
                    ? "whitespace between header name and colon" : "malformed header field");
        }
        if (i == start) {
            throw new HttpException(400, "empty header name");
        }
        int nameEnd = i++;
        while (i < end && Ascii.isWhitespace(at(d, b + i))) {
            i++;
        }
        int valueStart = i;
        for (; i < end; i++) {
            if (!Ascii.isFieldValueChar(at(d, b + i))) {
                throw new HttpException(400, "invalid character in header value");
            }
        }
        int valueEnd = end;
        while (valueEnd > valueStart && Ascii.isWhitespace(at(d, b + valueEnd - 1))) {
            valueEnd--;
        }
        if (!record) {
            return;
        }
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
            state = State.CHUNK_SIZE;
            headerSectionStart = pos;
        } else if (req.contentLength > 0) {
            // checked against the limit once the connection has found the route (limitBody), or when parsing goes on
            state = State.BODY;
        }
    }

    private long chunkSize(MemorySegment d, int from, int to, long bodySoFar) {
        long size = 0;
        int i = from;
        while (i < to && Ascii.hexValue(at(d, i)) >= 0) {
            // Another digit must not shift a bit into the sign: a negative size would pass the body limit.
            if (size > 0x07FFFFFF_FFFFFFFFL) {
                throw new HttpException(400, "chunk size overflows");
            }
            size = size << 4 | Ascii.hexValue(at(d, i));
            i++;
        }
        if (i == from) {
            throw new HttpException(400, "invalid chunk size");
        }
        while (i < to && Ascii.isWhitespace(at(d, i))) {
            i++;
        }
        if (i < to) {
            if (at(d, i) != ';') {
                throw new HttpException(400, "invalid chunk size");
            }
            for (i++; i < to; i++) {
                if (!Ascii.isFieldValueChar(at(d, i))) {
                    throw new HttpException(400, "invalid character in chunk extension");
                }
            }
        }
        if (size > maxBody - bodySoFar) {
            throw bodyTooLarge();
        }
        return size;
    }
}
