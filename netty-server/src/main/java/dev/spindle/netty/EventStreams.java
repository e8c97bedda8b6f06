// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelMatchers;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ByteProcessor;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server-sent-event routes, HTTP/1.1 only: {@code GET /sse/broadcast} opens a stream (a
 * chunked {@code text/event-stream} response that never ends) in one group of streams, and
 * {@code POST /sse/publish} writes its body as one event to every stream of the group. The stream
 * is Netty's chunked encoding as {@code HttpServerCodec} does it: the head, then one
 * {@link DefaultHttpContent} per event. No idle timeout closes a stream: the server has none.
 *
 * <p>Slow consumers get Netty's default: nothing. A stream that does not read keeps its events
 * queued in its {@code ChannelOutboundBuffer}, unbounded (writability turns false past the high
 * water mark and nothing here acts on it), until the connection closes.
 */
final class EventStreams {
    private static final Logger log = LoggerFactory.getLogger(EventStreams.class);
    static final String SUBSCRIBE = "/sse/broadcast";
    static final String PUBLISH = "/sse/publish";
    /** The largest event data {@code /sse/publish} takes, in bytes. */
    static final int MAX_DATA = 1024;
    private static final AsciiString TEXT_EVENT_STREAM = AsciiString.cached("text/event-stream");
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final Stream STREAM = new Stream();
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    /** Every open stream; a channel leaves it when it closes, as a ChannelGroup does. */
    private final ChannelGroup streams = new DefaultChannelGroup("sse-broadcast", GlobalEventExecutor.INSTANCE);

    /** A stream's head: 200, chunked, not to be cached; the caller adds the common headers. */
    static HttpResponse head() {
        return new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                HEADERS.newHeaders()
                        .set(HttpHeaderNames.CONTENT_TYPE, TEXT_EVENT_STREAM)
                        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE)
                        .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED));
    }

    /** Subscribes a stream; called before its head is written, so a client that has read the head hears every later event. */
    void join(Channel stream) {
        streams.add(stream);
    }

    /** What replaces the HTTP app on a stream's connection. */
    static ChannelHandler streamHandler() {
        return STREAM;
    }

    /**
     * Writes {@code data: <data>\n\n} to every open stream as one chunk, flushed: one buffer,
     * which the group writes to each stream as a retained duplicate. Returns once the writes are
     * issued (a stream on another event loop gets its write as a task there).
     *
     * @param data the event's data, not consumed
     * @return false, and nothing written, when {@code data} holds a CR or LF
     */
    boolean publish(ByteBufAllocator alloc, ByteBuf data) {
        if (data.forEachByte(ByteProcessor.FIND_CRLF) >= 0) {
            return false;
        }
        ByteBuf event = alloc.directBuffer(DATA.length + data.readableBytes() + 2)
                .writeBytes(DATA)
                .writeBytes(data, data.readerIndex(), data.readableBytes())
                .writeByte('\n')
                .writeByte('\n');
        // void promises: no future per stream; a failed write fires exceptionCaught in that stream's pipeline
        streams.writeAndFlush(new DefaultHttpContent(event), ChannelMatchers.all(), true);
        return true;
    }

    /**
     * A stream's connection after its head: a stream never ends, so nothing the client sends after
     * the request could be answered; it is dropped. A client that closes (or half-closes) ends it.
     */
    @ChannelHandler.Sharable
    private static final class Stream extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                ctx.close();
                return;
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("closing {}: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }
}
