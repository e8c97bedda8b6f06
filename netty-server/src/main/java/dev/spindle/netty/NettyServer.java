// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.ReferenceLauncher;
import dev.spindle.references.support.RemoteDownstream;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.compression.StandardCompressionOptions;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty reference: the benchmark app on Netty, written the way the fastest public Netty
 * entries are, in Netty's own idiom and knowing nothing of Spindle: the epoll native transport
 * (NIO when epoll is unavailable, and it says so), pooled direct buffers, {@link HttpServerCodec}
 * with no aggregator (a bodiless request is answered from its {@code HttpRequest}; {@code /echo}
 * collects its own body), pre-encoded headers, and one flush per read batch.
 * {@code /remote/{ms}} calls the downstream ({@code -Dspindle.remote}, read at start) with a Netty
 * client on the connection's own event loop, {@code /remote-blocking/{ms}} with the JDK's
 * {@code HttpClient.send} on a virtual thread ({@link RemoteCalls}); {@code /remote-tls/{ms}} as
 * {@code /remote/{ms}}, over HTTPS to {@code -Dspindle.remoteTls}, trusting the PKCS12 store of
 * {@code -Dspindle.client.trustStore} (else the JDK's default trust); {@code /remote-h2/{ms}} that
 * downstream over HTTP/2 ({@link Http2RemoteCalls}: h2 by ALPN, child stream channels of a few
 * multiplexed connections per event loop). {@code /users-list} is
 * gzip-compressed on HTTP/1.1 by Netty's {@code HttpContentCompressor}, which {@link BenchmarkHandler}
 * puts in a connection's pipeline when that connection first asks for the route.
 *
 * <p>Launcher: {@code NettyServer <port> [workers]}; {@code workers} event loops, default the
 * processor count; {@code -Dspindle.host} the address (127.0.0.1);
 * {@code -Dspindle.netty.transport=nio} forces NIO.
 *
 * <p>HTTP/2 over cleartext on the same port, in Netty's idiom ({@code -Dspindle.h2c=false} turns it
 * off): {@link CleartextHttp2ServerUpgradeHandler} takes a connection that opens with the HTTP/2
 * preface straight to HTTP/2, and one that asks {@code Upgrade: h2c} ({@link Http2ServerUpgradeCodec})
 * there after its first request, which is answered on stream 1. HTTP/2 is Netty's fastest shape, that
 * of its own hello-world example: one {@link Http2BenchmarkConnectionHandler} per connection, an
 * {@code Http2ConnectionHandler} that is its own frame listener and answers every stream through its
 * encoder with the same routes, no channel per stream, one flush per read batch. With
 * {@code -Dspindle.tls.keystore} (PKCS12) and {@code -Dspindle.tls.password} the port speaks TLS
 * instead (the JDK's, as Spindle's servers), and {@link ApplicationProtocolNegotiationHandler} sets up
 * the protocol ALPN chose: h2 (the same connection handler) or HTTP/1.1, also for a client that offers
 * none. {@link NettyHttp2HelloServer} is the plainest Netty h2c server, the yardstick for this path.
 *
 * <p>WebSockets ({@code /ws/echo}, {@code /ws/broadcast}: {@link WebSockets}) and server-sent
 * events ({@code /sse/broadcast}, {@code /sse/publish}: {@link EventStreams}) on HTTP/1.1 only:
 * {@link BenchmarkHandler} installs their handlers on a connection when it asks for one of them,
 * so no other connection's pipeline carries them.
 */
public final class NettyServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NettyServer.class);
    /** SETTINGS_MAX_CONCURRENT_STREAMS per connection: Spindle's default, so the h2 scenarios load both alike. */
    static final long MAX_CONCURRENT_STREAMS = 128;

    private final String host;
    private final int requestedPort;
    private final int workers;
    private final boolean epoll;
    private final boolean h2c;
    private SslContext tls;
    private final CountDownLatch terminated = new CountDownLatch(1);
    private EventLoopGroup boss;
    private EventLoopGroup loops;
    private ExecutorService blocking;
    private RemoteCalls remote;
    private RemoteCalls remoteTls;
    private Channel serverChannel;
    /** The broadcast room and the event streams: one of each per server, so one per process as launched. */
    private final WebSockets webSockets = new WebSockets();
    private final EventStreams eventStreams = new EventStreams();

    /**
     * A server not yet started.
     *
     * @param host the address to bind
     * @param port the port, 0 for a free one
     * @param workers the number of event loops
     */
    public NettyServer(String host, int port, int workers) {
        this.host = host;
        this.requestedPort = port;
        this.workers = workers;
        boolean nioAsked = "nio".equalsIgnoreCase(System.getProperty("spindle.netty.transport", ""));
        this.epoll = !nioAsked && Epoll.isAvailable();
        this.h2c = Boolean.parseBoolean(System.getProperty("spindle.h2c", "true"));
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
    public NettyServer start() throws IOException {
        tls = tlsFromSystemProperties();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("netty-accept"), io);
        loops = new MultiThreadIoEventLoopGroup(workers, new DefaultThreadFactory("netty-loop"), io);
        blocking = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("netty-blocking-", 0).factory());
        // the remote routes' downstream, read as the server starts; its client connections use the same transport
        remote = new RemoteCalls(RemoteDownstream.fromSystemProperties(), epoll ? EpollSocketChannel.class : NioSocketChannel.class);
        // /remote-tls/{ms}'s: the same client over HTTPS (-Dspindle.remoteTls, trusting -Dspindle.client.trustStore)
        remoteTls = new RemoteCalls(RemoteDownstream.fromSystemProperties(RemoteDownstream.TLS_PROPERTY),
                epoll ? EpollSocketChannel.class : NioSocketChannel.class);
        // one Date per second for everyone, computed off the request path
        loops.next().scheduleAtFixedRate(Wire::refreshDate, 1000 - System.currentTimeMillis() % 1000, 1000, TimeUnit.MILLISECONDS);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, loops)
                .channel(channel)
                .option(ChannelOption.SO_BACKLOG, 8192)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // a client that half-closes after its requests still gets the answers
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            // TLS, then the protocol ALPN chose: h2, or HTTP/1.1 (also for a client offering none)
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()),
                                    new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                                        @Override
                                        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                                            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                                ctx.pipeline().addLast(http2Handler());
                                            } else {
                                                ctx.pipeline().addLast("codec", http1Codec());
                                                ctx.pipeline().addLast("app", new BenchmarkHandler(blocking, remote, remoteTls, webSockets, eventStreams, false));
                                            }
                                        }

                                        // a client gone mid-handshake (a load generator's window ending) is routine
                                        @Override
                                        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
                                            log.debug("TLS handshake of {} failed: {}", ctx.channel(), cause.toString());
                                            ctx.close();
                                        }

                                        @Override
                                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                            log.debug("closing {}: {}", ctx.channel(), cause.toString());
                                            ctx.close();
                                        }
                                    });
                            return;
                        }
                        HttpServerCodec codec = http1Codec();
                        if (!h2c) {
                            ch.pipeline().addLast("codec", codec);
                        } else {
                            // h2c on the same port, as Netty has it: the preface switches to HTTP/2 at once,
                            // "Upgrade: h2c" after the upgrading request (answered on stream 1); else HTTP/1.1
                            HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(codec,
                                    protocol -> AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                                            ? h2cUpgrade() : null,
                                    Wire.MAX_BODY_SIZE);
                            ch.pipeline().addLast("codec", new CleartextHttp2ServerUpgradeHandler(codec, upgrade,
                                    new ChannelInitializer<Channel>() {
                                        @Override
                                        protected void initChannel(Channel parent) {
                                            // the HTTP/1.1 app would sit after: the connection's h2 handler answers now
                                            dropHttp1App(parent.pipeline());
                                            parent.pipeline().addLast(http2Handler());
                                        }
                                    }));
                        }
                        ch.pipeline().addLast("app", new BenchmarkHandler(blocking, remote, remoteTls, webSockets, eventStreams));
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
        log.info("NettyServer ({} transport, {} event loops{}) listening on {}", epoll ? "epoll" : "nio", workers,
                tls != null ? ", TLS with h2 and http/1.1 by ALPN" : "", serverChannel.localAddress());
        return this;
    }

    /** The name of the compressor in a pipeline, once {@link BenchmarkHandler} has put it there. */
    static final String GZIP = "gzip";

    /**
     * Netty's response compression, for {@code /users-list} (see {@link BenchmarkHandler}): gzip only
     * (zlib's level 6, through the JDK's Deflater, as Spindle's), for bodies of 1 KiB or more, as
     * Spindle's {@code Compression.defaults()}.
     */
    static HttpContentCompressor gzip() {
        return new HttpContentCompressor(1024, StandardCompressionOptions.gzip());
    }

    private static HttpServerCodec http1Codec() {
        return new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(Wire.MAX_REQUEST_LINE)
                .setMaxHeaderSize(Wire.MAX_HEADER_SIZE));
    }

    /**
     * The TLS context of {@code -Dspindle.tls.keystore} (a PKCS12 key store) and {@code -Dspindle.tls.password},
     * null when no key store is set: the JDK's TLS (as Spindle's), offering h2 then http/1.1 by ALPN.
     */
    private static SslContext tlsFromSystemProperties() throws IOException {
        String file = System.getProperty("spindle.tls.keystore");
        if (file == null || file.isEmpty()) {
            return null;
        }
        char[] password = System.getProperty("spindle.tls.password", "").toCharArray();
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, password);
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            return SslContextBuilder.forServer(keys)
                    .sslProvider(SslProvider.JDK)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .build();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the key store " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The connection's HTTP/2 handler, which answers every stream itself (no channel per stream):
     * Netty's defaults but for {@link #MAX_CONCURRENT_STREAMS}, request headers validated.
     */
    private Http2BenchmarkConnectionHandler http2Handler() {
        return new Http2BenchmarkConnectionHandler.Builder(blocking, remote, remoteTls, MAX_CONCURRENT_STREAMS).build();
    }

    /**
     * {@code Upgrade: h2c}: {@link Http2ServerUpgradeCodec} with {@link #http2Handler()}; once the
     * 101 is written, the HTTP/1.1 app leaves the pipeline (the handler answers the upgrading
     * request on stream 1 from the upgrade event).
     */
    private HttpServerUpgradeHandler.UpgradeCodec h2cUpgrade() {
        Http2ServerUpgradeCodec codec = new Http2ServerUpgradeCodec(http2Handler());
        return new HttpServerUpgradeHandler.UpgradeCodec() {
            @Override
            public Collection<CharSequence> requiredUpgradeHeaders() {
                return codec.requiredUpgradeHeaders();
            }

            @Override
            public boolean prepareUpgradeResponse(ChannelHandlerContext ctx, FullHttpRequest request, HttpHeaders headers) {
                return codec.prepareUpgradeResponse(ctx, request, headers);
            }

            @Override
            public void upgradeTo(ChannelHandlerContext ctx, FullHttpRequest request) {
                codec.upgradeTo(ctx, request);
                dropHttp1App(ctx.pipeline());
            }
        };
    }

    /** Takes the HTTP/1.1 app (and its compressor, if {@code /users-list} put one in) out of a connection turning HTTP/2. */
    private static void dropHttp1App(ChannelPipeline pipeline) {
        if (pipeline.get(GZIP) != null) {
            pipeline.remove(GZIP);
        }
        if (pipeline.get("app") != null) {
            pipeline.remove("app");
        }
    }

    /** {@return the bound address} */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** {@return the transport in use: {@code epoll} or {@code nio}} */
    public String transport() {
        return epoll ? "epoll" : "nio";
    }

    /**
     * Stops accepting, lets the event loops finish what they hold (a short quiet period, at most
     * 10 s), then ends; idempotent.
     */
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
        if (blocking != null) {
            blocking.shutdown();
            try {
                blocking.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (loops != null) {
            loops.shutdownGracefully(100, 10_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        }
        if (remote != null) {
            remote.close();
        }
        if (remoteTls != null) {
            remoteTls.close();
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
        ReferenceLauncher.run("NettyServer", NettyServer.class, args, Runtime.getRuntime().availableProcessors(),
                "event loops", (host, port, workers) -> {
                    NettyServer server = new NettyServer(host, port, workers);
                    server.start();
                    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "netty-shutdown"));
                    return ReferenceLauncher.Started.of(server.address().getPort(), server::awaitTermination);
                });
    }
}
