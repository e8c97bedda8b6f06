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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

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
    /** What the destination's connections speak, as far as the pool knows: ALPN tells it on the first. */
    private enum Protocol { HTTP_1_1, HTTP_2, UNKNOWN }

    private Protocol protocol;
    /** Connections opened while the protocol was unknown, still negotiating it. */
    private int probing;
    private boolean resolving;
    private boolean dispatching;
    private boolean closed;

    DestinationPool(OutboundLoop loop, Destination destination, ClientSettings settings, LoopPools.PoolLimits limits, ClientTls tls) {
        this.loop = loop;
        this.tls = tls;
        this.destination = destination;
        this.settings = settings;
        this.limits = limits;
        this.protocol = destination.secure() ? (limits.offerHttp2() ? Protocol.UNKNOWN : Protocol.HTTP_1_1)
                : limits.h2cPriorKnowledge() ? Protocol.HTTP_2 : Protocol.HTTP_1_1;
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
        PooledConnection c = takeIdle(x.previous);
        if (c == null && protocol == Protocol.HTTP_2) {
            // streams on a connection open (or opening) before another connection
            c = leastBusy(x.previous);
        }
        if (c != null) {
            sendOn(c, x, true);
            return true;
        }
        if (protocol == Protocol.UNKNOWN && probing > 0) {
            // the first connection's handshake tells whether one connection carries them all
            return false;
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
            c = leastBusy(x.previous);
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
            watchDeadline(x);
        }
    }

    /** A request with a total timeout leaves the queue when it is due (a connection's own clock bounds it once it is sent). */
    private void watchDeadline(PooledExchange x) {
        if (!x.request.hasDeadline() || x.watched) {
            return;
        }
        x.watched = true;
        long delay = Math.max(0, x.request.deadline() - System.nanoTime());
        CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> {
            try {
                loop.execute(() -> {
                    if (waiting.remove(x)) {
                        x.result.completeExceptionally(failure(x, Reason.TOTAL_TIMEOUT, x.request.totalTimeoutDetail(), null));
                        publish();
                    }
                });
            } catch (RejectedExecutionException stopped) {
                // the loop has stopped: nothing waits on it any more
            }
        });
    }

    /** The most recently used idle connection other than {@code avoid}. */
    private PooledConnection takeIdle(PooledConnection avoid) {
        PooledConnection skipped = null;
        PooledConnection found = null;
        for (PooledConnection c; found == null && (c = idle.pollFirst()) != null; ) {
            leftIdle(c);
            if (c == avoid) {
                skipped = c;
            } else if (c.core.isIdle()) {
                found = c;
            }
        }
        if (skipped != null && skipped.core.isIdle()) {
            skipped.inIdle = true;
            idleCount++;
            idle.push(skipped);
        }
        return found;
    }

    private PooledConnection leastBusy(PooledConnection avoid) {
        PooledConnection best = null;
        for (PooledConnection c : connections) {
            int pending = c.core.pending();
            if (c != avoid && c.core.isReusable() && pending < c.core.capacity() && (best == null || pending < best.core.pending())) {
                best = c;
            }
        }
        return best;
    }

    private void open(InetSocketAddress address, PooledExchange x) {
        PooledConnection c;
        if (destination.secure() && limits.offerHttp2()) {
            PooledConnection[] self = new PooledConnection[1];
            NegotiatedConnection core = new NegotiatedConnection(destination.authority(), settings, protocol == Protocol.HTTP_2,
                    h2 -> learned(self[0], h2));
            c = self[0] = new PooledConnection(core, destination.wire(core, tls, true, settings.connectTimeout()), this);
            c.probing = protocol == Protocol.UNKNOWN;
            probing += c.probing ? 1 : 0;
        } else if (protocol == Protocol.HTTP_2) {
            Http2ClientConnection core = new Http2ClientConnection(destination.authority(), destination.secure(), settings, System::nanoTime);
            c = new PooledConnection(core, destination.wire(core, tls, true, settings.connectTimeout()), this);
        } else {
            ClientConnection core = new ClientConnection(destination.authority(), settings);
            c = new PooledConnection(core, destination.wire(core, tls, settings.connectTimeout()), this);
        }
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
        x.previous = c;
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
                watchDeadline(x);
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
        while (!waiting.isEmpty() && c.core.isReusable() && c.core.pending() < c.core.capacity()) {
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

    /** A connection's handshake said which protocol the destination speaks: the requests waiting for it go out. */
    private void learned(PooledConnection c, boolean http2) {
        if (c.probing) {
            c.probing = false;
            probing--;
        }
        protocol = http2 ? Protocol.HTTP_2 : Protocol.HTTP_1_1;
        // on the next turn of the loop: the connection is within its handshake's callback now
        loop.execute(this::dispatchWaiting);
    }

    void dropped(PooledConnection c) {
        if (c.probing) {
            c.probing = false;
            probing--;
        }
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
