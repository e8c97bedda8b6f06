// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * What a strategy's event loop offers for outbound sockets: it opens them and drives an
 * {@link OutboundConnection} on each exactly as it drives an accepted connection, on its own thread,
 * so that a handler calling another service never leaves the loop it runs on. A loop is found
 * through {@link OutboundLoops#current()} on its own thread, and reached from other threads through
 * {@link #execute}.
 *
 * <p>Outbound sockets do not count against {@link dev.spindle.core.ServerConfig#maxConnections()}
 * and are not among the server's accepted connections; a graceful close does not wait for them
 * beyond the accepted connections it drains, and they are closed when the loop terminates.
 */
public interface OutboundLoop extends Executor {
    /**
     * Opens a non-blocking socket with {@code TCP_NODELAY} to {@code remote} and drives
     * {@code connection} on it: once connected (within this call if the connect completes at once,
     * as it may on loopback), {@link OutboundConnection#connected()} and then the same reads,
     * writes, ticks and close as for an accepted connection; if the connect fails,
     * {@link OutboundConnection#connectFailed} (at once, within this call, or later) and then
     * {@link Connection#closed()}. The connection is ticked when its {@link Connection#nanosToTick}
     * says (a client's timeouts may be shorter than the loop's period for accepted connections);
     * until it is connected it is only ticked, so it times the connect out by answering
     * {@link Next#CLOSE}. The loop never resolves names, which would block it: an unresolved
     * {@code remote} fails with an {@link java.net.UnknownHostException}. A connect once the loop
     * has stopped fails with an {@link java.io.IOException}.
     *
     * @param remote the address to connect to, already resolved
     * @param connection the connection to drive on the new socket, driven by no loop yet; its
     *        wakeup must call {@link #resume(OutboundConnection)}
     * @throws IllegalStateException if not called on this loop's thread ({@link #inLoop()})
     * @throws IllegalArgumentException if this loop drives {@code connection} already
     */
    void connect(InetSocketAddress remote, OutboundConnection connection);

    /**
     * The wakeup of a connection this loop drives, callable from any thread: the loop calls the
     * connection's {@link Connection#resume()} on its own thread soon and acts on the answer, as it
     * does when an accepted connection's wakeup runs. {@link #connect} cannot hand a connection its
     * wakeup (the connection exists before), so whoever makes the connection gives it one that
     * calls this. Ignored for a connection the loop does not drive (any more) and once the loop has
     * stopped; before the connection is connected only a {@link Next#CLOSE} answer is acted on.
     *
     * @param connection a connection passed to {@link #connect} on this loop, compared by identity
     */
    void resume(OutboundConnection connection);

    /**
     * Whether the calling thread is this loop's thread, the only one on which {@link #connect} and
     * the connections it drives may be called.
     *
     * @return true on this loop's thread
     */
    boolean inLoop();

    /**
     * Runs {@code task} on this loop's thread soon, after what the loop is doing now; callable from
     * any thread, the loop's own included (then the task runs later, never within this call).
     * Tasks run in the order they were given. A task that throws is logged and the loop goes on.
     *
     * @param task what to run on the loop thread
     * @throws RejectedExecutionException if the loop has stopped; a task accepted before it stopped
     *         still runs
     */
    @Override
    void execute(Runnable task);
}
