// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.EventLoopServer;
import dev.spindle.core.spi.LoopContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * HTTP/1.1 over io_uring, through FFM bindings to the system's liburing
 * ({@code dev.spindle.iouring.ffi}): {@code workers} rings, each on its own platform thread with
 * its own SO_REUSEPORT listening socket, multishot accept, multishot receives into a provided
 * buffer ring (requests are parsed in the kernel-filled buffer, which goes back to the ring at once;
 * only an unfinished request's bytes are copied) and one send in flight per connection (see
 * {@link RingWorker}). Blocking routes run on virtual threads and asynchronous ones complete
 * later; either is answered from the ring, in request order. Each ring can also open sockets of
 * its own ({@code IORING_OP_CONNECT}) and drive a core client connection on them (the strategy
 * contract's {@code OutboundLoop}), so code on a ring calls other services without leaving it;
 * those sockets are not counted against {@link ServerConfig#maxConnections()} and close with the
 * ring. Where io_uring is not available ({@link IoUring#unavailabilityCause()}) {@link #start()}
 * fails with the reason.
 *
 * <table>
 *   <caption>Options beyond {@link ServerConfig}: {@link Tuning}, and the system properties a server made without it reads</caption>
 *   <tr><th>property</th><th>default</th><th>effect</th></tr>
 *   <tr><td>spindle.iouring.sqEntries</td><td>{@value Tuning#DEFAULT_SQ_ENTRIES}</td><td>SQ entries per ring (power of two)</td></tr>
 *   <tr><td>spindle.iouring.cqFactor</td><td>{@value Tuning#DEFAULT_CQ_FACTOR}</td><td>CQ size as a multiple of the SQ</td></tr>
 *   <tr><td>spindle.iouring.bufferRingEntries</td><td>{@value Tuning#DEFAULT_BUFFER_RING_ENTRIES}</td><td>provided receive buffers per ring (power of two)</td></tr>
 *   <tr><td>spindle.iouring.bufferSize</td><td>spindle.readBufferSize (16384)</td><td>bytes per provided buffer</td></tr>
 *   <tr><td>spindle.iouring.sendChunk</td><td>{@value Tuning#DEFAULT_SEND_CHUNK}</td><td>largest native send buffer; more output goes in the next send</td></tr>
 *   <tr><td>spindle.iouring.sqpoll</td><td>false</td><td>IORING_SETUP_SQPOLL (a kernel thread per ring polls the SQ; burns a core)</td></tr>
 *   <tr><td>spindle.iouring.sqpollIdleMillis</td><td>{@value Tuning#DEFAULT_SQPOLL_IDLE_MILLIS}</td><td>with SQPOLL: how long the kernel thread polls an idle SQ before it sleeps</td></tr>
 *   <tr><td>spindle.backlog</td><td>1024</td><td>listen backlog per listening socket ({@link ServerConfig#backlog()})</td></tr>
 * </table>
 *
 * <p>Timeouts (decided by the core's {@code Connection.tick}, which each ring calls every
 * {@value RingWorker#SCAN_MILLIS} ms on the connections whose next deadline may have come): idle
 * keep-alive connections close after
 * {@link ServerConfig#idleTimeout()}; a request not complete within
 * {@link ServerConfig#headerTimeout()} gets 408; output not taken within
 * {@link ServerConfig#writeTimeout()} drops the connection; a handler not done within
 * {@link ServerConfig#handlerTimeout()} gets 503. Beyond {@link ServerConfig#maxConnections()}
 * new connections are answered 503.
 *
 * <p>Its launcher, {@code java -cp <classpath> dev.spindle.launch.IoUringServer <port> [workers]}
 * (the launchers module): {@code workers} is the number of rings.
 */
public final class IoUringServer extends EventLoopServer {
    private final Tuning tuning;
    private volatile List<RingWorker> workers = List.of();

    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with the io_uring
     * settings its {@code -Dspindle.iouring.*} properties give
     * ({@link Tuning#fromSystemProperties(ServerConfig)}).
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @throws IllegalArgumentException if an io_uring property does not parse or is out of range
     */
    public IoUringServer(ServerConfig config, Router router) {
        this(config, router, Tuning.fromSystemProperties(config));
    }

    /**
     * A server for {@code router}, not yet started ({@link #start()} binds it), with these io_uring
     * settings; their system properties are not read.
     *
     * @param config address, limits, timeouts and worker count
     * @param router the routes it serves
     * @param tuning ring and buffer sizes, SQPOLL ({@link Tuning#defaults(ServerConfig)} for the defaults)
     */
    public IoUringServer(ServerConfig config, Router router, Tuning tuning) {
        super("IoUringServer", config, router);
        this.tuning = Objects.requireNonNull(tuning, "tuning");
    }

    /** One SO_REUSEPORT listening socket per ring, all on the port the first one got. */
    @Override
    protected Bound bind(LoopContext context) throws IOException {
        IoUring.ensureAvailable();
        ServerConfig config = context.config();
        InetAddress host = InetAddress.getByName(config.host());
        int port = config.port();
        InetSocketAddress address = null;
        List<Integer> listeners = new ArrayList<>();
        try {
            for (int i = 0; i < config.workers(); i++) {
                int fd = Sockets.listen(host, port, config.backlog());
                listeners.add(fd);
                if (i == 0) {
                    address = Sockets.localAddress(fd);
                    port = address.getPort();
                }
            }
        } catch (IOException | RuntimeException e) {
            listeners.forEach(Sockets::closeQuietly);
            throw e;
        }
        // From here each listening socket belongs to its ring, which closes it.
        List<RingWorker> rings = new ArrayList<>(listeners.size());
        for (int i = 0; i < listeners.size(); i++) {
            rings.add(new RingWorker(context, context.name() + "-ring-" + i, listeners.get(i), tuning));
        }
        workers = List.copyOf(rings);
        return new Bound(workers, address);
    }

    /** The rings, for tests and statistics. */
    List<RingWorker> workers() {
        return workers;
    }
}
