// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.OutboundLoop;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The connections of one client to one destination on one event loop, used on that loop's thread
 * only. Idle keep-alive connections are reused most recent first (the warmest, and the others may
 * idle out); a request finding none opens a connection while fewer than the limit are open or
 * opening, else waits in a bounded queue for the first connection to free up. A request that a
 * connection ended without sending ({@link Reason#NOT_SENT}) is sent once more, on another; so is
 * an idempotent one whose reused keep-alive connection closed before answering it (the server
 * closed it as the request went out), as the blocking path does. Never one whose streamed body was
 * taken, and never after a timeout.
 */
final class DestinationPool {
    private final OutboundLoop loop;
    private final Destination destination;
    private final ClientSettings settings;
    private final LoopPools.PoolLimits limits;
    private final ClientTls tls;
    /** Open or opening; a connection leaves when the loop reports it closed. */
    private final ArrayList<PooledConnection> connections = new ArrayList<>();
    /** Idle connections, the most recently used first. */
    private final ArrayDeque<PooledConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<PooledExchange> waiting = new ArrayDeque<>();
    /** How many connections are on {@link #idle} and flagged so ({@link PooledConnection#inIdle}). */
    private int idleCount;
    /** What {@link #publish()} last saw, for readers on other threads (metrics). */
    private volatile int openNow, idleNow, waitingNow;
    private boolean resolving;
    private boolean dispatching;
    private boolean closed;

    DestinationPool(OutboundLoop loop, Destination destination, ClientSettings settings, LoopPools.PoolLimits limits, ClientTls tls) {
        this.loop = loop;
        this.tls = tls;
        this.destination = destination;
        this.settings = settings;
        this.limits = limits;
    }

    void submit(PooledExchange x) {
        if (!dispatch(x)) {
            enqueue(x);
        }
        publish();
    }

    /** Makes the counts readable from other threads: after each call that may change them. */
    private void publish() {
        openNow = connections.size();
        idleNow = idleCount;
        waitingNow = waiting.size();
    }

    /** {@return connections open or opening, idle ones among them, and requests waiting; from any thread} */
    int[] counts() {
        return new int[] {openNow, idleNow, waitingNow};
    }

    private void leftIdle(PooledConnection c) {
        if (c.inIdle) {
            c.inIdle = false;
            idleCount--;
        }
    }

    int connectionCount() {
        return connections.size();
    }

    /** Sends {@code x} on a connection if one can take it now; false if it must wait. */
    private boolean dispatch(PooledExchange x) {
        PooledConnection c = takeIdle();
        if (c != null) {
            sendOn(c, x, true);
            return true;
        }
        if (connections.size() < limits.maxConnections()) {
            InetSocketAddress address = destination.connectsTo().addressNow();
            if (address == null) {
                awaitAddress();
                return false;
            }
            open(address, x);
            return true;
        }
        if (settings.maxPipelined() > 1) {
            c = leastBusy();
            if (c != null) {
                sendOn(c, x, true);
                return true;
            }
        }
        return false;
    }

    private void enqueue(PooledExchange x) {
        if (closed) {
            x.result.completeExceptionally(failure(x, Reason.NOT_SENT, "not sent: the client is closed", null));
        } else if (waiting.size() >= limits.maxWaiting()) {
            x.result.completeExceptionally(failure(x, Reason.POOL_FULL, "not sent: all " + limits.maxConnections()
                    + " connections of this loop to the destination are busy and " + waiting.size()
                    + " requests wait for one already (the limit)", null));
        } else {
            waiting.add(x);
        }
    }

    private PooledConnection takeIdle() {
        for (PooledConnection c; (c = idle.pollFirst()) != null; ) {
            leftIdle(c);
            if (c.core.isIdle()) {
                return c;
            }
        }
        return null;
    }

    private PooledConnection leastBusy() {
        PooledConnection best = null;
        for (PooledConnection c : connections) {
            int pending = c.core.pending();
            if (c.core.isReusable() && pending < settings.maxPipelined() && (best == null || pending < best.core.pending())) {
                best = c;
            }
        }
        return best;
    }

    private void open(InetSocketAddress address, PooledExchange x) {
        ClientConnection core = new ClientConnection(destination.authority(), settings);
        PooledConnection c = new PooledConnection(core, destination.wire(core, tls, settings.connectTimeout()), this);
        connections.add(c);
        // queued before the connect, which may complete (or fail) within the call
        sendOn(c, x, false);
        loop.connect(address, c);
    }

    /** The loop acts on what the connection answers next (bytes to write) once resumed. */
    private void sendOn(PooledConnection c, PooledExchange x, boolean resume) {
        // a pipelining connection may be sent on while it waits on the idle stack
        leftIdle(c);
        x.connection = c;
        x.reused = resume;
        c.core.send(x.request, x);
        if (resume) {
            loop.resume(c);
        }
    }

    /** A connection answered or failed {@code x}: its connection goes to the next waiting request, then {@code x} completes. */
    void settled(PooledExchange x, ClientResponse response, Throwable failure) {
        PooledConnection c = x.connection;
        x.connection = null;
        if (c != null) {
            reuse(c);
        }
        if (response != null) {
            x.result.complete(response);
        } else if (!x.retried && !closed && x.request.resendable() && failure instanceof ClientException e
                && (e.reason() == Reason.NOT_SENT || (x.reused && x.request.isIdempotent()
                        && (e.reason() == Reason.CONNECTION_CLOSED || e.reason() == Reason.NOT_ANSWERED)))) {
            x.retried = true;
            if (!dispatch(x)) {
                // it was first in line once
                waiting.addFirst(x);
            }
        } else {
            x.result.completeExceptionally(failure);
        }
        publish();
    }

    private void reuse(PooledConnection c) {
        if (closed) {
            return;
        }
        while (!waiting.isEmpty() && c.core.isReusable() && c.core.pending() < settings.maxPipelined()) {
            sendOn(c, waiting.poll(), true);
        }
        if (c.core.isIdle() && !c.inIdle) {
            c.inIdle = true;
            idleCount++;
            idle.push(c);
        }
    }

    /** A streamed body's reader made room or gave up (any thread): the loop resumes the connection. */
    void wake(PooledConnection c) {
        loop.resume(c);
    }

    /** A streamed body was read to its end: the connection takes the next request. */
    void streamEnded(PooledConnection c) {
        reuse(c);
        publish();
    }

    void dropped(PooledConnection c) {
        connections.remove(c);
        leftIdle(c);
        publish();
    }

    /** Hands waiting requests to connections while some can take them (one closed, or the address is known). */
    void dispatchWaiting() {
        if (dispatching) {
            // a connect failing within dispatch: the outer loop goes on
            return;
        }
        dispatching = true;
        try {
            while (!closed && !waiting.isEmpty()) {
                PooledExchange x = waiting.poll();
                if (!dispatch(x)) {
                    waiting.addFirst(x);
                    break;
                }
            }
        } finally {
            dispatching = false;
        }
        publish();
    }

    private void awaitAddress() {
        if (resolving) {
            return;
        }
        resolving = true;
        destination.connectsTo().resolve().whenComplete((address, error) -> {
            try {
                loop.execute(() -> {
                    resolving = false;
                    if (error != null) {
                        failWaiting(Reason.CONNECT_FAILED, "could not connect: cannot resolve " + destination.connectsTo().authority()
                                + " (" + error.getMessage() + ")", error);
                    } else {
                        dispatchWaiting();
                    }
                });
            } catch (RejectedExecutionException stopped) {
                // the loop has stopped: nothing waits on it any more
            }
        });
    }

    private void failWaiting(Reason reason, String detail, Throwable cause) {
        List<PooledExchange> failed = new ArrayList<>(waiting);
        waiting.clear();
        publish();
        for (PooledExchange x : failed) {
            x.result.completeExceptionally(failure(x, reason, detail, cause));
        }
    }

    /** Waiting requests fail; idle connections close now, busy ones once their requests are answered. */
    void close() {
        closed = true;
        failWaiting(Reason.NOT_SENT, "not sent: the client is closed", null);
        for (PooledConnection c : new ArrayList<>(connections)) {
            c.core.closeAfterResponse();
            loop.resume(c);
        }
        for (PooledConnection c : idle) {
            c.inIdle = false;
        }
        idle.clear();
        idleCount = 0;
        publish();
    }

    private ClientException failure(PooledExchange x, Reason reason, String detail, Throwable cause) {
        return new ClientException(reason, destination.authority(), x.request.describe(), detail, cause);
    }
}
