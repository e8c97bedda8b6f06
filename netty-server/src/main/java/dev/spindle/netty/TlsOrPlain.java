package dev.spindle.netty;

import dev.spindle.core.ServerConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.util.List;

/**
 * The first inbound handler of a connection on a TLS port: looks at the first record header and
 * replaces itself with Netty's {@link SslHandler} (on an engine from {@link ServerConfig#tls()}) when
 * it is TLS. Plain HTTP gets the core's plain 400 saying the port speaks HTTPS, through a
 * {@link Rejecting} pipeline, and anything else is closed: a bare {@code SslHandler} would close
 * either at once with nothing the client could read.
 */
final class TlsOrPlain extends ByteToMessageDecoder {
    /** What the plain 400 says; the same words as the core's TLS layer. */
    static final String PLAIN_HTTP_MESSAGE = "this port speaks HTTPS; use an https:// URL";
    /** A TLS record header: content type, version, length. */
    private static final int RECORD_HEADER = 5;
    /**
     * The longest a record may be (RFC 5246 6.2.3, TLS 1.2's is the larger): the SslHandler would
     * wait for all of a longer one the header announces before its engine refuses it.
     */
    private static final int MAX_RECORD = (1 << 14) + 2048;

    private final ServerConfig config;

    TlsOrPlain(ServerConfig config) {
        this.config = config;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        ChannelPipeline p = ctx.pipeline();
        if (SslHandler.isEncrypted(in, false) && in.getUnsignedShort(in.readerIndex() + 3) <= MAX_RECORD) {
            // the bytes buffered here go on to the SslHandler when this decoder is removed
            p.replace(this, "tls", new SslHandler(config.tls().newEngine()));
            return;
        }
        if (looksLikeHttp(in)) {
            while (p.last() != this) {
                p.removeLast();
            }
            p.addLast("plain", new Rejecting(config.tls(null), 400, PLAIN_HTTP_MESSAGE));
            p.remove(this);
        } else {
            in.skipBytes(in.readableBytes());
            ctx.close();
        }
    }

    /** A request line starts with a method: a token of uppercase letters (as every registered method is). */
    private static boolean looksLikeHttp(ByteBuf in) {
        int first = in.readerIndex();
        for (int i = first; i < first + RECORD_HEADER; i++) {
            byte b = in.getByte(i);
            if (b == ' ' && i > first) {
                return true;
            }
            if (b < 'A' || b > 'Z') {
                return false;
            }
        }
        return true;
    }
}
