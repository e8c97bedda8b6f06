package dev.spindle.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.List;

/**
 * Rules of the Spindle contract that Netty's decoder leaves to the application, checked on the
 * request head as decoded, before {@code HttpObjectAggregator} (which adds a {@code Content-Length}
 * and drops {@code Transfer-Encoding}, so the header count must be taken here). A request that
 * breaks one gets a failed {@link DecoderResult} carrying the status, exactly like a request Netty
 * itself could not decode: the aggregator then passes it on without its body and
 * {@link RouterHandler} answers the status and closes.
 * <ul>
 *   <li>a request-target with a character outside {@code 0x21..0x7E} or a {@code #} (Netty refuses
 *       only CR, LF and SP, a desynchronisation guard), a malformed percent-escape ({@code %zz}, a
 *       trailing {@code %}), or of the wrong form (asterisk-form is for {@code OPTIONS} only,
 *       authority-form for {@code CONNECT} only, which takes no other form; anything else must be
 *       origin-form or absolute-form; RFC 9112 3.2): 400;</li>
 *   <li>{@code HTTP} in another case, such as {@code http/1.1} (Netty accepts it; HTTP-name is
 *       case-sensitive, RFC 9112 2.3): 400; a version other than HTTP/1.0 or HTTP/1.1 (Netty
 *       accepts any {@code HTTP/x.y}): 505;</li>
 *   <li>more header fields than {@code maxHeaderCount} (Netty limits only their total size): 431;</li>
 *   <li>an HTTP/1.1 request without {@code Host}, or any with two (RFC 9112 3.2): 400;</li>
 *   <li>{@code Transfer-Encoding} in an HTTP/1.0 request, or {@code chunked} other than once and
 *       last (RFC 9112 6.1; Netty decodes any list containing it as chunked): 400; another coding: 501.</li>
 * </ul>
 */
@ChannelHandler.Sharable
final class RequestChecks extends ChannelInboundHandlerAdapter {
    private final int maxHeaderCount;

    RequestChecks(int maxHeaderCount) {
        this.maxHeaderCount = maxHeaderCount;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest req && req.decoderResult().isSuccess()) {
            Rejected rejected = check(req);
            if (rejected != null) {
                req.setDecoderResult(DecoderResult.failure(rejected));
            }
        }
        ctx.fireChannelRead(msg);
    }

    private Rejected check(HttpRequest req) {
        String target = targetProblem(req.method(), req.uri());
        if (target != null) {
            return new Rejected(400, target);
        }
        HttpVersion version = req.protocolVersion();
        if (version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) {
            // Netty upper-cases what it does not recognise as sent: an HTTP/1.x that is not one of its
            // constants was written in another case, and HTTP-name is case-sensitive (RFC 9112 2.3)
            if (version.majorVersion() == 1 && version.minorVersion() <= 1 && "HTTP".equals(version.protocolName())) {
                return new Rejected(400, "malformed HTTP-version: the name HTTP is case-sensitive");
            }
            return new Rejected(505, "HTTP version " + version.text() + " is not supported");
        }
        HttpHeaders headers = req.headers();
        if (headers.size() > maxHeaderCount) {
            return new Rejected(431, "more than " + maxHeaderCount + " header fields");
        }
        int hosts = headers.getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1) {
            return new Rejected(400, "more than one Host header");
        }
        if (version == HttpVersion.HTTP_1_1 && hosts == 0) {
            return new Rejected(400, "missing Host header");
        }
        return transferCodingProblem(headers, version);
    }

    /**
     * A request's transfer codings: none, or chunked once and last. HTTP/1.0 has none (RFC 9112
     * 6.1: its framing would be faulty). Netty decodes any list that contains chunked as chunked.
     */
    private static Rejected transferCodingProblem(HttpHeaders headers, HttpVersion version) {
        List<String> fields = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (fields.isEmpty()) {
            return null;
        }
        if (version == HttpVersion.HTTP_1_0) {
            return new Rejected(400, "Transfer-Encoding in an HTTP/1.0 request");
        }
        int chunked = 0;
        boolean chunkedLast = false;
        boolean other = false;
        for (String field : fields) {
            for (String coding : field.split(",")) {
                String c = coding.trim();
                if (c.isEmpty()) {
                    continue;
                }
                chunkedLast = HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(c);
                if (chunkedLast) {
                    chunked++;
                } else {
                    other = true;
                }
            }
        }
        if (chunked > 1 || chunked == 1 && !chunkedLast) {
            return new Rejected(400, "chunked must be the final transfer coding, once");
        }
        if (other || chunked == 0) {
            return new Rejected(501, "unsupported transfer coding");
        }
        return null;
    }

    /** Why the request-target breaks the rules above, or null when it is fine. */
    static String targetProblem(HttpMethod method, String target) {
        int n = target.length();
        int query = -1;
        for (int i = 0; i < n; i++) {
            char c = target.charAt(i);
            if (c < 0x21 || c > 0x7E || c == '#') {
                return "invalid character in request target";
            }
            if (c == '?' && query < 0) {
                query = i;
            } else if (c == '%' && (i + 2 >= n || !isHex(target.charAt(i + 1)) || !isHex(target.charAt(i + 2)))) {
                return "malformed percent-escape in request target";
            }
        }
        if (n == 0) {
            return "malformed request target";
        }
        if (target.charAt(0) == '/') {
            return method.equals(HttpMethod.CONNECT) ? "CONNECT needs an authority-form request target (host:port)" : null;
        }
        int pathEnd = query < 0 ? n : query;
        if (pathEnd == 1 && target.charAt(0) == '*') {
            return method.equals(HttpMethod.OPTIONS) ? null : "asterisk-form request target is only for OPTIONS";
        }
        int schemeEnd = target.indexOf(':');
        if (schemeEnd < 0 || schemeEnd > pathEnd) {
            schemeEnd = pathEnd;
        }
        if (schemeEnd + 2 < pathEnd && target.charAt(schemeEnd + 1) == '/' && target.charAt(schemeEnd + 2) == '/') {
            return null;
        }
        if (method.equals(HttpMethod.CONNECT)) {
            return schemeEnd > 0 && schemeEnd < pathEnd && query < 0 ? null
                    : "CONNECT needs an authority-form request target (host:port)";
        }
        return "request target is neither origin-form nor absolute-form";
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /** The decoder-result cause of a request these checks refuse, with the status to answer. */
    static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;

        Rejected(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }
}
