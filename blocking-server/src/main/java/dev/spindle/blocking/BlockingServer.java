package dev.spindle.blocking;

import dev.spindle.core.Connection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.ServerLifecycle;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking engine: one thread accepts, and each connection runs a blocking
 * read → {@link Connection} → write loop on whatever thread the {@link Dispatch} gives it. The
 * four blocking servers are this engine with a different dispatch.
 */
public class BlockingServer implements HttpServer {
    private static final Logger log = LoggerFactory.getLogger(BlockingServer.class);
    private static final byte[] TOO_MANY_CONNECTIONS = Connection.rejection(503, "too many connections");
    private static final byte[] NO_WORKER = Connection.rejection(503, "all workers are busy");
    private static final long WATCHDOG_MILLIS = 250;

    private final String name;
    private final ServerConfig config;
    private final Router router;
    private final Dispatch dispatch;
    private final Set<ConnectionLoop> connections = ConcurrentHashMap.newKeySet();
    private final ServerLifecycle lifecycle;
    private volatile ServerSocket serverSocket;
    private Thread acceptor;
    private Thread watchdog;

    BlockingServer(String name, ServerConfig config, Router router, Dispatch dispatch) {
        this.name = name;
        this.config = config;
        this.router = router;
        this.dispatch = dispatch;
        this.lifecycle = new ServerLifecycle(name);
    }

    @Override
    public HttpServer start() throws IOException {
        lifecycle.markStarted();
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(InetAddress.getByName(config.host()), config.port()), 1024);
        serverSocket = socket;
        acceptor = Thread.ofPlatform().name(name + "-acceptor").start(this::acceptLoop);
        watchdog = Thread.ofPlatform().daemon().name(name + "-watchdog").start(this::watch);
        log.info("{} listening on {}", name, socket.getLocalSocketAddress());
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

    Dispatch dispatch() {
        return dispatch;
    }

    boolean isClosing() {
        return lifecycle.isClosing();
    }

    private void acceptLoop() {
        while (!lifecycle.isClosing()) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (lifecycle.isClosing()) {
                    break;
                }
                log.warn("{} accept failed: {}", name, e.toString());
                pause();
                continue;
            }
            if (connections.size() >= config.maxConnections()) {
                reject(socket, TOO_MANY_CONNECTIONS);
                continue;
            }
            ConnectionLoop loop = new ConnectionLoop(this, socket);
            connections.add(loop);
            if (!dispatch.execute(loop)) {
                connections.remove(loop);
                reject(socket, NO_WORKER);
            }
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

    /** Answers 503 on a virtual thread so the acceptor never blocks on a client. */
    private static void reject(Socket socket, byte[] response) {
        Thread.ofVirtual().start(() -> {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                socket.setSoTimeout(1000);
                out.write(response);
                socket.shutdownOutput();
                byte[] sink = new byte[4096];
                while (in.read(sink) >= 0) {
                    // drain until the peer closes, so the 503 is not lost to a reset
                }
            } catch (IOException e) {
                log.trace("rejected connection ended: {}", e.toString());
            }
        });
    }

    void finished(ConnectionLoop loop) {
        connections.remove(loop);
    }

    /** Enforces write timeouts, and frees threads held by idle keep-alive connections when others wait. */
    private void watch() {
        while (!lifecycle.isClosing() || !connections.isEmpty()) {
            long now = System.nanoTime();
            boolean saturated = dispatch.saturated();
            for (ConnectionLoop loop : connections) {
                loop.enforceWriteDeadline(now);
                if (saturated) {
                    loop.closeIfIdle();
                }
            }
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
        try {
            serverSocket.close();
        } catch (IOException e) {
            log.debug("closing listening socket: {}", e.toString());
        }
        boolean drained = ServerLifecycle.drain(connections::isEmpty,
                () -> connections.forEach(ConnectionLoop::closeIfIdle), config.drainTimeout());
        if (!drained) {
            log.warn("{}: {} connections still busy after the drain timeout; closing them", name, connections.size());
            connections.forEach(ConnectionLoop::closeNow);
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

    @Override
    public void awaitTermination() throws InterruptedException {
        lifecycle.awaitTermination();
    }

    @Override
    public String toString() {
        return name + (serverSocket == null ? "" : " on " + serverSocket.getLocalSocketAddress());
    }

}
