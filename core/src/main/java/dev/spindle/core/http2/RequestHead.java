// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.Method;
import dev.spindle.core.bytes.Ascii;
import dev.spindle.core.exchange.RequestState;
import java.nio.charset.StandardCharsets;

/**
 * Turns the decoded fields of a request's header block into a {@link RequestState}, checking them
 * as RFC 9113 8.2 and 8.3 require: lower-case names of valid characters, no connection-specific
 * fields, {@code te} only as {@code trailers}, each request pseudo-header at most once and before
 * the regular fields, {@code :method}, {@code :scheme} and {@code :path} present (only
 * {@code :method} and {@code :authority} for CONNECT), at most one {@code host}, naming the same
 * server as {@code :authority} if both are sent (8.3.1). A request that breaks a rule is malformed:
 * the stream is reset with PROTOCOL_ERROR. A request with more fields than HTTP/1.1 takes
 * ({@code ServerConfig.maxHeaderCount}, cookie crumbs counted as one) is answered 431. The fields are copied into the stream's own array, laid
 * out as the HTTP/1.1 parser lays out its input (offsets into one array), so {@code Request} reads
 * both alike; {@code :authority} becomes the {@code host} field when none was sent, and
 * {@code cookie} fields a client split for compression become one again (RFC 9113 8.2.3).
 */
final class RequestHead implements HpackDecoder.Sink {
    private static final Method[] KNOWN_METHODS = {Method.GET, Method.HEAD, Method.POST, Method.PUT, Method.DELETE,
        Method.PATCH, Method.OPTIONS, Method.TRACE, Method.CONNECT};
    private static final byte[][] METHOD_TOKENS = new byte[KNOWN_METHODS.length][];
    private static final byte[] HOST = bytes("host");
    private static final byte[] TRAILERS = bytes("trailers");
    private static final byte[][] CONNECTION_SPECIFIC = {bytes("connection"), bytes("keep-alive"),
        bytes("proxy-connection"), bytes("transfer-encoding"), bytes("upgrade")};
    private static final byte[] TE = bytes("te");
    private static final byte[] CONTENT_LENGTH = bytes("content-length");
    private static final byte[] COOKIE = bytes("cookie");
    private static final byte[] SEPARATOR = bytes("; ");
    private static final byte[] EXPECT = bytes("expect");
    private static final byte[] CONTINUE = bytes("100-continue");
    private static final byte[] METHOD = bytes(":method");
    private static final byte[] SCHEME = bytes(":scheme");
    private static final byte[] PATH = bytes(":path");
    private static final byte[] AUTHORITY = bytes(":authority");
    private static final byte[] PROTOCOL = bytes(":protocol");

    static {
        for (int i = 0; i < KNOWN_METHODS.length; i++) {
            METHOD_TOKENS[i] = bytes(KNOWN_METHODS[i].name());
        }
    }

    private Stream stream;
    private RequestState req;
    private boolean trailers;
    /** Why the block is malformed, or null. */
    private String malformed;
    private boolean regularSeen;
    private int methodStart = -1;
    private int methodEnd;
    private int schemeEnd = -1;
    private int authorityStart = -1;
    private int authorityEnd;
    private boolean hostSeen;
    private int cookies;
    /** The most fields a request may have, as on HTTP/1.1 ({@code ServerConfig.maxHeaderCount}). */
    private final int maxFields;
    /** The request's fields so far, counted as the handler sees them: cookie crumbs as one. */
    private int fields;
    private boolean tooManyFields;
    /** Whether this side sent SETTINGS_ENABLE_CONNECT_PROTOCOL, so a CONNECT may carry {@code :protocol} (RFC 8441 4). */
    private final boolean extendedConnect;

    /**
     * @param maxFields the most header fields a request may have
     * @param extendedConnect whether {@code :protocol} is allowed (the server sent SETTINGS_ENABLE_CONNECT_PROTOCOL)
     */
    RequestHead(int maxFields, boolean extendedConnect) {
        this.maxFields = maxFields;
        this.extendedConnect = extendedConnect;
    }

    /** Begins the request header block of {@code s}. */
    void beginRequest(Stream s) {
        begin(s);
        trailers = false;
        s.length = 0;
        req.reset();
        req.version = RequestState.HTTP_2;
        req.methodEnd = 0;
        req.targetStart = 0;
        req.targetEnd = 0;
        req.pathStart = 0;
        req.pathEnd = 0;
    }

    /** Begins a trailer block of {@code s}: its fields are checked, not kept. */
    void beginTrailers(Stream s) {
        begin(s);
        trailers = true;
    }

    private void begin(Stream s) {
        stream = s;
        req = s.request;
        malformed = null;
        regularSeen = false;
        methodStart = -1;
        schemeEnd = -1;
        authorityStart = -1;
        hostSeen = false;
        cookies = 0;
        fields = 0;
        tooManyFields = false;
    }

    @Override
    public void header(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
        if (malformed != null || tooManyFields) {
            return;
        }
        if (nameLength == 0) {
            malformed = "an empty field name";
            return;
        }
        if (name[nameOffset] == ':') {
            pseudo(name, nameOffset, nameLength, value, valueOffset, valueLength);
            return;
        }
        regularSeen = true;
        if (!validName(name, nameOffset, nameLength)) {
            malformed = "a field name that is not a lower-case token";
            return;
        }
        if (!validValue(value, valueOffset, valueLength)) {
            malformed = "a field value with a control character or surrounding whitespace";
            return;
        }
        for (byte[] c : CONNECTION_SPECIFIC) {
            if (same(name, nameOffset, nameLength, c)) {
                malformed = "a connection-specific field (" + new String(c, StandardCharsets.US_ASCII) + ")";
                return;
            }
        }
        if (same(name, nameOffset, nameLength, TE) && !same(value, valueOffset, valueLength, TRAILERS)) {
            malformed = "te other than trailers";
            return;
        }
        if (trailers) {
            return;
        }
        boolean cookie = same(name, nameOffset, nameLength, COOKIE);
        if ((!cookie || cookies == 0) && ++fields > maxFields) {
            // answered 431 as HTTP/1.1 answers it; the fields past the limit are not kept
            tooManyFields = true;
            return;
        }
        if (same(name, nameOffset, nameLength, HOST)) {
            if (hostSeen) {
                malformed = "a second host";
                return;
            }
            hostSeen = true;
            // RFC 9113 8.3.1: a host naming another server than :authority makes the request malformed, and a
            // malformed request is a stream error PROTOCOL_ERROR (8.1.1) here as everywhere, not HTTP/1.1's 400
            if (authorityStart >= 0 && !sameIgnoringCase(value, valueOffset, valueLength, stream.bytes, authorityStart,
                    authorityEnd - authorityStart)) {
                malformed = "a host unlike :authority";
                return;
            }
        }
        if (same(name, nameOffset, nameLength, CONTENT_LENGTH)) {
            long length = contentLength(value, valueOffset, valueLength);
            if (length < 0 || stream.contentLength >= 0 && stream.contentLength != length) {
                malformed = "an invalid content-length";
                return;
            }
            stream.contentLength = length;
            req.contentLength = length;
        }
        if (cookie) {
            cookies++;
        } else if (same(name, nameOffset, nameLength, EXPECT)) {
            if (sameIgnoringCase(value, valueOffset, valueLength, CONTINUE)) {
                req.expectContinue = true;
            } else {
                stream.unsupportedExpectation = true;
            }
        }
        int ns = append(name, nameOffset, nameLength);
        int vs = append(value, valueOffset, valueLength);
        req.addHeader(ns, ns + nameLength, vs, vs + valueLength);
    }

    private void pseudo(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
        if (trailers) {
            malformed = "a pseudo-header in trailers";
            return;
        }
        if (regularSeen) {
            malformed = "a pseudo-header after a regular field";
            return;
        }
        if (same(name, nameOffset, nameLength, METHOD)) {
            if (methodStart >= 0 || valueLength == 0 || !token(value, valueOffset, valueLength)) {
                malformed = methodStart >= 0 ? "a second :method" : "an invalid :method";
                return;
            }
            methodStart = append(value, valueOffset, valueLength);
            methodEnd = methodStart + valueLength;
            req.method = method(value, valueOffset, valueLength);
        } else if (same(name, nameOffset, nameLength, SCHEME)) {
            if (schemeEnd >= 0 || valueLength == 0) {
                malformed = schemeEnd >= 0 ? "a second :scheme" : "an empty :scheme";
                return;
            }
            schemeEnd = valueLength;
        } else if (same(name, nameOffset, nameLength, PATH)) {
            if (req.targetEnd > 0 || valueLength == 0) {
                malformed = req.targetEnd > 0 ? "a second :path" : "an empty :path";
                return;
            }
            req.targetStart = append(value, valueOffset, valueLength);
            req.targetEnd = req.targetStart + valueLength;
        } else if (same(name, nameOffset, nameLength, AUTHORITY)) {
            if (authorityStart >= 0 || !validValue(value, valueOffset, valueLength)) {
                malformed = authorityStart >= 0 ? "a second :authority" : "an invalid :authority";
                return;
            }
            authorityStart = append(value, valueOffset, valueLength);
            authorityEnd = authorityStart + valueLength;
        } else if (extendedConnect && same(name, nameOffset, nameLength, PROTOCOL)) {
            if (req.protocol != null || valueLength == 0 || !token(value, valueOffset, valueLength)) {
                malformed = req.protocol != null ? "a second :protocol" : "an invalid :protocol";
                return;
            }
            req.protocol = new String(value, valueOffset, valueLength, StandardCharsets.US_ASCII);
        } else {
            malformed = "an unknown or response pseudo-header";
        }
    }

    /** Whether the request has more header fields than allowed (it is answered 431, as on HTTP/1.1). */
    boolean tooManyFields() {
        return tooManyFields;
    }

    /**
     * Ends the block: checks what needs the whole of it.
     *
     * @return null if the request is well-formed, else why it is malformed
     */
    String end() {
        if (malformed != null || trailers) {
            return malformed;
        }
        if (methodStart < 0) {
            return "no :method";
        }
        if (req.protocol != null) {
            // RFC 8441 4: an extended CONNECT names its resource with :scheme and :path, as other requests do
            if (req.method != Method.CONNECT) {
                return ":protocol on a request other than CONNECT";
            }
            if (schemeEnd < 0 || req.targetEnd == 0 || authorityStart < 0) {
                return "an extended CONNECT without :scheme, :path or :authority";
            }
            String bad = path();
            if (bad != null) {
                return bad;
            }
        } else if (req.method == Method.CONNECT) {
            if (schemeEnd >= 0 || req.targetEnd > 0 || authorityStart < 0) {
                return "CONNECT with :scheme or :path, or without :authority";
            }
        } else if (schemeEnd < 0 || req.targetEnd == 0) {
            return "no :scheme or no :path";
        } else {
            String bad = path();
            if (bad != null) {
                return bad;
            }
        }
        if (authorityStart >= 0 && !hostSeen) {
            // the host field made from :authority counts as HTTP/1.1 counts its Host line
            if (++fields > maxFields) {
                tooManyFields = true;
            } else {
                int ns = append(HOST, 0, HOST.length);
                req.addHeader(ns, ns + HOST.length, authorityStart, authorityEnd);
            }
        }
        if (cookies > 1) {
            joinCookies();
        }
        if (req.method == Method.OTHER && methodStart != 0) {
            stream.moveToFront(methodStart, methodEnd - methodStart);
        }
        req.methodEnd = methodEnd - methodStart;
        stream.publish();
        return null;
    }

    /** Checks {@code :path} as the HTTP/1.1 parser checks an origin-form target, and finds its query. */
    private String path() {
        byte[] a = stream.bytes;
        int ts = req.targetStart;
        int end = req.targetEnd;
        if (end - ts == 1 && a[ts] == '*') {
            if (req.method != Method.OPTIONS) {
                return "the asterisk :path is only for OPTIONS";
            }
            req.pathStart = ts;
            req.pathEnd = end;
            return null;
        }
        if (a[ts] != '/') {
            return "a :path that does not start with /";
        }
        int queryStart = -1;
        for (int i = ts; i < end; i++) {
            byte c = a[i];
            if (c < 0x21 || c > 0x7E || c == '#') {
                return "an invalid character in :path";
            }
            if (c == '?' && queryStart < 0) {
                queryStart = i + 1;
            } else if (c == '%' && (i + 2 >= end || Ascii.hexValue(a[i + 1]) < 0 || Ascii.hexValue(a[i + 2]) < 0)) {
                return "a malformed percent-escape in :path";
            }
        }
        req.queryStart = queryStart;
        req.pathStart = ts;
        req.pathEnd = queryStart < 0 ? end : queryStart - 1;
        return null;
    }

    /**
     * RFC 9113 8.2.3: the {@code cookie} fields become one, their values joined with "; " in the
     * order they came, where the first one was; the others are dropped from the request's fields.
     */
    private void joinCookies() {
        int[] h = req.headers;
        byte[] a = stream.bytes;
        int first = -1;
        int joinedStart = stream.length;
        int kept = 0;
        for (int i = 0; i < req.headerCount; i++) {
            int f = i * 4;
            boolean cookie = same(a, h[f], h[f + 1] - h[f], COOKIE);
            if (cookie) {
                int vs = h[f + 2];
                int length = h[f + 3] - vs;
                if (first >= 0) {
                    append(SEPARATOR, 0, SEPARATOR.length);
                }
                // the array may grow as the value is appended: the source is read from the current one
                stream.ensure(length);
                a = stream.bytes;
                append(a, vs, length);
                if (first >= 0) {
                    continue;
                }
                first = kept;
            }
            System.arraycopy(h, f, h, kept * 4, 4);
            kept++;
        }
        req.headerCount = kept;
        h[first * 4 + 2] = joinedStart;
        h[first * 4 + 3] = stream.length;
    }

    private int append(byte[] src, int offset, int length) {
        int at = stream.length;
        stream.ensure(length);
        System.arraycopy(src, offset, stream.bytes, at, length);
        stream.length = at + length;
        return at;
    }

    private static Method method(byte[] v, int offset, int length) {
        for (int i = 0; i < METHOD_TOKENS.length; i++) {
            if (same(v, offset, length, METHOD_TOKENS[i])) {
                return KNOWN_METHODS[i];
            }
        }
        return Method.OTHER;
    }

    /** RFC 9113 8.2.1: a token with no upper-case letter. */
    private static boolean validName(byte[] n, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            byte b = n[i];
            if (b >= 'A' && b <= 'Z' || !Ascii.isTchar(b)) {
                return false;
            }
        }
        return true;
    }

    private static boolean token(byte[] v, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (!Ascii.isTchar(v[i])) {
                return false;
            }
        }
        return true;
    }

    /** RFC 9113 8.2.1: no NUL, CR or LF, and no leading or trailing space or tab. */
    private static boolean validValue(byte[] v, int offset, int length) {
        if (length > 0 && (isBlank(v[offset]) || isBlank(v[offset + length - 1]))) {
            return false;
        }
        for (int i = offset; i < offset + length; i++) {
            byte b = v[i];
            if (b == 0 || b == '\r' || b == '\n') {
                return false;
            }
        }
        return true;
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t';
    }

    private static long contentLength(byte[] v, int offset, int length) {
        if (length == 0 || length > 18) {
            return -1;
        }
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            int d = v[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            n = n * 10 + d;
        }
        return n;
    }

    private static boolean same(byte[] a, int offset, int length, byte[] expected) {
        if (length != expected.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (a[offset + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameIgnoringCase(byte[] a, int offset, int length, byte[] b, int bOffset, int bLength) {
        if (length != bLength) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (lower(a[offset + i]) != lower(b[bOffset + i])) {
                return false;
            }
        }
        return true;
    }

    private static int lower(byte b) {
        return b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b;
    }

    private static boolean sameIgnoringCase(byte[] a, int offset, int length, byte[] lowerCase) {
        return sameIgnoringCase(a, offset, length, lowerCase, 0, lowerCase.length);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
