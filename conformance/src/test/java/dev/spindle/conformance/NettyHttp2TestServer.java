// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.core.testing.TestTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP/2 server to hold {@link dev.spindle.conformance.h2.Http2Cases} against while Spindle's own is being written:
 * Netty's frame codec and multiplex handler, h2c with prior knowledge on 127.0.0.1 (or h2 over TLS,
 * ALPN offering only {@code h2}, with the suite's test key), serving the
 * routes the cases use ({@code GET} and {@code HEAD /plaintext}, {@code POST /echo}, {@code GET /delay/{ms}}) and
 * announcing SETTINGS_MAX_CONCURRENT_STREAMS 100. Test-only.
 */
final class NettyHttp2TestServer implements AutoCloseable {
    static final int MAX_CONCURRENT_STREAMS = 100;
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    private final EventLoopGroup group;
    private final Channel channel;

    private NettyHttp2TestServer(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    static NettyHttp2TestServer start(boolean overTls) throws InterruptedException {
        SslContext tls = overTls ? serverTls() : null;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(
                                Http2FrameCodecBuilder.forServer()
                                        .initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS))
                                        .build(),
                                new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                                    @Override
                                    protected void initChannel(Http2StreamChannel stream) {
                                        stream.pipeline().addLast(new Exchange());
                                    }
                                }));
                    }
                });
        Channel channel = bootstrap.bind("127.0.0.1", 0).sync().channel();
        return new NettyHttp2TestServer(group, channel);
    }

    /** The suite's test key, ALPN offering h2 alone: a client that cannot speak it gets no protocol. */
    private static SslContext serverTls() {
        try (InputStream in = Files.newInputStream(TestTls.keyStore())) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, TestTls.PASSWORD.toCharArray());
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, TestTls.PASSWORD.toCharArray());
            return SslContextBuilder.forServer(keys).sslProvider(SslProvider.JDK)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, "h2"))
                    .build();
        } catch (java.io.IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the test key for Netty: " + e, e);
        }
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One stream: the request's header section and body, answered once the stream ends. */
    private static final class Exchange extends ChannelInboundHandlerAdapter {
        private Http2Headers request;
        private final ByteBuf body = Unpooled.buffer();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame headers) {
                    if (request == null) {
                        request = headers.headers();
                    }
                    if (headers.isEndStream()) {
                        answer(ctx);
                    }
                } else if (msg instanceof Http2DataFrame data) {
                    body.writeBytes(data.content());
                    if (data.isEndStream()) {
                        answer(ctx);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            body.release();
        }

        private void answer(ChannelHandlerContext ctx) {
            String path = String.valueOf(request.path());
            String method = String.valueOf(request.method());
            if (method.equals("GET") && path.equals("/plaintext")) {
                send(ctx, 200, "text/plain", HELLO);
            } else if (method.equals("HEAD") && path.equals("/plaintext")) {
                Http2Headers headers = new DefaultHttp2Headers().status("200").set("content-type", "text/plain")
                        .setInt("content-length", HELLO.length);
                ctx.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
            } else if (method.equals("POST") && path.equals("/echo")) {
                CharSequence type = request.get("content-type");
                byte[] echoed = new byte[body.readableBytes()];
                body.readBytes(echoed);
                send(ctx, 200, type == null ? "application/octet-stream" : type.toString(), echoed);
            } else if (method.equals("GET") && path.startsWith("/delay/")) {
                int ms = Integer.parseInt(path.substring("/delay/".length()));
                byte[] json = ("{\"delayed\":" + ms + "}").getBytes(StandardCharsets.US_ASCII);
                ctx.executor().schedule(() -> send(ctx, 200, "application/json", json), ms, TimeUnit.MILLISECONDS);
            } else {
                send(ctx, 404, "text/plain", "not found".getBytes(StandardCharsets.US_ASCII));
            }
        }

        private static void send(ChannelHandlerContext ctx, int status, String type, byte[] content) {
            if (!ctx.channel().isActive()) {
                return;
            }
            Http2Headers headers = new DefaultHttp2Headers().status(Integer.toString(status))
                    .set("content-type", type).setInt("content-length", content.length);
            ctx.write(new DefaultHttp2HeadersFrame(headers));
            ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(content), true));
        }
    }
}
