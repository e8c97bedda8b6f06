// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of {@code /remote-h2/{ms}} to an {@code https://} downstream's {@code /delay/{ms}} over
 * HTTP/2, in Netty's idiom: a TLS connection whose ALPN chose {@code h2} gets an
 * {@link Http2FrameCodec} and an {@link Http2MultiplexHandler}, and every call is a child
 * {@link Http2StreamChannel} opened by an {@link Http2StreamChannelBootstrap}, its pipeline
 * {@link Http2StreamFrameToHttpObjectCodec} and {@link HttpObjectAggregator} (the request and answer
 * as HTTP/1 objects). Answered as {@link RemoteDownstream} tabulates (its body and content type, 502, 504).
 *
 * <p>Like {@link RemoteCalls}, everything happens on the calling connection's own event loop: each
 * loop keeps a small pool of connections (at most {@value #MAX_CONNECTIONS_PER_LOOP}), and a call
 * takes a stream on the first one with a stream to spare (below the downstream's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS}, assumed {@value #DEFAULT_MAX_STREAMS} until its SETTINGS
 * say), opens another connection when none has, and waits for a stream when the pool is full.
 */
final class Http2RemoteCalls {
    /** Connections an event loop opens to the downstream: 16 x 128 streams hold the matrix's 1,000 concurrent calls. */
    static final int MAX_CONNECTIONS_PER_LOOP = 16;
    /** Streams a connection opens before the downstream's SETTINGS say how many it allows (RFC 9113's recommended floor). */
    static final int DEFAULT_MAX_STREAMS = 100;
    private static final CharSequence TEXT_PLAIN = "text/plain; charset=utf-8";
    private static final Logger log = LoggerFactory.getLogger(Http2RemoteCalls.class);

    private final RemoteDownstream downstream;
    private final Class<? extends Channel> channelType;
    private final InetSocketAddress address;
    private final String authority;
    private final SslContext tls;
    private final FastThreadLocal<Loop> loops = new FastThreadLocal<>();

    /**
     * Calls to an {@code https://} {@code downstream}, its address resolved now.
     *
     * @param downstream the downstream (configured, https)
     * @param channelType the socket channel of the server's transport, so client connections share its event loops
     * @param trust the trust of the downstream's certificate, or null for the JDK's default trust
     * @throws SSLException if the client context cannot be built
     */
    Http2RemoteCalls(RemoteDownstream downstream, Class<? extends Channel> channelType, TrustManagerFactory trust) throws SSLException {
        this.downstream = downstream;
        this.channelType = channelType;
        URI base = downstream.base();
        int port = base.getPort() != -1 ? base.getPort() : 443;
        this.address = new InetSocketAddress(base.getHost(), port);
        this.authority = base.getPort() == -1 ? base.getHost() : base.getHost() + ":" + port;
        // ALPN offers h2 only: a downstream that does not choose it fails the connection (502)
        this.tls = SslContextBuilder.forClient()
                .trustManager(trust)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2))
                .build();
    }

    /**
     * Calls the downstream from {@code loop}'s own thread; {@code answer} is called once, on it.
     *
     * @param loop the calling connection's event loop (the current thread)
     * @param ms the delay to ask for
     * @param answer told the outcome
     */
    void fetch(EventLoop loop, int ms, RemoteCalls.Answer answer) {
        Loop state = loops.get();
        if (state == null) {
            state = new Loop(loop);
            loops.set(state);
        }
        Call call = new Call(answer, ms);
        call.timer = loop.schedule(call::timedOut, downstream.timeout(ms).toMillis(), TimeUnit.MILLISECONDS);
        state.dispatch(call);
    }

    private String timeoutMessage(int ms) {
        return "downstream did not answer within " + downstream.timeout(ms).toMillis() + " ms";
    }

    private static void fail(RemoteCalls.Answer answer, HttpResponseStatus status, String message, Throwable cause) {
        log.debug("{}", message, cause);
        answer.answer(status, TEXT_PLAIN, Unpooled.copiedBuffer(message, StandardCharsets.UTF_8));
    }

    /** One event loop's pool: its connections and the calls waiting for a stream, touched by that loop's thread only. */
    private final class Loop {
        final Bootstrap bootstrap;
        final List<Connection> connections = new ArrayList<>();
        /** Calls waiting for a stream while every connection's are taken and the pool is full. */
        final ArrayDeque<Call> waiting = new ArrayDeque<>();

        Loop(EventLoop loop) {
            bootstrap = new Bootstrap()
                    .group(loop)
                    .channel(channelType)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .option(ChannelOption.TCP_NODELAY, true);
        }

        /** Gives {@code call} a stream: on a connection with one to spare, a new connection, or (pool full) later. */
        void dispatch(Call call) {
            for (Connection c : connections) {
                if (c.hasRoom()) {
                    c.start(call);
                    return;
                }
            }
            if (connections.size() < MAX_CONNECTIONS_PER_LOOP) {
                Connection c = open();
                c.start(call);
                return;
            }
            waiting.addLast(call);
        }

        /** A stream ended or a connection went: the calls waiting get what room there is. */
        void drain() {
            for (Call call; (call = waiting.peekFirst()) != null; ) {
                if (call.done) {
                    waiting.pollFirst();
                    continue;
                }
                Connection room = null;
                for (Connection c : connections) {
                    if (c.hasRoom()) {
                        room = c;
                        break;
                    }
                }
                if (room == null && connections.size() >= MAX_CONNECTIONS_PER_LOOP) {
                    return;
                }
                waiting.pollFirst();
                (room != null ? room : open()).start(call);
            }
        }

        private Connection open() {
            Connection c = new Connection(this);
            connections.add(c);
            bootstrap.clone().handler(new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.getHostString(), address.getPort()),
                            new Negotiation(c));
                }
            }).connect(address).addListener((ChannelFutureListener) connected -> {
                if (!connected.isSuccess()) {
                    c.failed(connected.cause());
                } else {
                    c.channel = connected.channel();
                    connected.channel().closeFuture().addListener(closed ->
                            c.failed(new IOException("downstream closed the connection")));
                }
            });
            return c;
        }
    }

    /** One HTTP/2 connection: its streams in use, and the calls given to it before ALPN chose h2. */
    private final class Connection {
        final Loop loop;
        Channel channel;
        Http2StreamChannelBootstrap streams;
        int maxStreams = DEFAULT_MAX_STREAMS;
        int active;
        boolean closed;
        /** Calls given a stream of this connection before it is ready. */
        final ArrayDeque<Call> pending = new ArrayDeque<>();

        Connection(Loop loop) {
            this.loop = loop;
        }

        boolean hasRoom() {
            return !closed && active < maxStreams;
        }

        void start(Call call) {
            active++;
            call.connection = this;
            if (streams == null) {
                pending.addLast(call);
            } else {
                openStream(call);
            }
        }

        /** ALPN chose h2 and the codec is in place: the calls waiting for it open their streams. */
        void ready(Channel parent) {
            streams = new Http2StreamChannelBootstrap(parent);
            for (Call call; (call = pending.pollFirst()) != null; ) {
                openStream(call);
            }
        }

        private void openStream(Call call) {
            if (call.done) {
                released();
                return;
            }
            streams.handler(new ChannelInitializer<Http2StreamChannel>() {
                @Override
                protected void initChannel(Http2StreamChannel stream) {
                    stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false),
                            new HttpObjectAggregator(Wire.MAX_BODY_SIZE), new StreamExchange(call));
                }
            }).open().addListener(opened -> {
                if (!opened.isSuccess()) {
                    call.failed(opened.cause());
                    released();
                    return;
                }
                Http2StreamChannel stream = (Http2StreamChannel) opened.getNow();
                stream.closeFuture().addListener(closed -> released());
                if (call.done) {
                    stream.close();
                    return;
                }
                call.stream = stream;
                DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET,
                        downstream.delayPath(call.ms), Unpooled.EMPTY_BUFFER);
                // the codec turns Host into :authority, and takes :scheme https from the parent's TLS
                request.headers().set(HttpHeaderNames.HOST, authority);
                stream.writeAndFlush(request).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            });
        }

        /** A stream of this connection is free again. */
        void released() {
            active--;
            loop.drain();
        }

        /** The downstream's SETTINGS: how many streams it allows at once. */
        void settings(Http2Settings settings) {
            Long max = settings.maxConcurrentStreams();
            if (max != null) {
                maxStreams = (int) Math.min(Integer.MAX_VALUE, max);
                loop.drain();
            }
        }

        /** The connection cannot carry new streams (GOAWAY): the calls still to come go elsewhere. */
        void goingAway() {
            if (!closed) {
                closed = true;
                loop.connections.remove(this);
            }
        }

        /** The connection failed or closed: the calls that had no stream yet fail; open streams fail by themselves. */
        void failed(Throwable cause) {
            goingAway();
            for (Call call; (call = pending.pollFirst()) != null; ) {
                call.failed(cause);
                active--;
            }
            if (channel != null) {
                channel.close();
            }
            loop.drain();
        }
    }

    /** After the TLS handshake: HTTP/2 if ALPN chose it, else the connection fails. */
    private final class Negotiation extends ApplicationProtocolNegotiationHandler {
        private final Connection connection;

        Negotiation(Connection connection) {
            super("none");
            this.connection = connection;
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (!ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                connection.failed(new IOException("the downstream did not choose h2 by ALPN (" + protocol + ")"));
                return;
            }
            // no server push asked for (SETTINGS_ENABLE_PUSH 0); a stream the downstream opens anyway is closed
            ctx.pipeline().addLast(Http2FrameCodecBuilder.forClient().initialSettings(Http2Settings.defaultSettings().pushEnabled(false)).build(),
                    new Http2MultiplexHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(ChannelHandlerContext stream) {
                            stream.close();
                        }
                    }),
                    new ConnectionFrames(connection));
            connection.ready(ctx.channel());
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            connection.failed(cause);
            ctx.close();
        }
    }

    /** The frames of the connection itself (not of a stream), which the multiplexer passes on: SETTINGS and GOAWAY. */
    private static final class ConnectionFrames extends ChannelInboundHandlerAdapter {
        private final Connection connection;

        ConnectionFrames(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2SettingsFrame settings) {
                    connection.settings(settings.settings());
                } else if (msg instanceof Http2GoAwayFrame) {
                    connection.goingAway();
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            connection.failed(cause);
            ctx.close();
        }
    }

    /** One call: answered once, by the downstream's answer, a failure, or its timer. */
    private final class Call {
        final RemoteCalls.Answer answer;
        final int ms;
        ScheduledFuture<?> timer;
        Connection connection;
        Http2StreamChannel stream;
        boolean done;

        Call(RemoteCalls.Answer answer, int ms) {
            this.answer = answer;
            this.ms = ms;
        }

        /** The answer arrived: passed through if 200, else 502. */
        void answered(FullHttpResponse response) {
            if (finish()) {
                if (response.status().code() == 200) {
                    CharSequence type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
                    answer.answer(HttpResponseStatus.OK, type != null ? type : Wire.APPLICATION_JSON, response.content().retain());
                } else {
                    fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream answered " + response.status().code(), null);
                }
            }
        }

        void failed(Throwable cause) {
            if (finish()) {
                fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream call failed: " + cause, cause);
            }
        }

        /** Its stream is reset (closing a stream channel before its end sends RST_STREAM); the connection stays. */
        void timedOut() {
            if (finish()) {
                if (stream != null) {
                    stream.close();
                }
                fail(answer, HttpResponseStatus.GATEWAY_TIMEOUT, timeoutMessage(ms), null);
            }
        }

        private boolean finish() {
            if (done) {
                return false;
            }
            done = true;
            timer.cancel(false);
            return true;
        }
    }

    /** The handler of a call's stream: hands its answer to the call, which the stream's end closes. */
    private static final class StreamExchange extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final Call call;

        StreamExchange(Call call) {
            this.call = call;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            if (!response.decoderResult().isSuccess()) {
                call.failed(response.decoderResult().cause());
            } else {
                call.answered(response);
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            call.failed(new IOException("the downstream reset the stream or closed the connection"));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            call.failed(cause);
            ctx.close();
        }
    }
}
