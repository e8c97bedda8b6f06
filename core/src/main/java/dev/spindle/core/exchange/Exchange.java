// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.RequestBody;

/**
 * One request's run through a blocking or asynchronous handler: the request, the response the
 * handler fills, its streamed body, and how the run ended. The handler's thread (or stage) writes
 * it; the connection's thread reads it once {@link #done}. Nothing here knows the wire protocol.
 */
public final class Exchange {
    public final RequestState request;
    public final ResponseState response = new ResponseState();
    /** The request body streamed to the handler as it arrives, or null when it was buffered. */
    public final RequestBody body;
    /** Whether the connection may stay open after this response (protocol and server permitting). */
    public boolean keepAlive;
    public Throwable failure;
    public volatile boolean done;
    /** Answered already (handler timeout) or the connection ended: its late completion is ignored. */
    public volatile boolean abandoned;

    public Exchange(RequestState request, boolean keepAlive, RequestBody body) {
        this.request = request;
        this.keepAlive = keepAlive;
        this.body = body;
        if (request.route != null) {
            response.jsonCodec = request.route.json;
        }
    }
}
