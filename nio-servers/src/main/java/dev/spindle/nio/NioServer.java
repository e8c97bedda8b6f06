package dev.spindle.nio;

import dev.spindle.core.ConnectionLimit;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.ServerLifecycle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NIO engine: {@link EventLoop}s (a {@code Selector} each, one core
 * {@link dev.spindle.core.Connection} per key) arranged in a {@link Topology}. The four public NIO
 * servers are this engine with a different topology; everything else is configuration.
 *
 * <table>
 *   <caption>Options (from {@link ServerConfig}, or a system property where noted)</caption>
 *   <tr><th>option</th><th>property</th><th>default</th><th>effect</th></tr>
 *   <tr><td>workers</td><td>(CLI argument)</td><td>processors</td><td>serving loops (ignored by {@link SingleLoopServer})</td></tr>
 *   <tr><td>busyPoll</td><td>spindle.busyPoll</td><td>false</td><td>spin on {@code selectNow()} before a blocking {@code select}</td></tr>
 *   <tr><td>busy-poll spins</td><td>spindle.busyPollSpins</td><td>{@value #DEFAULT_BUSY_POLL_SPINS}</td><td>empty {@code selectNow()} calls before blocking</td></tr>
 *   <tr><td>directBuffers</td><td>spindle.directBuffers</td><td>false</td><td>each loop's read buffer is direct (saves the JDK's copy through its temporary direct buffer)</td></tr>
 *   <tr><td>readBufferSize</td><td>spindle.readBufferSize</td><td>16384</td><td>bytes per socket read (one buffer per loop, reused)</td></tr>
 *   <tr><td>writeHighWaterMark</td><td>spindle.writeHighWaterMark</td><td>65536</td><td>pending output at which a connection stops processing requests</td></tr>
 *   <tr><td>backlog</td><td>spindle.backlog</td><td>{@value #DEFAULT_BACKLOG}</td><td>listen backlog of each listening socket</td></tr>
 * </table>
 *
 * <p>Timeouts (checked by each loop every {@value EventLoop#SCAN_MILLIS} ms, never per event):
 * an idle keep-alive connection is closed after {@link ServerConfig#idleTimeout()}; a request that
 * has started but not fully arrived within {@link ServerConfig#headerTimeout()} gets 408 and a
 * close; output the peer does not drain within {@link ServerConfig#writeTimeout()} drops the
 * connection. Beyond {@link ServerConfig#maxConnections()} a new connection is answered 503.
 * Blocking routes run on virtual threads and are answered from the loop, in request order.
 */
public class NioServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(NioServer.class);
    static final int DEFAULT_BUSY_POLL_SPINS = 1000;
    static final int DEFAULT_BACKLOG = 1024;

    private final String name;
    private final Topology topology;
    private final ServerConfig config;
    private final Router router;
    private final int busyPollSpins;
    private final int backlog;
    private final ConnectionLimit connections;
    private final ServerLifecycle lifecycle;
    private final ExecutorService blockingExecutor;
    /** Set after {@link #drainDeadline}, so a loop that sees it also sees the deadline. */
    private volatile boolean closing;
    private volatile long drainDeadline;
    private final List<EventLoop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile InetSocketAddress address;

    NioServer(String name, Topology topology, ServerConfig config, Router router) {
        this.name = name;
        this.topology = topology;
        this.config = config;
        this.connections = new ConnectionLimit(config.maxConnections());
        this.router = router;
        this.lifecycle = new ServerLifecycle(name);
        this.busyPollSpins = Math.max(1, Integer.getInteger("spindle.busyPollSpins", DEFAULT_BUSY_POLL_SPINS));
        this.backlog = Math.max(1, Integer.getInteger("spindle.backlog", DEFAULT_BACKLOG));
        this.blockingExecutor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-blocking-", 0).factory());
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        List<ServerSocketChannel> listeners = new ArrayList<>();
        try {
            int count = topology.servingLoops(config);
            EventLoop[] serving = new EventLoop[count];
            for (int i = 0; i < count; i++) {
                serving[i] = new EventLoop(this, name + "-loop-" + i);
                loops.add(serving[i]);
            }
            InetAddress host = InetAddress.getByName(config.host());
            switch (topology) {
                case SINGLE_LOOP -> serving[0].listen(open(listeners, host, config.port(), false), null);
                case MULTI_LOOP -> serving[0].listen(open(listeners, host, config.port(), false), serving);
                case BOSS_WORKER -> {
                    EventLoop boss = new EventLoop(this, name + "-boss");
                    loops.add(boss);
                    boss.listen(open(listeners, host, config.port(), false), serving);
                }
                case REUSE_PORT -> {
                    int port = config.port();
                    for (EventLoop loop : serving) {
                        ServerSocketChannel channel = open(listeners, host, port, true);
                        port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
                        loop.listen(channel, null);
                    }
                }
            }
            address = (InetSocketAddress) listeners.getFirst().getLocalAddress();
        } catch (IOException | RuntimeException e) {
            for (ServerSocketChannel channel : listeners) {
                closeQuietly(channel);
            }
            loops.forEach(EventLoop::discard);
            loops.clear();
            blockingExecutor.shutdownNow();
            lifecycle.markTerminated();
            throw e;
        }
        for (EventLoop loop : loops) {
            threads.add(Thread.ofPlatform().name(loop.name()).start(loop));
        }
        log.info("{} listening on {} ({}, {} loop{})", name, address, topology, loops.size(), loops.size() == 1 ? "" : "s");
        return this;
    }

    private ServerSocketChannel open(List<ServerSocketChannel> opened, InetAddress host, int port, boolean reusePort) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        opened.add(channel);
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        if (reusePort) {
            if (!channel.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT)) {
                throw new IOException("SO_REUSEPORT is not supported on this platform");
            }
            channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        }
        channel.bind(new InetSocketAddress(host, port), backlog);
        channel.configureBlocking(false);
        return channel;
    }

    @Override
    public InetSocketAddress address() {
        InetSocketAddress bound = address;
        if (bound == null) {
            throw new IllegalStateException(name + " is not started");
        }
        return bound;
    }

    String name() {
        return name;
    }

    ServerConfig config() {
        return config;
    }

    Router router() {
        return router;
    }

    ExecutorService blockingExecutor() {
        return blockingExecutor;
    }

    int busyPollSpins() {
        return busyPollSpins;
    }

    boolean isClosing() {
        return closing;
    }

    long drainDeadline() {
        return drainDeadline;
    }

    /** Counts a new connection against {@link ServerConfig#maxConnections()}; false when full. */
    boolean tryAcquireConnection() {
        return connections.tryAcquire();
    }

    void releaseConnection() {
        connections.release();
    }

    /** Open connections being served (not counting rejected ones lingering), for tests and monitoring. */
    int connectionCount() {
        return connections.count();
    }

    @Override
    public void close() {
        if (!lifecycle.beginClose()) {
            return;
        }
        drainDeadline = System.nanoTime() + config.drainTimeout().toNanos();
        closing = true;
        loops.forEach(EventLoop::wakeup);
        long joinMillis = config.drainTimeout().toMillis() + 5_000;
        for (Thread thread : threads) {
            if (thread == Thread.currentThread()) {
                continue;
            }
            try {
                thread.join(joinMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (thread.isAlive()) {
                log.warn("{}: {} did not stop in time", name, thread.getName());
            }
        }
        blockingExecutor.shutdownNow();
        try {
            blockingExecutor.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("{} closed", name);
        lifecycle.markTerminated();
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            log.trace("close failed: {}", e.toString());
        }
    }

    @Override
    public String toString() {
        return name + (address == null ? "" : " on " + address);
    }
}
