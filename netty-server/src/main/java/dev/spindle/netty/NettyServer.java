package dev.spindle.netty;

import dev.spindle.core.Connection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.ServerLifecycle;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference peer: the benchmark app on Netty 4.2, written the way a Netty user writes an HTTP
 * server, with the core {@link Router} adapted in so the app logic is the same as every Spindle
 * server's.
 *
 * <p>Pipeline per connection:
 * <pre>
 *   ReadGate                                             no read while autoRead is off, whoever asks
 *   IdleStateHandler(reader idle = idleTimeout)          closes idle keep-alive connections
 *   HttpServerCodec(maxInitialLineLength, maxHeaderSize)  Netty's HTTP/1.1 parser and encoder
 *   RequestChecks                                         version 505, header count 431, Host 400
 *   HttpObjectAggregator(maxBodySize)                     whole requests; 100-continue; 413 itself
 *   RouterHandler                                         core Router, keep-alive, pipelining order,
 *                                                         blocking routes on virtual threads
 * </pre>
 * {@code HttpServerExpectContinueHandler} is not installed: its Javadoc reserves it for pipelines
 * without an aggregator, since {@link HttpObjectAggregator} answers {@code Expect: 100-continue}
 * itself (100, or 413 when the announced body is too large, or 417 for other expectations).
 *
 * <p>Threads: one acceptor event loop ("boss") plus {@link ServerConfig#workers()} worker event loops
 * that own the connections, all of the chosen {@link NettyTransport}; blocking routes run on
 * virtual threads. Options: {@code SO_REUSEADDR}, backlog 1024 on the listener; {@code TCP_NODELAY}
 * and a write-buffer high-water mark of {@link ServerConfig#writeHighWaterMark()} on connections
 * (reading pauses while a connection is not writable). Buffers come from Netty's default
 * allocator (pooled; the adaptive allocator in 4.2).
 *
 * <p>Command line ({@link Launcher}): {@code NettyServer <port> [workers]}; the transport is chosen by
 * {@code -Dspindle.netty.transport=nio|epoll|io_uring}, by default the best available (io_uring,
 * else epoll, else NIO). An unavailable transport asked for by name fails the start with Netty's
 * reason. Set {@code -Dspindle.log.level=INFO} to see the transport in the log.
 *
 * <p>Netty limit the core does not have: {@code HttpServerCodec} keeps at most 128 decoded requests
 * whose responses are still owed ({@code maxPipelineDepth}, Netty's guard against clients that
 * pipeline without reading) and closes the connection beyond it. Only pipelines stalled behind a
 * blocking route get near it; the benchmark's 16-deep pipelining does not.
 *
 * <p>ServerConfig settings honoured: host, port, workers, maxRequestLineLength (414),
 * maxHeaderSize (431), maxHeaderCount (431), maxBodySize (413, by Netty), keepAlive, idleTimeout,
 * drainTimeout, maxConnections (503), writeHighWaterMark, and writeTimeout as the longest a
 * connection may stay unwritable (output above the high-water mark that the peer does not read;
 * a timer runs only then, not per write). Not applied: headerTimeout (Netty has no per-request
 * deadline), readBufferSize (Netty sizes reads adaptively), directBuffers and busyPoll (NIO-engine
 * options).
 */
public final class NettyServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(NettyServer.class);
    private static final long QUIET_PERIOD_MILLIS = 50;
    private static final byte[] TOO_MANY_CONNECTIONS = Connection.rejection(503, "too many connections");

    private final ServerConfig config;
    private final Router router;
    private final NettyTransport transport;
    private final ServerLifecycle lifecycle = new ServerLifecycle("NettyServer");
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger blockingInFlight = new AtomicInteger();
    private volatile boolean draining;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private ExecutorService blockingExecutor;
    private volatile Channel serverChannel;

    /** A server on the transport named by {@code -Dspindle.netty.transport}, or the best available. */
    public NettyServer(ServerConfig config, Router router) {
        this(config, router, NettyTransport.fromSystemProperty());
    }

    public NettyServer(ServerConfig config, Router router, NettyTransport transport) {
        this.config = config;
        this.router = router;
        this.transport = transport;
    }

    public static void main(String[] args) {
        Launcher.run(NettyServer.class, args, NettyServer::new);
    }

    public NettyTransport transport() {
        return transport;
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        if (!transport.isAvailable()) {
            Throwable cause = transport.unavailabilityCause();
            throw new IOException("the Netty " + transport + " transport is unavailable: " + cause, cause);
        }
        boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("netty-" + transport + "-accept"),
                transport.ioHandlerFactory());
        workers = new MultiThreadIoEventLoopGroup(config.workers(), new DefaultThreadFactory("netty-" + transport + "-loop"),
                transport.ioHandlerFactory());
        blockingExecutor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("netty-blocking-", 0).factory());
        int high = config.writeHighWaterMark();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // a peer that half-closes after its requests still gets the answers (RouterHandler closes after them)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
                .childHandler(new Initializer());
        try {
            serverChannel = bootstrap.bind(config.host(), config.port()).sync().channel();
        } catch (Exception e) {
            shutdownNow();
            throw e instanceof IOException io ? io : new IOException("cannot bind " + config.host() + ":" + config.port() + ": " + e, e);
        }
        log.info("NettyServer ({} transport, {} event loops, allocator {}, sun.misc.Unsafe {}) listening on {}", transport,
                config.workers(), ByteBufAllocator.DEFAULT.getClass().getSimpleName(),
                PlatformDependent.hasUnsafe() ? "used" : "not used", serverChannel.localAddress());
        return this;
    }

    /** The per-connection pipeline (see the class comment). */
    private final class Initializer extends ChannelInitializer<Channel> {
        private final RequestChecks checks = new RequestChecks(config.maxHeaderCount());

        @Override
        protected void initChannel(Channel ch) {
            if (connections.incrementAndGet() > config.maxConnections() || draining) {
                connections.decrementAndGet();
                ch.writeAndFlush(Unpooled.wrappedBuffer(TOO_MANY_CONNECTIONS)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ch.closeFuture().addListener(f -> connections.decrementAndGet());
            ChannelPipeline p = ch.pipeline();
            p.addLast("readGate", ReadGate.INSTANCE);
            p.addLast("idle", new IdleStateHandler(config.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
            p.addLast("codec", new HttpServerCodec(new HttpDecoderConfig()
                    .setMaxInitialLineLength(config.maxRequestLineLength())
                    .setMaxHeaderSize(config.maxHeaderSize())));
            p.addLast("checks", checks);
            p.addLast("aggregator", new HttpObjectAggregator((int) config.maxBodySize()));
            p.addLast("spindle", new RouterHandler(NettyServer.this));
        }
    }

    Router router() {
        return router;
    }

    ServerConfig config() {
        return config;
    }

    /** Whether responses may keep their connection open: the configuration allows it and the server is not closing. */
    boolean keepsAlive() {
        return config.keepAlive() && !draining;
    }

    ExecutorService blockingExecutor() {
        return blockingExecutor;
    }

    void blockingStarted() {
        blockingInFlight.incrementAndGet();
    }

    void blockingFinished() {
        blockingInFlight.decrementAndGet();
    }

    @Override
    public InetSocketAddress address() {
        Channel ch = serverChannel;
        if (ch == null) {
            throw new IllegalStateException("NettyServer is not started");
        }
        return (InetSocketAddress) ch.localAddress();
    }

    /**
     * Stops accepting, lets blocking handlers in flight finish (bounded by the drain timeout) while
     * every response now says {@code Connection: close}, then shuts the event loops down gracefully
     * (a short quiet period, at most the rest of the drain timeout), which closes the remaining
     * connections.
     */
    @Override
    public void close() {
        if (!lifecycle.beginClose()) {
            return;
        }
        try {
            draining = true;
            if (serverChannel == null) {
                return; // the start failed and already shut everything down
            }
            long deadline = System.nanoTime() + config.drainTimeout().toNanos();
            serverChannel.close().awaitUninterruptibly();
            if (!ServerLifecycle.drain(() -> blockingInFlight.get() == 0, () -> { }, config.drainTimeout())) {
                log.warn("NettyServer: {} blocking requests still running after the drain timeout; closing their connections",
                        blockingInFlight.get());
            }
            long left = Math.max(QUIET_PERIOD_MILLIS, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            Future<?> w = workers.shutdownGracefully(QUIET_PERIOD_MILLIS, left, TimeUnit.MILLISECONDS);
            Future<?> b = boss.shutdownGracefully(0, left, TimeUnit.MILLISECONDS);
            w.awaitUninterruptibly();
            b.awaitUninterruptibly();
            blockingExecutor.shutdownNow();
            log.info("NettyServer ({}) closed", transport);
        } finally {
            lifecycle.markTerminated();
        }
    }

    private void shutdownNow() {
        boss.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        workers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        blockingExecutor.shutdownNow();
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    @Override
    public String toString() {
        Channel ch = serverChannel;
        return "NettyServer[" + transport + (ch == null ? "" : " on " + ch.localAddress()) + "]";
    }
}
