package dev.spindle.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
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
