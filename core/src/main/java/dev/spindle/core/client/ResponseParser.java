// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.bytes.Ascii;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental, strict HTTP/1.1 response parser (RFC 9112), fed bytes as they arrive in any split:
 * a response delivered whole, split anywhere or byte by byte parses the same. Sans-I/O and
 * allocation-light: the head is gathered in one reused array (field offsets into it, nothing
 * decoded), chunk-size lines are read byte by byte without being kept, and body bytes are handed
 * on as slices of the input, never copied here.
 *
 * <p>The caller says before each response whether it answers a {@code HEAD} request
 * ({@link #begin}), then feeds bytes ({@link #parse}) until a response is complete, which may leave
 * bytes of the next (pipelined) response in the input; at the end of input
 * ({@link #endOfInput}) a body delimited by the close ends, anything else unfinished is a
 * {@link ClientException.Reason#CONNECTION_CLOSED}. Events go to a {@link Listener}.
 *
 * <p>What it takes (anything else is {@link ClientException.Reason#MALFORMED_RESPONSE}):
 * <ul>
 *   <li>a status line {@code HTTP/1.1} or {@code HTTP/1.0}, SP, a status code from 100 to 599, SP,
 *       a reason phrase (possibly empty) of visible characters, SP, HTAB and obs-text;</li>
 *   <li>field lines: a token name, a colon right after it (no whitespace before it), a value
 *       without CR, LF, NUL or other control characters but HTAB; no obs-fold (a line starting
 *       with whitespace); every line ending in CRLF (a bare LF or CR is malformed);</li>
 *   <li>limits: the status line ({@link ClientSettings#maxStatusLineLength()}), the header section
 *       and the trailer section, each with its CRLFs ({@link ClientSettings#maxHeaderSize()}), the
 *       field lines in each ({@link ClientSettings#maxHeaderCount()}), a chunk-size line with its
 *       extensions (4 KiB), 32 interim responses before the final one;</li>
 *   <li>interim responses (1xx but 101) skipped; {@code 101} is malformed, since no request asks
 *       to switch protocols;</li>
 *   <li>framing as RFC 9112 6.3 says for responses: no body for a {@code HEAD} request, 204 and
 *       304; {@code Transfer-Encoding} with {@code chunked} last is chunked, without it the body
 *       runs to the close; {@code Transfer-Encoding} wins over {@code Content-Length}, and the
 *       connection is then not reused; {@code Content-Length} values (repeated or listed) must all
 *       be equal and valid; with neither field the body runs to the close;
 *       {@code Transfer-Encoding} in an HTTP/1.0 response, or {@code chunked} applied twice, is
 *       malformed;</li>
 *   <li>chunked: hex sizes (overflow checked), extensions checked and skipped, strict CRLF after
 *       each chunk's data, a trailer section parsed like the header section.</li>
 * </ul>
 * Keep-alive ({@link #reusable()}): an HTTP/1.1 response unless {@code Connection: close}; an
 * HTTP/1.0 one only with {@code Connection: keep-alive} and a known length; never a body that runs
 * to the close.
 */
final class ResponseParser {
    /** {@link #parse} used up the input and the response is not complete. */
    static final int NEED_MORE = 0;
    /** {@link #parse} completed a response; the input is positioned after it. */
    static final int COMPLETE = 1;
    /**
     * {@link #parse} stopped because the listener took fewer body bytes than offered; the input is
     * positioned at the first byte not taken, to be parsed again once the listener can take more.
     */
    static final int PAUSED = 2;

    /** How the body of the response being parsed is delimited. */
    enum Framing {
        /** No body. */
        NONE,
        /** {@code Content-Length} bytes. */
        LENGTH,
        /** The chunked transfer coding. */
        CHUNKED,
        /** Everything until the server closes the connection. */
        CLOSE
    }

    /** What the parser reports, on the thread that feeds it. */
    interface Listener {
        /**
         * The header section of the final response is complete; the head's accessors
         * ({@link #status()}, {@link #buffer()}, {@link #fieldOffsets()}...) hold it during this call only.
         */
        void head(ResponseParser parser);

        /**
         * Body bytes, from {@code data}'s position to its limit, valid during this call only.
         *
         * @return how many of them were taken, from the first: fewer than offered pauses the parser
         */
        int body(ByteBuffer data);

        /** The response is complete; the trailer section, if any, is in the field accessors during this call only. */
        void end(ResponseParser parser);
    }

    private static final byte[] HTTP_1 = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);
    static final int MAX_CHUNK_LINE = ChunkSizeLine.MAX_LENGTH;
    static final int MAX_INTERIM_RESPONSES = 32;

    private enum State {
        IDLE, STATUS_LINE, HEADERS, BODY_LENGTH, BODY_CLOSE,
        CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_CR, CHUNK_DATA_LF, TRAILERS
    }

    private final int maxStatusLine;
    private final int maxHeaderSize;
    private final int maxHeaderCount;
    /** The messages of the limits, made once: a line is read for every field. */
    private final String statusLineTooLong;
    private final String headerSectionTooLarge;
    private final String trailerSectionTooLarge;

    private State state = State.IDLE;
    private boolean headRequest;
    /** The head (or, once the body began, the trailer section) gathered so far: {@code buf[0, length)}. */
    private byte[] buf = new byte[512];
    private int length;
    /** Where the line being gathered starts in {@link #buf}, and where the current section started. */
    private int lineStart;
    private int sectionStart;
    /** Four offsets per field line into {@link #buf}: name start and end, value start and end. */
    private int[] fields = new int[64];
    private int fieldCount;

    private int interimResponses;
    private int status;
    private boolean http10;
    private int reasonStart;
    private int reasonEnd;
    /** What the head's Content-Length, Transfer-Encoding and Connection fields say. */
    private final FramingFields known = new FramingFields();
    private Framing framing;
    private boolean reusable;

    private long bodyRemaining;
    private long bodyReceived;
    private long chunkSize;
    private final ChunkSizeLine chunkLine = new ChunkSizeLine();

    ResponseParser(ClientSettings settings) {
        this.maxStatusLine = settings.maxStatusLineLength();
        this.maxHeaderSize = settings.maxHeaderSize();
        this.maxHeaderCount = settings.maxHeaderCount();
        this.statusLineTooLong = "status line longer than " + maxStatusLine + " bytes";
        this.headerSectionTooLarge = "header section larger than " + maxHeaderSize + " bytes";
        this.trailerSectionTooLarge = "trailer section larger than " + maxHeaderSize + " bytes";
    }

    /**
     * A response is expected next, answering a {@code HEAD} request or not (no body then, whatever
     * its fields say). Drops anything left of an earlier response.
     */
    void begin(boolean head) {
        headRequest = head;
        interimResponses = 0;
        bodyReceived = 0;
        startHead();
        state = State.STATUS_LINE;
    }

    /** Whether a response is expected: between {@link #begin} and its completion. */
    boolean expecting() {
        return state != State.IDLE;
    }

    /** Whether any byte of the expected response (an interim response's included) has arrived. */
    boolean started() {
        return state != State.IDLE && (state != State.STATUS_LINE || length > 0 || interimResponses > 0);
    }

    /** Whether the response's header section is complete (its body, if any, is being read). */
    boolean inBody() {
        return state != State.IDLE && state != State.STATUS_LINE && state != State.HEADERS;
    }

    /**
     * Parses as much of {@code src} as belongs to the expected response.
     *
     * @return {@link #COMPLETE} when the response ended ({@code src} positioned after it),
     *         {@link #PAUSED} when the listener took only part of the body bytes, else {@link #NEED_MORE}
     * @throws ResponseException if the response is malformed, or the listener refused it
     * @throws IllegalStateException if no response is expected ({@link #begin})
     */
    int parse(ByteBuffer src, Listener listener) {
        if (state == State.IDLE) {
            throw new IllegalStateException("no response is expected");
        }
        while (src.hasRemaining()) {
            switch (state) {
                case STATUS_LINE -> {
                    int lf = readLine(src, maxStatusLine + 2, statusLineTooLong);
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    statusLine(lineStart, contentEnd(lf));
                    lineStart = length;
                    sectionStart = length;
                    state = State.HEADERS;
                }
                case HEADERS -> {
                    int lf = readLine(src, maxHeaderSize, headerSectionTooLarge);
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    int end = contentEnd(lf);
                    if (end > lineStart) {
                        field(lineStart, end, true);
                        lineStart = length;
                    } else if (endOfHead(listener)) {
                        return COMPLETE;
                    }
                }
                case BODY_LENGTH -> {
                    int n = (int) Math.min(bodyRemaining, src.remaining());
                    int taken = deliver(src, n, listener);
                    bodyRemaining -= taken;
                    if (bodyRemaining == 0) {
                        return complete(listener);
                    }
                    if (taken < n) {
                        return PAUSED;
                    }
                }
                case BODY_CLOSE -> {
                    int n = src.remaining();
                    if (deliver(src, n, listener) < n) {
                        return PAUSED;
                    }
                }
                case CHUNK_SIZE -> {
                    if (chunkLine.feed(src)) {
                        chunkSize = chunkLine.size();
                        state = chunkSize == 0 ? State.TRAILERS : State.CHUNK_DATA;
                    }
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkSize, src.remaining());
                    int taken = deliver(src, n, listener);
                    chunkSize -= taken;
                    if (chunkSize == 0) {
                        state = State.CHUNK_DATA_CR;
                    } else if (taken < n) {
                        return PAUSED;
                    }
                }
                case CHUNK_DATA_CR -> {
                    if (src.get() != '\r') {
                        throw ResponseException.malformed("chunk data not followed by CRLF");
                    }
                    state = State.CHUNK_DATA_LF;
                }
                case CHUNK_DATA_LF -> {
                    if (src.get() != '\n') {
                        throw ResponseException.malformed("chunk data not followed by CRLF");
                    }
                    startChunkLine();
                }
                case TRAILERS -> {
                    int lf = readLine(src, maxHeaderSize, trailerSectionTooLarge);
                    if (lf < 0) {
                        return NEED_MORE;
                    }
                    int end = contentEnd(lf);
                    if (end > lineStart) {
                        field(lineStart, end, false);
                        lineStart = length;
                    } else {
                        return complete(listener);
                    }
                }
                case IDLE -> throw new IllegalStateException("unreachable");
            }
        }
        // a response whose last state needs no byte (a bodiless head is complete in HEADERS) has returned already
        return NEED_MORE;
    }

    /**
     * The server closed the connection: ends a body that runs to the close.
     *
     * @return true if that completed the response ({@link Listener#end} was called); false if no
     *         byte of the expected response had arrived (or none was expected)
     * @throws ResponseException {@link ClientException.Reason#CONNECTION_CLOSED} if the response was begun and is not complete
     */
    boolean endOfInput(Listener listener) {
        if (state == State.BODY_CLOSE) {
            complete(listener);
            return true;
        }
        if (!started()) {
            return false;
        }
        String detail = switch (state) {
            case STATUS_LINE, HEADERS -> "the server closed the connection in the middle of the response's head";
            case BODY_LENGTH -> "the server closed the connection after " + bodyReceived + " of " + known.contentLength + " body bytes";
            default -> "the server closed the connection in the middle of the chunked body, after " + bodyReceived + " body bytes";
        };
        state = State.IDLE;
        throw new ResponseException(ClientException.Reason.CONNECTION_CLOSED, detail);
    }

    /** The final status code, once the head is complete. */
    int status() {
        return status;
    }

    boolean http10() {
        return http10;
    }

    int reasonStart() {
        return reasonStart;
    }

    int reasonEnd() {
        return reasonEnd;
    }

    /** The announced length, or -1; meaningful once the head is complete. */
    long contentLength() {
        return known.contentLength;
    }

    Framing framing() {
        return framing;
    }

    /** Whether the connection may carry another response after this one. */
    boolean reusable() {
        return reusable;
    }

    /** Body bytes of the current response handed on so far. */
    long bodyReceived() {
        return bodyReceived;
    }

    /** The head during {@link Listener#head}, the trailer section during {@link Listener#end}: {@code [0, bufferLength())}. */
    byte[] buffer() {
        return buf;
    }

    int bufferLength() {
        return length;
    }

    int[] fieldOffsets() {
        return fields;
    }

    int fieldCount() {
        return fieldCount;
    }

    private void startHead() {
        length = 0;
        lineStart = 0;
        sectionStart = 0;
        fieldCount = 0;
        status = 0;
        known.reset();
        framing = null;
        reusable = false;
    }

    /**
     * Copies bytes from {@code src} into {@link #buf} up to and including the next LF, within
     * {@code maxSection} bytes from {@link #sectionStart}.
     *
     * @return the LF's index in {@link #buf}, or -1 when {@code src} ran out first
     */
    private int readLine(ByteBuffer src, int maxSection, String tooLong) {
        int from = src.position();
        int room = sectionStart + maxSection - length;
        int to = from + Math.min(room, src.remaining());
        int lf = indexOfLf(src, from, to);
        int end = lf < 0 ? to : lf + 1;
        int n = end - from;
        if (length + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + n));
        }
        src.get(from, buf, length, n);
        src.position(end);
        length += n;
        if (lf >= 0) {
            return length - 1;
        }
        if (length - sectionStart >= maxSection) {
            throw ResponseException.malformed(tooLong);
        }
        return -1;
    }

    private static int indexOfLf(ByteBuffer src, int from, int to) {
        if (src.hasArray()) {
            byte[] a = src.array();
            int offset = src.arrayOffset();
            for (int i = from + offset, end = to + offset; i < end; i++) {
                if (a[i] == '\n') {
                    return i - offset;
                }
            }
            return -1;
        }
        for (int i = from; i < to; i++) {
            if (src.get(i) == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The end of the line whose LF is at {@code lf}, before its CR; a line without CR is malformed. */
    private int contentEnd(int lf) {
        if (lf == lineStart || buf[lf - 1] != '\r') {
            throw ResponseException.malformed("line not terminated by CRLF");
        }
        return lf - 1;
    }

    private void statusLine(int s, int end) {
        if (end - s < 8 || !Arrays.equals(buf, s, s + HTTP_1.length, HTTP_1, 0, HTTP_1.length)) {
            if (end - s >= 8 && startsWithHttpVersion(s)) {
                throw ResponseException.malformed("unsupported HTTP version " + ascii(s, s + 8) + " in the status line");
            }
            throw ResponseException.malformed("malformed status line: it does not start with HTTP/1.1 or HTTP/1.0");
        }
        byte minor = buf[s + 7];
        if (minor != '0' && minor != '1') {
            throw ResponseException.malformed(minor >= '0' && minor <= '9'
                    ? "unsupported HTTP version " + ascii(s, s + 8) + " in the status line"
                    : "malformed status line: it does not start with HTTP/1.1 or HTTP/1.0");
        }
        http10 = minor == '0';
        if (end - s < 12 || buf[s + 8] != ' ' || !digit(buf[s + 9]) || !digit(buf[s + 10]) || !digit(buf[s + 11])) {
            throw ResponseException.malformed("malformed status line: no three-digit status code after the version");
        }
        int code = (buf[s + 9] - '0') * 100 + (buf[s + 10] - '0') * 10 + (buf[s + 11] - '0');
        if (code < 100 || code > 599) {
            throw ResponseException.malformed("status code " + code + " out of range (100 to 599)");
        }
        if (end - s == 12 || buf[s + 12] != ' ') {
            throw ResponseException.malformed("malformed status line: no space after the status code");
        }
        for (int i = s + 13; i < end; i++) {
            if (!Ascii.isFieldValueChar(buf[i])) {
                throw ResponseException.malformed("invalid character in the reason phrase");
            }
        }
        status = code;
        reasonStart = s + 13;
        reasonEnd = end;
    }

    /** "HTTP/" digit "." digit: a version, if not one this parser speaks. */
    private boolean startsWithHttpVersion(int s) {
        return buf[s] == 'H' && buf[s + 1] == 'T' && buf[s + 2] == 'T' && buf[s + 3] == 'P' && buf[s + 4] == '/'
                && digit(buf[s + 5]) && buf[s + 6] == '.' && digit(buf[s + 7]);
    }

    /** One field line {@code buf[s, end)} of the header section ({@code head}) or the trailer section. */
    private void field(int s, int end, boolean head) {
        if (fieldCount >= maxHeaderCount) {
            throw ResponseException.malformed((head ? "more than " : "more trailer fields than ") + maxHeaderCount
                    + (head ? " header fields" : ""));
        }
        if (Ascii.isWhitespace(buf[s])) {
            throw ResponseException.malformed("obsolete line folding (a field line starting with whitespace)");
        }
        int i = s;
        while (i < end && Ascii.isTchar(buf[i])) {
            i++;
        }
        if (i == end || buf[i] != ':') {
            throw ResponseException.malformed(i < end && Ascii.isWhitespace(buf[i])
                    ? "whitespace between a field name and its colon" : "malformed field line (no token name and colon)");
        }
        if (i == s) {
            throw ResponseException.malformed("empty field name");
        }
        int nameEnd = i;
        int vs = i + 1;
        while (vs < end && Ascii.isWhitespace(buf[vs])) {
            vs++;
        }
        for (int j = vs; j < end; j++) {
            if (!Ascii.isFieldValueChar(buf[j])) {
                throw ResponseException.malformed("invalid character (a CR, NUL or other control character) in the value of "
                        + ascii(s, nameEnd));
            }
        }
        int ve = end;
        while (ve > vs && Ascii.isWhitespace(buf[ve - 1])) {
            ve--;
        }
        if (fieldCount * 4 == fields.length) {
            fields = Arrays.copyOf(fields, fields.length * 2);
        }
        int f = fieldCount * 4;
        fields[f] = s;
        fields[f + 1] = nameEnd;
        fields[f + 2] = vs;
        fields[f + 3] = ve;
        fieldCount++;
        if (head) {
            known.field(buf, s, nameEnd - s, vs, ve);
        }
    }

    /** The empty line after the fields: an interim response is dropped; a final one decides its framing. True when complete. */
    private boolean endOfHead(Listener listener) {
        if (status < 200) {
            if (status == 101) {
                throw ResponseException.malformed("101 Switching Protocols, but no request asked to switch");
            }
            if (++interimResponses > MAX_INTERIM_RESPONSES) {
                throw ResponseException.malformed("more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
            }
            startHead();
            state = State.STATUS_LINE;
            return false;
        }
        if (known.transferEncoding && http10) {
            throw ResponseException.malformed("Transfer-Encoding in an HTTP/1.0 response");
        }
        if (known.chunkedCodings > 1) {
            throw ResponseException.malformed("chunked applied more than once in Transfer-Encoding");
        }
        reusable = !known.connectionClose && (!http10 || known.connectionKeepAlive);
        if (headRequest || status == 204 || status == 304) {
            framing = Framing.NONE;
        } else if (known.transferEncoding) {
            framing = known.chunkedLast ? Framing.CHUNKED : Framing.CLOSE;
            if (known.contentLength >= 0) {
                // RFC 9112 6.3: Transfer-Encoding wins, but a message with both may be a smuggling attempt
                reusable = false;
            }
        } else if (known.contentLength >= 0) {
            framing = known.contentLength == 0 ? Framing.NONE : Framing.LENGTH;
        } else {
            framing = Framing.CLOSE;
        }
        if (framing == Framing.CLOSE) {
            reusable = false;
        }
        listener.head(this);
        // the head's bytes are the listener's now: the buffer holds the trailer section next
        length = 0;
        lineStart = 0;
        sectionStart = 0;
        fieldCount = 0;
        switch (framing) {
            case NONE -> {
                complete(listener);
                return true;
            }
            case LENGTH -> {
                bodyRemaining = known.contentLength;
                state = State.BODY_LENGTH;
            }
            case CHUNKED -> startChunkLine();
            case CLOSE -> state = State.BODY_CLOSE;
        }
        return false;
    }

    private int complete(Listener listener) {
        state = State.IDLE;
        listener.end(this);
        return COMPLETE;
    }

    private int deliver(ByteBuffer src, int n, Listener listener) {
        int at = src.position();
        int limit = src.limit();
        src.limit(at + n);
        int taken = n;
        try {
            taken = Math.clamp(listener.body(src), 0, n);
        } finally {
            src.limit(limit).position(at + taken);
        }
        bodyReceived += taken;
        return taken;
    }

    private void startChunkLine() {
        state = State.CHUNK_SIZE;
        chunkLine.begin();
    }

    private String ascii(int from, int to) {
        return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }
}
