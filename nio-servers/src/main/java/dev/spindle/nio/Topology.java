// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import dev.spindle.core.ServerConfig;

/**
 * Who accepts and how many loops and listening sockets exist: the only thing the four NIO servers
 * differ in. Every loop is the same {@link EventLoop}.
 *
 * <table>
 *   <caption>Topologies</caption>
 *   <tr><th>topology</th><th>serving loops</th><th>listening sockets</th><th>who accepts</th><th>where accepted channels go</th></tr>
 *   <tr><td>{@link #SINGLE_LOOP}</td><td>1</td><td>1</td><td>the loop</td><td>itself</td></tr>
 *   <tr><td>{@link #MULTI_LOOP}</td><td>workers</td><td>1</td><td>loop 0 (which also serves)</td><td>round-robin over all loops, loop 0 included</td></tr>
 *   <tr><td>{@link #BOSS_WORKER}</td><td>workers</td><td>1</td><td>a boss loop that serves nothing</td><td>round-robin over the worker loops</td></tr>
 *   <tr><td>{@link #REUSE_PORT}</td><td>workers</td><td>workers, SO_REUSEPORT</td><td>every loop, its own socket</td><td>itself; the kernel balances</td></tr>
 * </table>
 */
enum Topology {
    /** One loop accepts and serves everything (Redis-style). */
    SINGLE_LOOP,
    /**
     * {@code workers} loops; loop 0 accepts and hands channels out round-robin, keeping every
     * other one for itself in turn. Chosen over "every loop selects on the shared listening
     * socket" because that wakes all loops for each connection (thundering herd) and lets
     * whichever loop is awake take it, which spreads connections unevenly.
     */
    MULTI_LOOP,
    /** One boss thread (a loop with no connections) accepts; {@code workers} loops serve (Netty's pattern). */
    BOSS_WORKER,
    /** {@code workers} loops, each with its own listening socket bound with SO_REUSEPORT. */
    REUSE_PORT;

    int servingLoops(ServerConfig config) {
        return this == SINGLE_LOOP ? 1 : config.workers();
    }
}
