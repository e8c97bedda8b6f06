// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.EventLoopServer;
import dev.spindle.core.spi.LoopContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NIO engine: {@link EventLoop}s (a {@code Selector} each, one core
 * {@link dev.spindle.core.spi.Connection} per key) arranged in a {@link Topology}, run by the core's
 * {@link EventLoopServer} shell (start, graceful close, connection limit, drain deadline, virtual
 * threads for blocking handlers). The four public NIO servers are this engine with a different
 * topology; everything else is configuration. The engine's own settings are {@link NioSettings}
 * (busy-polling, direct buffers), which a server's constructor takes or reads from their
 * {@code -Dspindle.*} properties; the table lists the strategy-neutral {@link ServerConfig}
 * options that shape it.
 *
 * <table>
 *   <caption>ServerConfig options the engine reads, with their system properties</caption>
 *   <tr><th>option</th><th>property</th><th>default</th><th>effect</th></tr>
 *   <tr><td>workers</td><td>(CLI argument)</td><td>processors</td><td>serving loops (ignored by {@link SingleLoopServer})</td></tr>
 *   <tr><td>readBufferSize</td><td>spindle.readBufferSize</td><td>16384</td><td>bytes per socket read (one buffer per loop, reused)</td></tr>
 *   <tr><td>writeHighWaterMark</td><td>spindle.writeHighWaterMark</td><td>65536</td><td>pending output at which a connection stops processing requests and pulling streamed bodies</td></tr>
 *   <tr><td>backlog</td><td>spindle.backlog</td><td>1024</td><td>listen backlog of each listening socket</td></tr>
 * </table>
 *
 * <p>Time belongs to the core: every {@value EventLoop#SCAN_MILLIS} ms each loop calls
 * {@link dev.spindle.core.spi.Connection#tick} on its connections whose next deadline may have come
 * (an idle one waits for it, so many idle sockets cost little), which applies the idle, header
 * (408), write and handler (503) timeouts and ends lingering. Beyond
 * {@link ServerConfig#maxConnections()} a new socket is served a core rejection (503, then a
 * close). Blocking routes run on virtual threads and are answered from the loop, in request order;
 * file bodies are sent with {@code FileChannel.transferTo}. Each loop can also open sockets of its
 * own and drive a core client connection on them (the strategy contract's {@code OutboundLoop}), so
 * code on a loop calls other services without leaving it; those sockets are not counted against
 * {@link ServerConfig#maxConnections()} and close with the loop.
 */
public class NioServer extends EventLoopServer {
    private static final Logger log = LoggerFactory.getLogger(NioServer.class);

    private final Topology topology;
    private final NioSettings settings;
    private final int backlog;

    NioServer(String name, Topology topology, ServerConfig config, Router router, NioSettings settings) {
        super(name, config, router);
        this.topology = topology;
        this.settings = Objects.requireNonNull(settings, "settings");
        this.backlog = config.backlog();
    }

    @Override
    protected Bound bind(LoopContext context) throws IOException {
        ServerConfig config = context.config();
        List<ServerSocketChannel> listeners = new ArrayList<>();
        List<EventLoop> loops = new ArrayList<>();
        try {
            int count = topology.servingLoops(config);
            EventLoop[] serving = new EventLoop[count];
            for (int i = 0; i < count; i++) {
                serving[i] = new EventLoop(context, context.name() + "-loop-" + i, settings);
                loops.add(serving[i]);
            }
            InetAddress host = InetAddress.getByName(config.host());
            boolean shared = config.reusePort();
            switch (topology) {
                case SINGLE_LOOP -> serving[0].listen(open(listeners, host, config.port(), shared), null);
                case MULTI_LOOP -> serving[0].listen(open(listeners, host, config.port(), shared), serving);
                case BOSS_WORKER -> {
                    EventLoop boss = new EventLoop(context, context.name() + "-boss", settings);
                    loops.add(boss);
                    boss.listen(open(listeners, host, config.port(), shared), serving);
                }
                case REUSE_PORT -> {
                    int port = config.port();
                    AtomicInteger undrained = new AtomicInteger(serving.length);
                    for (EventLoop loop : serving) {
                        loop.sharePort(undrained);
                        ServerSocketChannel channel = open(listeners, host, port, true);
                        port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
                        loop.listen(channel, null);
                    }
                }
            }
            InetSocketAddress address = (InetSocketAddress) listeners.getFirst().getLocalAddress();
            log.debug("{}: {} with {} listening socket{}", context.name(), topology, listeners.size(), listeners.size() == 1 ? "" : "s");
            return new Bound(loops, address);
        } catch (IOException | RuntimeException e) {
            listeners.forEach(NioServer::closeQuietly);
            loops.forEach(EventLoop::discard);
            throw e;
        }
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

    static void closeQuietly(Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            log.trace("close failed: {}", e.toString());
        }
    }
}
