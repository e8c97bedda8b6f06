package dev.spindle.core;

import java.util.concurrent.Executor;

/**
 * What a loop of an {@link EventLoopServer} may use of its server: settings, routes, the executor
 * for blocking work, the connection count and the shutdown signal. Loops get this, not the server.
 */
public interface LoopContext {
    /** The server's name, for thread names and logs. */
    String name();

    ServerConfig config();

    Router router();

    /** Where blocking handlers and blocking body sources run (virtual threads). */
    Executor blockingExecutor();

    /** Counts a new connection against {@link ServerConfig#maxConnections()}; false when full (serve it {@link Connection#rejecting}). */
    boolean tryAcquireConnection();

    void releaseConnection();

    /** True once {@code close()} began: stop accepting, close idle connections, finish the rest. */
    boolean isClosing();

    /** When a closing server gives up on busy connections ({@code System.nanoTime()}); valid once {@link #isClosing()}. */
    long drainDeadline();

    /** A new core connection for an accepted socket, woken through {@code wakeup}. */
    default Connection newConnection(Runnable wakeup) {
        return new Connection(router(), config(), blockingExecutor(), wakeup);
    }

    /** The connection for a socket beyond {@link ServerConfig#maxConnections()}: 503, then a close. */
    default Connection rejectedConnection() {
        return Connection.rejecting(config(), 503, "too many connections");
    }
}
