// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

/**
 * One client's requests made off any event loop: each runs on the caller's thread over a blocking
 * socket ({@link BlockingConnection}), and keep-alive connections wait between requests in a small
 * idle pool per destination shared by every thread (lock-free deques). A request that fails on a
 * reused connection because the server had closed it meanwhile (not sent, or an idempotent one
 * whose connection closed unanswered) is sent once more, on a new connection.
 */
public final class BlockingCalls {
    private final ClientSettings settings;
    private final int maxIdle;
    private final ClientTls tls;
    private final Set<Destination> used = ConcurrentHashMap.newKeySet();
    /** HTTP/2 for {@code https:} destinations (by ALPN) and for {@code http:} ones (prior knowledge), or null. */
    private final BlockingHttp2 http2;
    private final boolean offerHttp2;
    private final boolean h2cPriorKnowledge;
    private volatile boolean closed;

    /**
     * The blocking calls of one client.
     *
     * @param settings the settings of every connection
     * @param maxIdle how many idle connections each destination keeps
     */
    public BlockingCalls(ClientSettings settings, int maxIdle) {
        this(settings, maxIdle, ClientTls.jdkDefaults());
    }

    /**
     * The blocking calls of one client, speaking TLS to {@code https:} destinations as {@code tls} says.
     *
     * @param settings the settings of every connection
     * @param maxIdle how many idle connections each destination keeps
     * @param tls how the client speaks TLS
     */
    public BlockingCalls(ClientSettings settings, int maxIdle, ClientTls tls) {
        this(settings, maxIdle, tls, false, false);
    }

    /**
     * The blocking calls of one client, speaking HTTP/2 where told: calls to a destination that
     * speaks it share its connections ({@link BlockingHttp2}), at most {@code maxIdle} of them.
     *
     * @param settings the settings of every connection
     * @param maxIdle how many idle HTTP/1.1 connections each destination keeps, and how many HTTP/2 ones it opens
     * @param tls how the client speaks TLS
     * @param offerHttp2 whether {@code https:} connections offer {@code h2} by ALPN
     * @param h2cPriorKnowledge whether {@code http:} connections speak HTTP/2 from their first byte
     */
    public BlockingCalls(ClientSettings settings, int maxIdle, ClientTls tls, boolean offerHttp2, boolean h2cPriorKnowledge) {
        this.tls = tls;
        this.settings = settings;
        this.maxIdle = maxIdle;
        this.offerHttp2 = offerHttp2;
        this.h2cPriorKnowledge = h2cPriorKnowledge;
        this.http2 = offerHttp2 || h2cPriorKnowledge ? new BlockingHttp2(settings, tls, maxIdle) : null;
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
        if (destination.secure() ? offerHttp2 : h2cPriorKnowledge) {
            used.add(destination);
            ClientResponse response = http2.call(destination, address(destination, request), request);
            if (response != null) {
                return response;
            }
        }
        BlockingConnection c = takeIdle(destination);
        if (c != null) {
            try {
                return run(destination, c, request);
            } catch (ClientException e) {
                boolean stale = request.resendable()
                        && (e.reason() == Reason.NOT_SENT || e.reason() == Reason.CONNECTION_CLOSED && request.isIdempotent());
                if (!stale) {
                    throw e;
                }
            }
        }
        c = BlockingConnection.open(destination, address(destination, request), settings, tls);
        used.add(destination);
        return run(destination, c, request);
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
     * (both counted open), none waiting (a call makes its own).
     *
     * @param into where to add them, by destination: open, idle, waiting
     */
    public void counts(java.util.Map<Destination, int[]> into) {
        if (http2 != null) {
            http2.counts(into);
        }
        for (Destination d : used) {
            int idle = d.idleBlockingCount.get();
            int[] sum = into.computeIfAbsent(d, k -> new int[3]);
            sum[0] += Math.max(0, d.blockingInUse.get()) + Math.max(0, idle);
            sum[1] += Math.max(0, idle);
        }
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

    private void release(Destination d, BlockingConnection c) {
        d.blockingInUse.decrementAndGet();
        if (!closed && c.reusable()) {
            if (d.idleBlockingCount.incrementAndGet() <= maxIdle) {
                d.idleBlocking.push(c);
                if (closed) {
                    closeIdle(d);
                }
                return;
            }
            d.idleBlockingCount.decrementAndGet();
        }
        c.close();
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
        for (Destination d : used) {
            closeIdle(d);
        }
    }
}
