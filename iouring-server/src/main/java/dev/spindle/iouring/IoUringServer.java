package dev.spindle.iouring;

import dev.spindle.core.ConnectionLimit;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Launcher;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.ServerLifecycle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 over io_uring, through FFM bindings to the system's liburing
 * ({@code dev.spindle.iouring.ffi}): {@code workers} rings, each on its own platform thread with
 * its own SO_REUSEPORT listening socket, multishot accept, multishot receives into a provided
 * buffer ring (requests are parsed in the kernel-filled buffer, which goes back to the ring at once;
 * only an unfinished request's bytes are copied) and one send in flight per connection (see
 * {@link RingWorker}). Blocking routes run on virtual threads and are answered from the ring, in
 * request order. Where io_uring is not
 * available ({@link IoUring#unavailabilityCause()}) {@link #start()} fails with the reason.
 *
 * <table>
 *   <caption>Options beyond {@link ServerConfig} (system properties)</caption>
 *   <tr><th>property</th><th>default</th><th>effect</th></tr>
 *   <tr><td>spindle.iouring.sqEntries</td><td>{@value Tuning#DEFAULT_SQ_ENTRIES}</td><td>SQ entries per ring (power of two)</td></tr>
 *   <tr><td>spindle.iouring.cqFactor</td><td>{@value Tuning#DEFAULT_CQ_FACTOR}</td><td>CQ size as a multiple of the SQ</td></tr>
 *   <tr><td>spindle.iouring.bufferRingEntries</td><td>{@value Tuning#DEFAULT_BUFFER_RING_ENTRIES}</td><td>provided receive buffers per ring (power of two)</td></tr>
 *   <tr><td>spindle.iouring.bufferSize</td><td>spindle.readBufferSize (16384)</td><td>bytes per provided buffer</td></tr>
 *   <tr><td>spindle.iouring.sendChunk</td><td>{@value Tuning#DEFAULT_SEND_CHUNK}</td><td>largest native send buffer; more output goes in the next send</td></tr>
 *   <tr><td>spindle.iouring.sqpoll</td><td>false</td><td>IORING_SETUP_SQPOLL (a kernel thread per ring polls the SQ; burns a core)</td></tr>
 *   <tr><td>spindle.backlog</td><td>{@value Tuning#DEFAULT_BACKLOG}</td><td>listen backlog per listening socket</td></tr>
 * </table>
 *
 * <p>Timeouts (checked every {@value RingWorker#SCAN_MILLIS} ms): idle keep-alive connections
 * close after {@link ServerConfig#idleTimeout()}; a request not complete within
 * {@link ServerConfig#headerTimeout()} gets 408; a send not completing within
 * {@link ServerConfig#writeTimeout()} drops the connection. Beyond
 * {@link ServerConfig#maxConnections()} new connections are answered 503.
 *
 * <p>{@code java -cp <classpath> dev.spindle.iouring.IoUringServer <port> [workers]}:
 * {@code workers} is the number of rings.
 */
public class IoUringServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(IoUringServer.class);
    private static final long START_TIMEOUT_SECONDS = 10;

    private final String name;
    private final ServerConfig config;
    private final Router router;
    private final Tuning tuning;
    private final ExecutorService blockingExecutor;
    private final ConnectionLimit connections;
    private final ServerLifecycle lifecycle;
    private final List<RingWorker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closing;
    private volatile long drainDeadline;
    private volatile InetSocketAddress address;

    public IoUringServer(ServerConfig config, Router router) {
        this(config, router, Tuning.fromSystemProperties(config));
    }

    IoUringServer(ServerConfig config, Router router, Tuning tuning) {
        this.name = getClass().getSimpleName();
        this.config = config;
        this.connections = new ConnectionLimit(config.maxConnections());
        this.router = router;
        this.tuning = tuning;
        this.lifecycle = new ServerLifecycle(name);
        this.blockingExecutor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-blocking-", 0).factory());
    }

    public static void main(String[] args) {
        Launcher.run(IoUringServer.class, args, IoUringServer::new);
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        try {
            IoUring.ensureAvailable();
            openRings();
        } catch (IOException | RuntimeException e) {
            abortStart();
            throw e;
        }
        log.info("{} listening on {} ({} ring{})", name, address, workers.size(), workers.size() == 1 ? "" : "s");
        return this;
    }

    private void openRings() throws IOException {
        InetAddress host = InetAddress.getByName(config.host());
        int port = config.port();
        List<Integer> listeners = new ArrayList<>();
        try {
            for (int i = 0; i < config.workers(); i++) {
                int fd = Sockets.listen(host, port, tuning.backlog());
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
        // From here each listening socket belongs to its worker, which closes it.
        for (int i = 0; i < listeners.size(); i++) {
            RingWorker worker = new RingWorker(this, name + "-ring-" + i, listeners.get(i), tuning);
            workers.add(worker);
            threads.add(Thread.ofPlatform().name(worker.name()).start(worker));
        }
        for (RingWorker worker : workers) {
            try {
                worker.ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                throw cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
            } catch (TimeoutException e) {
                throw new IOException(worker.name() + " did not start within " + START_TIMEOUT_SECONDS + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while starting", e);
            }
        }
    }

    /** Stops whatever rings did start after another failed. */
    private void abortStart() {
        lifecycle.beginClose();
        closing = true;
        drainDeadline = System.nanoTime();
        workers.forEach(RingWorker::wake);
        threads.forEach(this::joinQuietly);
        blockingExecutor.shutdownNow();
        lifecycle.markTerminated();
    }

    @Override
    public InetSocketAddress address() {
        InetSocketAddress bound = address;
        if (bound == null) {
            throw new IllegalStateException(name + " is not started");
        }
        return bound;
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

    /** Connections being served (not counting rejected ones), for tests and monitoring. */
    int connectionCount() {
        return connections.count();
    }

    List<RingWorker> workers() {
        return workers;
    }

    @Override
    public void close() {
        if (!lifecycle.beginClose()) {
            return;
        }
        drainDeadline = System.nanoTime() + config.drainTimeout().toNanos();
        closing = true;
        workers.forEach(RingWorker::wake);
        for (Thread thread : threads) {
            if (thread != Thread.currentThread()) {
                joinQuietly(thread);
            }
        }
        blockingExecutor.shutdownNow();
        log.info("{} closed", name);
        lifecycle.markTerminated();
    }

    private void joinQuietly(Thread thread) {
        try {
            thread.join(config.drainTimeout().toMillis() + 5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    @Override
    public String toString() {
        return name + (address == null ? "" : " on " + address);
    }
}
