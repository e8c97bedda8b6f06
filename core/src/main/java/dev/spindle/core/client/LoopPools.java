// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.OutboundLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One client's connection pools on one event loop, one pool per destination: used only on that
 * loop's thread, so nothing here is locked or shared with another loop. A request goes to an idle
 * keep-alive connection of its destination, else to a new one the loop opens, up to
 * {@link PoolLimits#maxConnections()}; beyond that it waits, up to {@link PoolLimits#maxWaiting()}.
 */
public final class LoopPools {
    private final OutboundLoop loop;
    private final ClientSettings settings;
    private final PoolLimits limits;
    private final ClientTls tls;
    /** Changed on the loop's thread only; concurrent so that {@link #counts} reads it from any thread. */
    private final ConcurrentHashMap<Destination, DestinationPool> pools = new ConcurrentHashMap<>();
    private boolean closed;

    /**
     * The pools of one client on {@code loop}.
     *
     * @param loop the loop whose thread uses them
     * @param settings the settings of every connection
     * @param limits the pools' limits
     */
    public LoopPools(OutboundLoop loop, ClientSettings settings, PoolLimits limits) {
        this(loop, settings, limits, ClientTls.jdkDefaults());
    }

    /**
     * The pools of one client on {@code loop}, speaking TLS to {@code https:} destinations as {@code tls} says.
     *
     * @param loop the loop whose thread uses them
     * @param settings the settings of every connection
     * @param limits the pools' limits
     * @param tls how the client speaks TLS
     */
    public LoopPools(OutboundLoop loop, ClientSettings settings, PoolLimits limits, ClientTls tls) {
        this.tls = tls;
        this.loop = loop;
        this.settings = settings;
        this.limits = limits;
    }

    /**
     * The loop these pools belong to.
     *
     * @return the loop
     */
    public OutboundLoop loop() {
        return loop;
    }

    /**
     * Sends a request through the destination's pool; call on the loop's thread.
     *
     * @param destination where to
     * @param request the request
     * @return completes on the loop's thread with the response, or fails with a {@link ClientException}
     */
    public CompletableFuture<ClientResponse> send(Destination destination, ClientRequest request) {
        CompletableFuture<ClientResponse> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new ClientException(Reason.NOT_SENT, destination.authority(), request.describe(),
                    "not sent: the client is closed", null));
            return result;
        }
        DestinationPool pool = pools.get(destination);
        if (pool == null) {
            pool = new DestinationPool(loop, destination, settings, limits, tls);
            pools.put(destination, pool);
        }
        pool.submit(new PooledExchange(pool, request, result));
        return result;
    }

    /**
     * Closes every pool: waiting requests fail, idle connections close, busy ones close once their
     * requests are answered; later requests fail. Call on the loop's thread.
     */
    public void close() {
        closed = true;
        List<DestinationPool> all = new ArrayList<>(pools.values());
        pools.clear();
        for (DestinationPool pool : all) {
            pool.close();
        }
    }

    /**
     * What each destination's pool holds, as it last said, from any thread: connections open or
     * opening, idle ones among them, requests waiting for one.
     *
     * @param into where to add them, by destination: three counts each, summed with what is there
     */
    public void counts(Map<Destination, int[]> into) {
        pools.forEach((d, p) -> {
            int[] sum = into.computeIfAbsent(d, k -> new int[3]);
            int[] c = p.counts();
            for (int i = 0; i < 3; i++) {
                sum[i] += c[i];
            }
        });
    }

    /**
     * How many connections the pools hold, open or opening; for tests, on the loop's thread.
     *
     * @param destination the destination
     * @return its connection count on this loop
     */
    public int connections(Destination destination) {
        DestinationPool pool = pools.get(destination);
        return pool == null ? 0 : pool.connectionCount();
    }

    /**
     * The limits of one destination's pool on one loop, and the protocols its connections speak.
     *
     * @param maxConnections connections open or opening at once, at least 1
     * @param maxWaiting requests waiting for a connection, at least 0
     * @param offerHttp2 whether {@code https:} connections offer {@code h2} by ALPN
     * @param h2cPriorKnowledge whether {@code http:} connections speak HTTP/2 from their first byte
     */
    public record PoolLimits(int maxConnections, int maxWaiting, boolean offerHttp2, boolean h2cPriorKnowledge) {
        /**
         * Limits for HTTP/1.1 connections.
         *
         * @param maxConnections connections open or opening at once, at least 1
         * @param maxWaiting requests waiting for a connection, at least 0
         */
        public PoolLimits(int maxConnections, int maxWaiting) {
            this(maxConnections, maxWaiting, false, false);
        }

        /** Checks the limits. */
        public PoolLimits {
            if (maxConnections < 1 || maxWaiting < 0) {
                throw new IllegalArgumentException("pool limits out of range: " + maxConnections + " connections, "
                        + maxWaiting + " waiting");
            }
        }
    }
}
