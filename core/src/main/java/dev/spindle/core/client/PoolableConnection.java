// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientResponse;
import java.util.function.BiConsumer;

/**
 * What a pool needs of a client connection, whichever protocol it speaks: an HTTP/1.1
 * {@link ClientConnection} carries one request at a time (or a pipelined few), an
 * {@link Http2ClientConnection} as many streams as the server allows. On the connection's thread.
 */
interface PoolableConnection {
    /**
     * Queues a request; the caller then resumes the connection so that it writes.
     *
     * @param request the request
     * @param outcome called once with the response or the failure, on the connection's thread
     */
    void send(ClientRequest request, BiConsumer<ClientResponse, Throwable> outcome);

    /** {@return whether it is open, takes requests and has none pending} */
    boolean isIdle();

    /** {@return whether it takes more requests (false once closed or closing)} */
    boolean isReusable();

    /** {@return requests sent on it and not yet answered} */
    int pending();

    /** {@return how many requests it carries at once} */
    int capacity();

    /** Takes no more requests; those pending are finished, then it closes. */
    void closeAfterResponse();

    /**
     * Who drives it, for its streamed response bodies.
     *
     * @param driver the pool's connection, or a blocking caller
     */
    void driver(ResponseStream.Driver driver);
}
