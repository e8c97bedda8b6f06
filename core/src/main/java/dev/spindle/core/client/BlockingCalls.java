// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client's requests made off any event loop: each runs on the caller's thread over a blocking
 * socket ({@link BlockingConnection}), and keep-alive connections wait between requests in a small
 * idle pool per destination shared by every thread (lock-free deques). A destination has at most
 * {@code maxConnections} HTTP/1.1 connections in use across all threads (so idle ones, taken only
 * when free, never make more); callers past them wait their turn, first come first served, at most
 * {@code maxWaiting} of them (one more fails {@link Reason#POOL_FULL}), each no longer than its total
 * timeout. Without the bound a burst of calls to a slow TLS downstream opened a connection and ran
 * a handshake per call, each holding its buffers, until the heap ran out. A request that fails on
 * a reused connection because the server had closed it meanwhile (not sent, or an idempotent one
 * whose connection closed unanswered) is sent once more, on a new connection.
 */
public final class BlockingCalls {
    private final ClientSettings settings;
    private final int maxConnections;
    private final int maxWaiting;
    private final ClientTls tls;
    /** Each destination called so far, with its turns. */
    private final ConcurrentHashMap<Destination, Turns> used = new ConcurrentHashMap<>();
    /** HTTP/2 for {@code https:} destinations (by ALPN) and for {@code http:} ones (prior knowledge), or null. */
    private final BlockingHttp2 http2;
    private final boolean offerHttp2;
    private final boolean h2cPriorKnowledge;
    private volatile boolean closed;

    /** A destination's HTTP/1.1 connections in use, as permits, and the callers waiting for one. */
    private static final class Turns {
        final Semaphore inUse;
        final AtomicInteger waiting = new AtomicInteger();

        Turns(int maxConnections) {
            inUse = new Semaphore(maxConnections, true);
        }
    }

    /**
     * The blocking calls of one client, speaking HTTP/2 where told: calls to a destination that
     * speaks it share its connections ({@link BlockingHttp2}), at most {@code maxConnections} of them.
     *
     * @param settings the settings of every connection
     * @param maxConnections how many HTTP/1.1 connections to one destination are in use at once (and
     *        kept idle), and how many HTTP/2 ones it opens
     * @param maxWaiting how many calls wait for one of a destination's connections; one more fails {@link Reason#POOL_FULL}
     * @param tls how the client speaks TLS
     * @param offerHttp2 whether {@code https:} connections offer {@code h2} by ALPN
     * @param h2cPriorKnowledge whether {@code http:} connections speak HTTP/2 from their first byte
     */
    public BlockingCalls(ClientSettings settings, int maxConnections, int maxWaiting, ClientTls tls, boolean offerHttp2,
            boolean h2cPriorKnowledge) {
        this.tls = tls;
        this.settings = settings;
        this.maxConnections = maxConnections;
        this.maxWaiting = maxWaiting;
        this.offerHttp2 = offerHttp2;
        this.h2cPriorKnowledge = h2cPriorKnowledge;
        this.http2 = offerHttp2 || h2cPriorKnowledge ? new BlockingHttp2(settings, tls, maxConnections) : null;
    }

    /**
     * Sends {@code request} and waits for its response, on the calling thread.
     *
     * @param destination where to
     * @param request the request
     * @return the response
     * @throws ClientException if there is none
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    public ClientResponse call(Destination destination, ClientRequest request) throws ClientException, InterruptedException {
        if (closed) {
            throw new ClientException(Reason.NOT_SENT, destination.authority(), request.describe(), "not sent: the client is closed", null);
        }
        Turns turns = used.computeIfAbsent(destination, d -> new Turns(maxConnections));
        if (destination.secure() ? offerHttp2 : h2cPriorKnowledge) {
            ClientResponse response = http2.call(destination, address(destination, request), request);
            if (response != null) {
                return response;
            }
        }
        takeTurn(destination, turns, request);
        boolean handedOn = false;
        try {
            BlockingConnection c = takeIdle(destination);
            if (c != null) {
                try {
                    ClientResponse response = run(destination, c, request);
                    handedOn = true;
                    return response;
                } catch (ClientException e) {
                    boolean stale = request.resendable()
                            && (e.reason() == Reason.NOT_SENT || e.reason() == Reason.CONNECTION_CLOSED && request.isIdempotent());
                    if (!stale) {
                        throw e;
                    }
                }
            }
            c = BlockingConnection.open(destination, address(destination, request), settings, tls);
            ClientResponse response = run(destination, c, request);
            handedOn = true;
            return response;
        } finally {
            if (!handedOn) {
                turns.inUse.release();
            }
        }
    }

    /** Waits until one of the destination's connections may be used by this call: at once, in its turn, or not at all. */
    private void takeTurn(Destination d, Turns turns, ClientRequest request) throws ClientException, InterruptedException {
        // a timed try honours the queue (the untimed one would barge ahead of the callers waiting)
        if (turns.inUse.tryAcquire(0, TimeUnit.NANOSECONDS)) {
            return;
        }
        if (turns.waiting.incrementAndGet() > maxWaiting) {
            turns.waiting.decrementAndGet();
            throw new ClientException(Reason.POOL_FULL, d.authority(), request.describe(), "not sent: all " + maxConnections
                    + " connections to the destination are in use and " + maxWaiting + " calls already wait for one", null);
        }
        try {
            if (!request.hasDeadline()) {
                turns.inUse.acquire();
            } else if (!turns.inUse.tryAcquire(request.deadline() - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                throw new ClientException(Reason.TOTAL_TIMEOUT, d.authority(), request.describe(), request.totalTimeoutDetail(), null);
            }
        } finally {
            turns.waiting.decrementAndGet();
        }
        if (closed) {
            turns.inUse.release();
            throw new ClientException(Reason.NOT_SENT, d.authority(), request.describe(), "not sent: the client is closed", null);
        }
    }

    /** The exchange on {@code c}, counted in use until it is released (for a streamed body, at the body's end). */
    private ClientResponse run(Destination d, BlockingConnection c, ClientRequest request) throws ClientException, InterruptedException {
        d.blockingInUse.incrementAndGet();
        ClientResponse response;
        try {
            response = c.exchange(request);
        } catch (ClientException | InterruptedException | RuntimeException | Error e) {
            d.blockingInUse.decrementAndGet();
            throw e;
        }
        return finish(d, c, response);
    }

    /**
     * What each destination's connections are, as the blocking path holds them: in use or idle
     * (both counted open), and the calls waiting for one.
     *
     * @param into where to add them, by destination: open, idle, waiting
     */
    public void counts(java.util.Map<Destination, int[]> into) {
        if (http2 != null) {
            http2.counts(into);
        }
        used.forEach((d, turns) -> {
            int idle = d.idleBlockingCount.get();
            int[] sum = into.computeIfAbsent(d, k -> new int[3]);
            sum[0] += Math.max(0, d.blockingInUse.get()) + Math.max(0, idle);
            sum[1] += Math.max(0, idle);
            sum[2] += Math.max(0, turns.waiting.get());
        });
    }

    private ClientResponse finish(Destination d, BlockingConnection c, ClientResponse response) {
        if (response.isStreamed()) {
            // the connection is the body's until its end, then goes back to the pool
            c.streamBody(() -> release(d, c));
            return response;
        }
        release(d, c);
        return response;
    }

    /** The call on {@code c} is over: the connection goes idle (or closes), then the destination's next caller takes its turn. */
    private void release(Destination d, BlockingConnection c) {
        d.blockingInUse.decrementAndGet();
        try {
            if (!closed && c.reusable()) {
                if (d.idleBlockingCount.incrementAndGet() <= maxConnections) {
                    d.idleBlocking.push(c);
                    if (closed) {
                        closeIdle(d);
                    }
                    return;
                }
                d.idleBlockingCount.decrementAndGet();
            }
            c.close();
        } finally {
            Turns turns = used.get(d);
            if (turns != null) {
                turns.inUse.release();
            }
        }
    }

    private BlockingConnection takeIdle(Destination d) {
        for (BlockingConnection c; (c = d.idleBlocking.pollFirst()) != null; ) {
            d.idleBlockingCount.decrementAndGet();
            if (c.reusable()) {
                return c;
            }
        }
        return null;
    }

    private static InetSocketAddress address(Destination d, ClientRequest request) throws ClientException, InterruptedException {
        try {
            return d.connectsTo().resolve().get();
        } catch (ExecutionException e) {
            throw new ClientException(Reason.CONNECT_FAILED, d.authority(), request.describe(),
                    "could not connect: cannot resolve " + d.connectsTo().authority() + " (" + e.getCause().getMessage() + ")", e.getCause());
        }
    }

    private static void closeIdle(Destination d) {
        for (BlockingConnection c; (c = d.idleBlocking.pollFirst()) != null; ) {
            d.idleBlockingCount.decrementAndGet();
            c.close();
        }
    }

    /** Closes the idle connections; later calls fail, calls under way finish and close theirs. */
    public void close() {
        closed = true;
        if (http2 != null) {
            http2.close();
        }
        used.keySet().forEach(BlockingCalls::closeIdle);
    }
}
