package dev.spindle.netty;

import dev.spindle.benchmark.Launcher;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.ServerLifecycle;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
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
 *   ReadGate                                  no read while autoRead is off, whoever asks
 *   [TLS only] TlsOrPlain, then SslHandler    Netty's TLS on an engine from ServerConfig.tls()
 *   RouterHandler's input watch               a request's first bytes start the read timeout;
 *                                             drops input while a finished connection lingers
 *   IdleStateHandler(observeOutput,           all idle: closes idle keep-alive connections;
 *     writer = writeTimeout, all = idleTimeout) writer idle with output pending: the write timeout
 *   HttpServerCodec(maxInitialLineLength,     Netty's HTTP/1.1 parser and encoder
 *     maxHeaderSize)
 *   RequestChecks                             what Netty leaves to the app: target 400, version 505,
 *                                             header count 431, Host and transfer codings 400/501
 *   ChunkedWriteHandler                       streamed response bodies, as the channel drains
 *   RouterHandler                             core Router: bodies joined or streamed, handlers
 *                                             inline, blocking or asynchronous, pipelining order,
 *                                             keep-alive, timeouts, lingering close
 * </pre>
 * A connection beyond {@code maxConnections} gets a pipeline of one {@link Rejecting} handler instead.
 * There is no {@code HttpObjectAggregator}: whether a request's body is joined (inline routes) or
 * streamed to its handler (blocking and asynchronous routes, so an upload as large as maxBodySize
 * allows passes in bounded memory) depends on its route, which {@link RouterHandler} knows once
 * the header section is decoded; it also answers {@code Expect: 100-continue} (at once for inline
 * routes, when the handler first reads for streamed ones; 417 for other expectations).
 *
 * <p>HTTPS, when {@link ServerConfig#tls()} is set: Netty's own {@link io.netty.handler.ssl.SslHandler}
 * (the reference row uses Netty's TLS as it uses Netty's codec) on an {@code SSLEngine} from
 * {@link dev.spindle.core.Tls#newEngine()}, so ALPN offers {@code http/1.1} only. {@link TlsOrPlain}
 * looks at a connection's first bytes first: a TLS record puts the {@code SslHandler} in its place,
 * plain HTTP gets the core's plain 400 saying the port speaks HTTPS and a close (as on every
 * Spindle server), anything else a close. Files then go in chunks ({@code SslHandler} cannot
 * encrypt a file region), and a lingering close sends {@code close_notify} before it shuts the
 * output down. A connection beyond {@code maxConnections} gets no {@code SslHandler}: the core's
 * rejecting connection speaks TLS itself.
 *
 * <p>Threads: one acceptor event loop ("boss") plus {@link ServerConfig#workers()} worker event loops
 * that own the connections, all of the chosen {@link NettyTransport}; blocking handlers and the
 * producers of streamed response bodies run on virtual threads; asynchronous handlers start on the
 * event loop and are answered there when their stage completes. Options: {@code SO_REUSEADDR},
 * backlog 1024 on the listener; {@code TCP_NODELAY} and a write-buffer high-water mark of
 * {@link ServerConfig#writeHighWaterMark()} on connections (reading pauses while a connection is not
 * writable). Buffers come from Netty's default allocator (pooled; the adaptive allocator in 4.2).
 * Files are sent as {@link io.netty.channel.DefaultFileRegion}s (zero-copy) where the transport
 * allows it (NIO, epoll; io_uring when the kernel has {@code splice}), else in chunks.
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
 * maxHeaderSize (431), maxHeaderCount (431), maxBodySize (413), maxStreamedBodySize (413) and a route's own body
 * limit, bufferedBodyBudget (503 or 413 for a joined body, reserved by its announced length or as its
 * contents arrive), keepAlive, drainTimeout,
 * maxConnections (503, through the core's rejecting connection), writeHighWaterMark, discardLimit,
 * and the timeouts: idleTimeout (no request in progress and no traffic either way), writeTimeout
 * (output pending and none of it taken by the peer for that long), handlerTimeout (503 and a close;
 * a streamed response body that produces nothing for that long closes its connection) and
 * headerTimeout (408 and a close when a request whose first bytes arrived is not complete in time;
 * for a streamed body, when no bytes came for that long while its handler waited for them). Not
 * applied: readBufferSize (Netty sizes reads adaptively), directBuffers and busyPoll (NIO-engine
 * options). One approximation: Netty's decoder does not say whether it holds the start of another
 * request, so a request that begins in the same read that ends the previous one and then stalls is
 * closed by the idle timeout, without a 408.
 */
public final class NettyServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(NettyServer.class);
    private static final long QUIET_PERIOD_MILLIS = 50;
    /** Largest body piece the decoder hands over at once (Netty's default is 8 KiB): fewer messages for large bodies. */
    private static final int MAX_CHUNK_SIZE = 64 * 1024;

    private final ServerConfig config;
    private final Router router;
    private final NettyTransport transport;
    private final ServerLifecycle lifecycle = new ServerLifecycle("NettyServer");
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger callsInFlight = new AtomicInteger();
    /** What the channels together may hold in joined request bodies ({@link ServerConfig#bufferedBodyBudget()}). */
    private final BodyBudget bodyBudget;
    private volatile boolean draining;
    private boolean fileRegions;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private ExecutorService blockingExecutor;
    private volatile Channel serverChannel;

    /**
     * A server on the transport named by {@code -Dspindle.netty.transport}, or the best available.
     *
     * @param config address, limits, timeouts and event-loop count
     * @param router the routes it serves
     */
    public NettyServer(ServerConfig config, Router router) {
        this(config, router, NettyTransport.fromSystemProperty());
    }

    /**
     * A server on {@code transport}, which must be {@link NettyTransport#isAvailable() available} when it starts.
     *
     * @param config address, limits, timeouts and event-loop count
     * @param router the routes it serves
     * @param transport NIO, epoll or io_uring
     */
    public NettyServer(ServerConfig config, Router router, NettyTransport transport) {
        this.config = config;
        this.bodyBudget = BodyBudget.of(config);
        this.router = router;
        this.transport = transport;
        // an SslHandler encrypts ByteBufs only: over TLS files go in chunks
        this.fileRegions = transport.supportsFileRegion() && config.tls() == null;
    }

    /**
     * The launcher: {@code <port> [workers]}, the benchmark app's routes, until SIGTERM.
     *
     * @param args the port (0 picks a free one) and, optionally, the worker count
     */
    public static void main(String[] args) {
        Launcher.run(NettyServer.class, args, NettyServer::new);
    }

    /**
     * The transport this server runs on.
     *
     * @return NIO, epoll or io_uring
     */
    public NettyTransport transport() {
        return transport;
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        if (!transport.isAvailable()) {
            Throwable cause = transport.unavailabilityCause();
            failedStart();
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
                .option(ChannelOption.SO_BACKLOG, config.backlog())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // a peer that half-closes after its requests still gets the answers (RouterHandler closes after them)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
                .childHandler(new Initializer());
        if (config.reusePort()) {
            bootstrap.option(transport.reusePortOption(), true);
        }
        try {
            serverChannel = bootstrap.bind(config.host(), config.port()).sync().channel();
        } catch (Exception e) {
            shutdownNow();
            failedStart();
            throw e instanceof IOException io ? io : new IOException("cannot bind " + config.host() + ":" + config.port() + ": " + e, e);
        }
        log.info("NettyServer ({} transport, {} event loops, allocator {}, sun.misc.Unsafe {}) listening on {}", transport,
                config.workers(), ByteBufAllocator.DEFAULT.getClass().getSimpleName(),
                PlatformDependent.hasUnsafe() ? "used" : "not used", serverChannel.localAddress());
        lifecycle.started(this, config.shutdownHook());
        return this;
    }

    /** The per-connection pipeline (see the class comment). */
    private final class Initializer extends ChannelInitializer<Channel> {
        private final RequestChecks checks = new RequestChecks(config.maxHeaderCount());

        @Override
        protected void initChannel(Channel ch) {
            if (connections.incrementAndGet() > config.maxConnections() || draining) {
                connections.decrementAndGet();
                ch.pipeline().addLast("rejecting", new Rejecting(config, draining ? "the server is shutting down" : "too many connections"));
                return;
            }
            ch.closeFuture().addListener(f -> connections.decrementAndGet());
            RouterHandler router = new RouterHandler(NettyServer.this);
            ChannelPipeline p = ch.pipeline();
            p.addLast("readGate", ReadGate.INSTANCE);
            if (config.tls() != null) {
                // after the gate, so that the SslHandler's own reads wait while autoRead is off too
                p.addLast("tls", new TlsOrPlain(config));
            }
            p.addLast("input", router.inputWatch());
            p.addLast("idle", new IdleStateHandler(true, 0, config.writeTimeout().toMillis(), config.idleTimeout().toMillis(),
                    TimeUnit.MILLISECONDS));
            p.addLast("codec", new HttpServerCodec(new HttpDecoderConfig()
                    .setMaxInitialLineLength(config.maxRequestLineLength())
                    .setMaxHeaderSize(config.maxHeaderSize())
                    .setMaxChunkSize(MAX_CHUNK_SIZE)));
            p.addLast("checks", checks);
            p.addLast("chunked", new ChunkedWriteHandler());
            p.addLast("spindle", router);
        }
    }

    /** Sends files in chunks even where the transport could send file regions (tests the fallback). */
    NettyServer withoutFileRegions() {
        fileRegions = false;
        return this;
    }

    /** Whether files go out as zero-copy {@link io.netty.channel.DefaultFileRegion}s rather than in chunks. */
    boolean sendsFileRegions() {
        return fileRegions;
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

    BodyBudget bodyBudget() {
        return bodyBudget;
    }

    /** Virtual threads for blocking handlers and the producers of streamed response bodies. */
    ExecutorService blockingExecutor() {
        return blockingExecutor;
    }

    /** A blocking or asynchronous handler started, or a streamed response began: close() waits for it. */
    void callStarted() {
        callsInFlight.incrementAndGet();
    }

    /** Its response was written (or the connection ended). */
    void callFinished() {
        callsInFlight.decrementAndGet();
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
     * Stops accepting, lets blocking and asynchronous handlers in flight and streamed responses
     * finish (bounded by the drain timeout) while every response now says {@code Connection: close}, then shuts the event loops down gracefully
     * after the core's drain grace ({@link Connection#DRAIN_IDLE_GRACE_MILLIS}, in which an idle
     * connection may still send one more request) and a short quiet period, at most the rest of the
     * drain timeout, which closes the remaining connections.
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
            if (!ServerLifecycle.drain(() -> callsInFlight.get() == 0, () -> { }, config.drainTimeout())) {
                log.warn("NettyServer: {} requests still in progress after the drain timeout; closing their connections",
                        callsInFlight.get());
            }
            // As on Spindle's own servers, an idle connection gets the core's drain grace for one more
            // request (answered with a close); a loop that shuts down closes all its channels at once.
            Duration grace = Duration.ofMillis(Math.min(Connection.DRAIN_IDLE_GRACE_MILLIS, config.drainTimeout().toMillis() / 2));
            ServerLifecycle.drain(() -> connections.get() == 0, () -> { }, grace);
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

    /** A start that failed is over: close() and awaitTermination() return at once. */
    private void failedStart() {
        lifecycle.beginClose();
        lifecycle.markTerminated();
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
