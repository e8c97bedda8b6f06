// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelMatchers;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.handler.codec.http.websocketx.extensions.compression.WebSocketServerCompressionHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WebSocket routes, HTTP/1.1 only: {@code /ws/echo} sends every message back as it came
 * (permessage-deflate when the client offers it), {@code /ws/broadcast} sends every text message
 * to every member of one room, the sender included. A connection meets none of this until it asks
 * for one of them: {@link BenchmarkHandler} then {@linkplain #install installs} Netty's own pieces
 * ({@link WebSocketServerCompressionHandler}, {@link WebSocketServerProtocolHandler},
 * {@link WebSocketFrameAggregator}) behind itself, hands them the handshake and leaves; the
 * handshaker swaps the HTTP codec for the frame codec. Pings, pongs and the close handshake (a
 * client's close answered with its own code) are the protocol handler's defaults.
 *
 * <p>Slow consumers get Netty's default: nothing. A socket that does not read keeps its writes
 * queued in its {@code ChannelOutboundBuffer}, unbounded (writability turns false past the high
 * water mark and nothing here acts on it), until the connection closes.
 */
final class WebSockets {
    private static final Logger log = LoggerFactory.getLogger(WebSockets.class);
    static final String ECHO = "/ws/echo";
    static final String BROADCAST = "/ws/broadcast";
    /** The largest message, whole (fragments aggregated) and inflated. */
    static final int MAX_MESSAGE = 16 * 1024 * 1024;
    /** The handshake request is headers only: the aggregator that makes it whole needs no room for a body. */
    private static final int MAX_HANDSHAKE_BODY = 8192;
    static final AsciiString VERSION = AsciiString.cached(WebSocketVersion.V13.toHttpHeaderValue());

    /** Immutable, so shared by every connection; checkStartsWith lets a query follow the path. */
    private static final WebSocketServerProtocolConfig ECHO_CONFIG = config(ECHO, true);
    private static final WebSocketServerProtocolConfig BROADCAST_CONFIG = config(BROADCAST, false);
    private static final Echo ECHO_HANDLER = new Echo();

    /** The one room of {@code /ws/broadcast} (a channel leaves it when it closes, as a ChannelGroup does). */
    private final ChannelGroup room = new DefaultChannelGroup("ws-broadcast", GlobalEventExecutor.INSTANCE);
    private final Broadcast broadcast = new Broadcast(room);

    private static WebSocketServerProtocolConfig config(String path, boolean extensions) {
        return WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(path)
                .checkStartsWith(true)
                .maxFramePayloadLength(MAX_MESSAGE)
                // RSV1 is permessage-deflate's bit: allowed only where the compression handler can negotiate it
                .allowExtensions(extensions)
                .build();
    }

    /** Whether the request asks for a WebSocket at all; the handshaker checks the rest (Connection, the key). */
    static boolean isUpgrade(HttpHeaders headers) {
        return headers.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    /** Whether it asks for the version we speak, RFC 6455's 13 (Netty's factory would also take drafts 0, 7 and 8). */
    static boolean isVersion13(HttpHeaders headers) {
        return headers.contains(HttpHeaderNames.SEC_WEBSOCKET_VERSION, VERSION, false);
    }

    /**
     * Puts the route's WebSocket pipeline at the end of {@code pipeline} (where the HTTP app is
     * last), the order of Netty's own WebSocket server example.
     *
     * @param echo {@code /ws/echo}, else {@code /ws/broadcast}
     * @param whole whether the handshake request arrives aggregated already (the h2c upgrade handler
     *     aggregates any request with an Upgrade header); else an aggregator makes it whole, and the
     *     handshaker removes it again
     */
    void install(ChannelPipeline pipeline, boolean echo, boolean whole) {
        if (!whole) {
            pipeline.addLast(new HttpObjectAggregator(MAX_HANDSHAKE_BODY));
        }
        if (echo) {
            // permessage-deflate when offered; it removes itself once the 101 is written
            pipeline.addLast(new WebSocketServerCompressionHandler(MAX_MESSAGE));
        }
        pipeline.addLast(new WebSocketServerProtocolHandler(echo ? ECHO_CONFIG : BROADCAST_CONFIG),
                new WebSocketFrameAggregator(MAX_MESSAGE),
                echo ? ECHO_HANDLER : broadcast);
    }

    /** Each text or binary message back, unchanged: the frame itself is written, flushed once per read batch. */
    @ChannelHandler.Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
                ctx.write(msg, ctx.voidPromise());
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeOn(ctx, cause);
        }
    }

    /**
     * Every text message to the whole room, the sender included: one frame, which the group writes
     * to each member as a retained duplicate (encoded by each member's frame encoder, no copy of the
     * payload made here). No compression on this route: each member's deflate context would compress
     * the message again, per socket. Binary messages are dropped.
     */
    @ChannelHandler.Sharable
    private static final class Broadcast extends ChannelInboundHandlerAdapter {
        private final ChannelGroup room;

        Broadcast(ChannelGroup room) {
            this.room = room;
        }

        /**
         * Joins as the route is installed, in the event-loop task that then writes the 101: a client
         * that has its 101 is a member, and a broadcast from another loop runs on this one only after
         * that task, behind the 101.
         */
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            room.add(ctx.channel());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof TextWebSocketFrame text) {
                // void promises: no future per member; a failed write fires exceptionCaught in that member's pipeline
                room.writeAndFlush(text, ChannelMatchers.all(), true);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeOn(ctx, cause);
        }
    }

    /** A message past {@link #MAX_MESSAGE} once aggregated is closed with 1009, anything else closes at once. */
    private static void closeOn(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing {}: {}", ctx.channel(), cause.toString());
        if (cause instanceof TooLongFrameException && ctx.channel().isActive()) {
            ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.MESSAGE_TOO_BIG))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
