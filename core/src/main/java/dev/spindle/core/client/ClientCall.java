// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/** A request on a {@link ClientConnection}, and what became of it. */
final class ClientCall {
    final ClientRequest request;
    /** Where its response or failure goes, on the connection's thread: one or the other. */
    private final BiConsumer<ClientResponse, Throwable> outcome;
    private final CompletableFuture<ClientResponse> future;
    /** When it was encoded, for the response timeout; and where its bytes end in the connection's output. */
    long encodedAt;
    long firstByte;
    ClientResponse response;
    ClientException failure;
    /** Its body being streamed, once its head has arrived (its future completed then). */
    ResponseStream stream;

    ClientCall(ClientRequest request, BiConsumer<ClientResponse, Throwable> outcome) {
        this.request = request;
        this.outcome = outcome;
        this.future = null;
    }

    ClientCall(ClientRequest request, CompletableFuture<ClientResponse> future) {
        this.request = request;
        this.outcome = null;
        this.future = future;
    }

    /** Hands on its response, or its failure. */
    void settle() {
        if (outcome != null) {
            outcome.accept(response, response != null ? null : failure);
        } else if (response != null) {
            future.complete(response);
        } else {
            future.completeExceptionally(failure);
        }
    }
}
