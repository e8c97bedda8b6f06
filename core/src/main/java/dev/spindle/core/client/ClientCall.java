package dev.spindle.core.client;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientResponse;
import java.util.concurrent.CompletableFuture;

/** A request on a {@link ClientConnection}, and what became of it. */
final class ClientCall {
    final ClientRequest request;
    final CompletableFuture<ClientResponse> future = new CompletableFuture<>();
    /** When it was encoded, for the response timeout; and where its bytes end in the connection's output. */
    long encodedAt;
    long firstByte;
    ClientResponse response;
    ClientException failure;
    /** Its body being streamed, once its head has arrived (its future completed then). */
    ResponseStream stream;

    ClientCall(ClientRequest request) {
        this.request = request;
    }
}
