package dev.spindle.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

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
 *       authority-form for {@code CONNECT} only, anything else must be origin-form or
 *       absolute-form; RFC 9112 3.2): 400;</li>
 *   <li>a version other than HTTP/1.0 or HTTP/1.1 (Netty accepts any {@code HTTP/x.y}): 505;</li>
 *   <li>more header fields than {@code maxHeaderCount} (Netty limits only their total size): 431;</li>
 *   <li>an HTTP/1.1 request without {@code Host} (RFC 9112 §3.2 says 400): 400.</li>
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
            return new Rejected(505, "HTTP version " + version.text() + " is not supported");
        }
        HttpHeaders headers = req.headers();
        if (headers.size() > maxHeaderCount) {
            return new Rejected(431, "more than " + maxHeaderCount + " header fields");
        }
        if (version == HttpVersion.HTTP_1_1 && !headers.contains(HttpHeaderNames.HOST)) {
            return new Rejected(400, "missing Host header");
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
            return null;
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
