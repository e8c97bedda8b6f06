// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.ReferenceLauncher;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The yardstick for the Netty reference's HTTP/2: the plainest h2c server Netty has, the shape of
 * its own hello-world example and nothing else. Every connection must open with the HTTP/2
 * preface (prior knowledge, as h2load does; no {@code Upgrade: h2c}, no TLS, no HTTP/1.1), and
 * one {@link Http2ConnectionHandler} that is its own {@link Http2FrameListener} answers every
 * request, whatever its method and path, with 200 {@code Hello, World!}: the same headers and
 * bytes as {@link NettyServer}'s {@code /plaintext}. {@link NettyServer} serves the whole app on
 * the same idiom; the distance between the two over h2 is what its routing and its routes cost,
 * and a reference far behind this row would not be Netty at its best.
 *
 * <p>Launcher: {@code NettyHttp2HelloServer <port> [workers]}, as {@link NettyServer}: {@code workers}
 * event loops (default the processor count), {@code -Dspindle.host} the address (127.0.0.1), the
 * epoll transport where it is available, NIO otherwise or with {@code -Dspindle.netty.transport=nio}.
 */
public final class NettyHttp2HelloServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NettyHttp2HelloServer.class);

    private final String host;
    private final int requestedPort;
    private final int workers;
    private final boolean epoll;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private EventLoopGroup boss;
    private EventLoopGroup loops;
    private Channel serverChannel;

    /**
     * A server not yet started.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers the number of event loops
     */
    public NettyHttp2HelloServer(String host, int port, int workers) {
        this.host = host;
        this.requestedPort = port;
        this.workers = workers;
        boolean nioAsked = "nio".equalsIgnoreCase(System.getProperty("spindle.netty.transport", ""));
        this.epoll = !nioAsked && Epoll.isAvailable();
        if (!nioAsked && !epoll) {
            log.warn("epoll is unavailable ({}); falling back to NIO", String.valueOf(Epoll.unavailabilityCause()));
        }
    }

    /**
     * Binds and starts serving.
     *
     * @return this server
     * @throws IOException if the address cannot be bound
     */
    public NettyHttp2HelloServer start() throws IOException {
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("netty-accept"), io);
        loops = new MultiThreadIoEventLoopGroup(workers, new DefaultThreadFactory("netty-loop"), io);
        // the Date value as NettyServer has it: once a second, off the request path
        loops.next().scheduleAtFixedRate(Wire::refreshDate, 1000 - System.currentTimeMillis() % 1000, 1000, TimeUnit.MILLISECONDS);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, loops)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 8192)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new Builder().build());
                    }
                });
        if (epoll) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        try {
            serverChannel = bootstrap.bind(host, requestedPort).sync().channel();
        } catch (Exception e) {
            close();
            throw e instanceof IOException io2 ? io2 : new IOException("cannot bind " + host + ":" + requestedPort + ": " + e, e);
        }
        log.info("NettyHttp2HelloServer ({} transport, {} event loops, h2c by prior knowledge) listening on {}",
                epoll ? "epoll" : "nio", workers, serverChannel.localAddress());
        return this;
    }

    /** Builds a connection's handler: Netty's defaults but for NettyServer's SETTINGS_MAX_CONCURRENT_STREAMS. */
    private static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Hello, Builder> {
        Builder() {
            initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(NettyServer.MAX_CONCURRENT_STREAMS));
        }

        @Override
        public Hello build() {
            return super.build();
        }

        @Override
        protected Hello build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            Hello handler = new Hello(decoder, encoder, initialSettings);
            frameListener(handler.listener);
            return handler;
        }
    }

    /**
     * One connection: a request is answered when the client has sent all of it (END_STREAM on its
     * HEADERS or on its last DATA); the flush is {@link Http2ConnectionHandler}'s, once per read batch.
     */
    private static final class Hello extends Http2ConnectionHandler {
        final Http2FrameListener listener = new Http2FrameAdapter() {
            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
                if (endOfStream) {
                    answer(ctx, streamId);
                }
            }

            @Override
            public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                    short weight, boolean exclusive, int padding, boolean endOfStream) {
                onHeadersRead(ctx, streamId, headers, padding, endOfStream);
            }

            @Override
            public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
                if (endOfStream) {
                    answer(ctx, streamId);
                }
                return data.readableBytes() + padding;
            }
        };

        Hello(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings initialSettings) {
            super(decoder, encoder, initialSettings);
        }

        private void answer(ChannelHandlerContext ctx, int streamId) {
            Http2Headers headers = new DefaultHttp2Headers(false).status(HttpResponseStatus.OK.codeAsText())
                    .set(HttpHeaderNames.SERVER, Wire.SERVER).set(HttpHeaderNames.DATE, Wire.date())
                    .set(HttpHeaderNames.CONTENT_TYPE, Wire.TEXT_PLAIN)
                    .set(HttpHeaderNames.CONTENT_LENGTH, Wire.HELLO_LENGTH);
            encoder().writeHeaders(ctx, streamId, headers, 0, false, ctx.newPromise());
            encoder().writeData(ctx, streamId, Wire.HELLO.duplicate(), 0, true, ctx.newPromise());
        }
    }

    /** {@return the bound address} */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Stops accepting and ends the event loops (a short quiet period, at most 10 s); idempotent. */
    @Override
    public synchronized void close() {
        if (terminated.getCount() == 0) {
            return;
        }
        if (serverChannel != null) {
            serverChannel.close().syncUninterruptibly();
        }
        if (boss != null) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (loops != null) {
            loops.shutdownGracefully(100, 10_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        }
        terminated.countDown();
    }

    /**
     * Waits until {@link #close()} has finished.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /**
     * {@code <port> [workers]}: serves until SIGTERM/SIGINT; usage and exit 2 on bad arguments, exit
     * 1 when it cannot start.
     *
     * @param args the port (0 picks a free one) and, optionally, the event-loop count
     */
    public static void main(String[] args) {
        ReferenceLauncher.run("NettyHttp2HelloServer", NettyHttp2HelloServer.class, args, Runtime.getRuntime().availableProcessors(),
                "event loops", (host, port, workers) -> {
                    NettyHttp2HelloServer server = new NettyHttp2HelloServer(host, port, workers);
                    server.start();
                    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "netty-shutdown"));
                    return ReferenceLauncher.Started.of(server.address().getPort(), server::awaitTermination);
                });
    }
}
