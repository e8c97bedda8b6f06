// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/** One request through a loop's pool: what it is, where its answer goes, which connection carries it. */
final class PooledExchange implements BiConsumer<ClientResponse, Throwable> {
    final DestinationPool pool;
    final ClientRequest request;
    final CompletableFuture<ClientResponse> result;
    PooledConnection connection;
    /** Sent again once already, after a connection ended before sending it, or a reused one closed unanswered. */
    boolean retried;
    /** The connection it was sent on before it was sent again: not chosen again (a server that refused its stream may refuse it again). */
    PooledConnection previous;
    /** A timer for its total timeout runs. */
    boolean watched;
    /** Sent on a connection that had carried requests before (a keep-alive one the server may have closed meanwhile). */
    boolean reused;

    PooledExchange(DestinationPool pool, ClientRequest request, CompletableFuture<ClientResponse> result) {
        this.pool = pool;
        this.request = request;
        this.result = result;
    }

    /** The connection settled this request, on the loop's thread. */
    @Override
    public void accept(ClientResponse response, Throwable failure) {
        pool.settled(this, response, failure);
    }
}
