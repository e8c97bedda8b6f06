// SPDX-License-Identifier: Apache-2.0
package dev.spindle.blocking;

import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.ConnectionLimit;
import dev.spindle.core.spi.FailureLog;
import dev.spindle.core.spi.ServerLifecycle;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking engine: one thread accepts, and each connection runs a blocking
 * read → {@link Connection} → write loop on whatever thread the {@link Dispatch} gives it. The
 * four blocking servers are this engine with a different dispatch. Inline and asynchronous handlers
 * run on the connection's thread (no blocking executor), a blocking one on a virtual thread of its
 * own while the connection's thread waits for it; the core keeps the connection's time, the handler
 * timeout included, so a stuck handler holds neither its connection nor the drain past it. A socket
 * beyond {@link ServerConfig#maxConnections()}, or one no worker can take, is answered by
 * {@link Connection#rejecting} through the same loop on a virtual thread.
 *
 * <p>Closing drops no connection the kernel has completed: before the listening socket closes
 * (which would reset its queue), {@link #close()} takes what is queued on it, and the acceptor
 * admits those under the drain, as the event loops accept their queue before closing it.
 */
public class BlockingServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(BlockingServer.class);
    private static final long WATCHDOG_MILLIS = 250;
    /** How long {@link #close()} tries to connect to its own port to wake an acceptor blocked in accept(). */
    private static final int WAKE_CONNECT_MILLIS = 200;

    private final String name;
    private final ServerConfig config;
    private final Router router;
    private final Dispatch dispatch;
    /** Every running loop, rejected sockets' too, so a close can end them all. */
    private final Set<ConnectionLoop> connections = ConcurrentHashMap.newKeySet();
    private final ConnectionLimit limit;
    /** What this server's connections together may hold in buffered request bodies. */
    private final BodyBudget bodyBudget;
    private final ServerLifecycle lifecycle;
    /** Failures of its connections, each kind logged once per window with a count (summed up by the watchdog). */
    private final FailureLog failures = new FailureLog(LoggerFactory.getLogger(ConnectionLoop.class));
    private volatile ServerSocket serverSocket;
    private Thread acceptor;
    /** The acceptor has left its loop: it admits no more sockets. */
    private volatile boolean acceptorDone;
    /** Held by the acceptor while it waits in accept(), and by {@link #close()} while it empties the accept queue. */
    private final ReentrantLock accepting = new ReentrantLock();
    /** What {@link #close()} took off the listening socket's queue, for the acceptor to admit under the drain. */
    private final Queue<Socket> queuedAtClose = new ConcurrentLinkedQueue<>();
    /** Counted down once {@link #close()} has emptied the accept queue into {@link #queuedAtClose}. */
    private final CountDownLatch queueTaken = new CountDownLatch(1);
    private Thread watchdog;

    BlockingServer(String name, ServerConfig config, Router router, Dispatch dispatch) {
        this.name = name;
        this.config = config;
        this.router = router;
        this.dispatch = dispatch;
        this.lifecycle = new ServerLifecycle(name, config, router);
        this.limit = new ConnectionLimit(config.maxConnections());
        this.bodyBudget = BodyBudget.of(config);
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        ServerSocket socket = new ServerSocket();
        try {
            socket.setReuseAddress(true);
            if (config.reusePort()) {
                socket.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            socket.bind(new InetSocketAddress(InetAddress.getByName(config.host()), config.port()), config.backlog());
        } catch (IOException | RuntimeException e) {
            // a start that failed is over: close() and awaitTermination() return at once
            socket.close();
            dispatch.shutdown(Duration.ZERO);
            lifecycle.beginClose();
            lifecycle.markTerminated();
            throw e;
        }
        serverSocket = socket;
        acceptor = Thread.ofPlatform().name(name + "-acceptor").start(this::acceptLoop);
        watchdog = Thread.ofPlatform().daemon().name(name + "-watchdog").start(this::watch);
        log.info("{} listening on {}{}", name, socket.getLocalSocketAddress(), config.tls() != null ? " (TLS)" : "");
        lifecycle.started(this, config.shutdownHook());
        return this;
    }

    @Override
    public InetSocketAddress address() {
        ServerSocket socket = serverSocket;
        if (socket == null) {
            throw new IllegalStateException(name + " is not started");
        }
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    ServerConfig config() {
        return config;
    }

    Router router() {
        return router;
    }

    BodyBudget bodyBudget() {
        return bodyBudget;
    }

    Dispatch dispatch() {
        return dispatch;
    }

    boolean isClosing() {
        return lifecycle.isClosing();
    }

    private void acceptLoop() {
        try {
            Socket socket;
            while ((socket = next()) != null) {
                admitOrDrop(socket);
            }
            // what was queued when the close began, taken off the listening socket by close()
            awaitQueueTaken();
            while ((socket = queuedAtClose.poll()) != null) {
                admitOrDrop(socket);
            }
        } finally {
            acceptorDone = true;
        }
    }

    /**
     * Waits for the next connection; null once the server is closing (then {@link #close()} takes
     * what is queued). The accept blocks without a timeout, so it costs one system call per
     * connection: {@link #close()} wakes it by connecting to the port.
     */
    private Socket next() {
        while (true) {
            accepting.lock();
            try {
                if (lifecycle.isClosing()) {
                    return null;
                }
                Socket socket = serverSocket.accept();
                if (lifecycle.isClosing()) {
                    // woken by close() (this may be its wake-up connection, which just ends): served under the drain
                    queuedAtClose.add(socket);
                    return null;
                }
                return socket;
            } catch (IOException e) {
                if (lifecycle.isClosing()) {
                    return null;
                }
                log.warn("{} accept failed: {}", name, e.toString());
            } finally {
                accepting.unlock();
            }
            pause();
        }
    }

    private void awaitQueueTaken() {
        try {
            queueTaken.await(config.drainTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void admitOrDrop(Socket socket) {
        try {
            admit(socket);
        } catch (Throwable t) {
            // building or starting its connection failed (an OutOfMemoryError under a flood, no thread to be had):
            // that socket is dropped and the acceptor goes on, or the port would stop answering for good
            closeQuietly(socket);
            failures.error("accepting a connection failed; closing it", socket.getRemoteSocketAddress(), t);
            if (FailureLog.isFatal(t)) {
                throw t;
            }
            pause();
        }
    }

    /** Serves an accepted socket, or has the core refuse it; a failure leaves no slot or loop behind. */
    private void admit(Socket socket) {
        if (!limit.tryAcquire()) {
            reject(socket, "too many connections");
            return;
        }
        ConnectionLoop loop;
        try {
            loop = ConnectionLoop.serving(this, socket);
        } catch (Throwable t) {
            limit.release();
            throw t;
        }
        connections.add(loop);
        boolean started = false;
        try {
            started = dispatch.execute(loop);
        } finally {
            if (!started) {
                finished(loop);
            }
        }
        if (!started) {
            reject(socket, "all workers are busy");
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            log.trace("close failed: {}", e.toString());
        }
    }

    /** Backs off after an accept failure (e.g. out of file descriptors) instead of spinning. */
    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The core answers 503 through the same loop, on a virtual thread so the acceptor never blocks on a client. */
    private void reject(Socket socket, String message) {
        ConnectionLoop loop = ConnectionLoop.rejecting(this, socket, 503, message);
        connections.add(loop);
        try {
            Thread.ofVirtual().name(name + "-rejected").start(loop);
        } catch (Throwable t) {
            connections.remove(loop);
            throw t;
        }
    }

    /**
     * A parked connection whose next request found the pool full: its slot is released and the core
     * answers 503 on a new loop that takes over the socket, as for a new connection.
     */
    void refuseParked(ConnectionLoop loop, Socket socket) {
        finished(loop);
        reject(socket, "all workers are busy");
    }

    void finished(ConnectionLoop loop) {
        if (connections.remove(loop) && loop.counted()) {
            limit.release();
        }
    }

    /**
     * Connections being served (not counting rejected ones), for tests and monitoring.
     *
     * @return the number of open, counted connections
     */
    public int connectionCount() {
        return limit.count();
    }

    FailureLog failures() {
        return failures;
    }

    /**
     * Enforces write timeouts, and has the deadlines of untimed reads ticked. (A pool's idle
     * keep-alive connections give their threads back by themselves: see {@link Dispatch#parksIdle()}.)
     * The core keeps every other deadline, ticked by each connection's own thread; but a
     * thread blocked in a write cannot tick, and the write cannot be interrupted, so only closing
     * its socket from here ends it. The thread of a duplex connection, or of an idle one on a virtual
     * thread, reads with no timeout, so its ticks start here, on another thread
     * ({@link ConnectionLoop#tickIfDue}).
     */
    private void watch() {
        while (!lifecycle.isClosing() || !acceptorStopped() || !connections.isEmpty()) {
            long now = System.nanoTime();
            for (ConnectionLoop loop : connections) {
                loop.enforceWriteDeadline(now);
                loop.tickIfDue(now);
            }
            failures.flush();
            try {
                Thread.sleep(WATCHDOG_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        if (!lifecycle.beginClose()) {
            return;
        }
        long start = System.nanoTime();
        long deadline = start + config.drainTimeout().toNanos();
        // at once, from here: a handler running inline now must answer with a close too (a loop
        // accepted from now on drains itself as it starts)
        connections.forEach(ConnectionLoop::beginDrain);
        takeQueueThenCloseListener(deadline);
        // Idle connections get the core's drain grace for one more request (answered with a close)
        // before a blocked read is ended by closing its socket: at once, that races with a client's next request.
        long graceEnd = start + Math.min(TimeUnit.MILLISECONDS.toNanos(Connection.DRAIN_IDLE_GRACE_MILLIS),
                config.drainTimeout().toNanos() / 2);
        // a socket accepted just as the close began, or taken off the queue, drains as it starts (ConnectionLoop)
        boolean drained = ServerLifecycle.drain(() -> acceptorStopped() && connections.isEmpty(), () -> {
            if (System.nanoTime() - graceEnd >= 0) {
                connections.forEach(ConnectionLoop::closeIfIdle);
            }
        }, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        if (!drained) {
            log.warn("{}: {} connections still busy, {} not yet served, after the drain timeout; closing them", name,
                    connections.size(), queuedAtClose.size());
            connections.forEach(ConnectionLoop::closeNow);
            for (Socket socket; (socket = queuedAtClose.poll()) != null; ) {
                closeQuietly(socket);
            }
        }
        dispatch.shutdown(config.drainTimeout());
        if (Thread.currentThread() != acceptor) {
            try {
                acceptor.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        watchdog.interrupt();
        log.info("{} closed", name);
        lifecycle.markTerminated();
    }

    /**
     * Takes every connection queued on the listening socket (at most a backlog's worth, until
     * {@code deadline}) into {@link #queuedAtClose}, then closes the socket. It first makes the
     * acceptor leave accept() by connecting to the port (a blocked accept wakes for a connection or
     * for the close of the socket, which would reset the queue; one serving inline is not in it);
     * then it accepts with a timeout of a millisecond, which an empty queue runs out.
     */
    private void takeQueueThenCloseListener(long deadline) {
        boolean locked = false;
        Socket wake = wakeAcceptor();
        try {
            locked = accepting.tryLock(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (locked) {
                serverSocket.setSoTimeout(1);
                for (int i = 0; i < config.backlog() && System.nanoTime() - deadline < 0; i++) {
                    queuedAtClose.add(serverSocket.accept());
                }
            }
        } catch (SocketTimeoutException e) {
            // nothing more queued
        } catch (IOException e) {
            log.debug("{}: emptying the accept queue: {}", name, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (wake != null) {
                // the wake-up connection sent nothing: its loop reads the end of input and closes
                closeQuietly(wake);
            }
            try {
                serverSocket.close();
            } catch (IOException e) {
                log.debug("closing listening socket: {}", e.toString());
            }
            queueTaken.countDown();
            if (locked) {
                accepting.unlock();
            }
        }
    }

    /** A connection to this server's own port, which an acceptor blocked in accept() returns for; null if it failed. */
    private Socket wakeAcceptor() {
        InetSocketAddress bound = (InetSocketAddress) serverSocket.getLocalSocketAddress();
        InetAddress host = bound.getAddress().isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : bound.getAddress();
        Socket wake = new Socket();
        try {
            wake.connect(new InetSocketAddress(host, bound.getPort()), WAKE_CONNECT_MILLIS);
            return wake;
        } catch (IOException e) {
            // a full backlog: the acceptor has connections to return for anyway
            log.debug("{}: connecting to wake the acceptor: {}", name, e.toString());
            closeQuietly(wake);
            return null;
        }
    }

    /**
     * Whether no socket can be admitted any more: the acceptor left its loop, or it is the thread
     * asking (a handler of the single-thread server closing it). Read before {@link #connections},
     * which the acceptor fills before it leaves.
     */
    private boolean acceptorStopped() {
        return acceptorDone || Thread.currentThread() == acceptor;
    }

    @Override
    public void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    @Override
    public String toString() {
        return name + (serverSocket == null ? "" : " on " + serverSocket.getLocalSocketAddress());
    }

}
