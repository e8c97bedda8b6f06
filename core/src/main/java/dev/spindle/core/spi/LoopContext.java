// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.concurrent.Executor;

/**
 * What a loop of an {@link EventLoopServer} may use of its server: settings, routes, the executor
 * for blocking work, the connection count and the shutdown signal. Loops get this, not the server.
 */
public interface LoopContext {
    /**
     * The server's name, for thread names and logs.
     *
     * @return the name the server was created with
     */
    String name();

    /**
     * The server's settings.
     *
     * @return the configuration the server was created with; never null
     */
    ServerConfig config();

    /**
     * The routes every connection of the server dispatches to.
     *
     * @return the server's router; never null
     */
    Router router();

    /**
     * Where blocking handlers and blocking body sources run (virtual threads).
     *
     * @return the server's executor, one virtual thread per task; it rejects tasks once the server
     *         has stopped
     */
    Executor blockingExecutor();

    /**
     * Counts a new connection against {@link ServerConfig#maxConnections()}; false when full (serve it {@link Connection#rejecting}).
     * Callable from any loop thread.
     *
     * @return true if the connection was counted (then {@link #releaseConnection()} once it is
     *         closed), false if the server is full
     */
    boolean tryAcquireConnection();

    /**
     * Uncounts a connection that {@link #tryAcquireConnection()} admitted, once its socket is closed;
     * exactly once per admitted connection, never for a rejected one.
     */
    void releaseConnection();

    /**
     * True once {@code close()} began: stop accepting, close idle connections, finish the rest.
     *
     * @return whether the server is closing; once true it stays true
     */
    boolean isClosing();

    /**
     * When a closing server gives up on busy connections ({@code System.nanoTime()}); valid once {@link #isClosing()}.
     *
     * @return the deadline in {@link System#nanoTime()} units, after which a loop closes the
     *         connections it still has; meaningless before {@link #isClosing()} is true
     */
    long drainDeadline();

    /**
     * A new core connection for an accepted socket, woken through {@code wakeup}. Its blocking
     * handlers run on {@link #blockingExecutor()}.
     *
     * @param wakeup run from any thread when the connection has work for its loop, which then calls
     *        {@link Connection#resume()} on the loop thread
     * @return a new connection serving {@link #router()} with {@link #config()}
     */
    default Connection newConnection(Runnable wakeup) {
        return Connection.open(router(), config(), blockingExecutor(), wakeup, bodyBudget());
    }

    /**
     * The server's budget for buffered request bodies, one per server instance and shared by all
     * of its loops: what {@link #newConnection} gives every connection.
     *
     * @return the budget; the default, for contexts that do not bound it, is null (none)
     */
    default BodyBudget bodyBudget() {
        return null;
    }

    /**
     * The connection for a socket beyond {@link ServerConfig#maxConnections()}: 503, then a close.
     * It is not counted, so it needs no {@link #releaseConnection()}.
     *
     * @return a new connection whose output already holds the 503 response
     */
    default Connection rejectedConnection() {
        return Connection.rejecting(config(), 503, "too many connections");
    }
}
