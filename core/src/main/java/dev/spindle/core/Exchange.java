package dev.spindle.core;

/**
 * One request's run through a blocking or asynchronous handler: the request, the response the
 * handler fills, its streamed body, and how the run ended. The handler's thread (or stage) writes
 * it; the connection's thread reads it once {@link #done}. Nothing here knows the wire protocol.
 */
final class Exchange {
    final Request request;
    final Response response = new Response();
    /** The request body streamed to the handler as it arrives, or null when it was buffered. */
    final RequestBody body;
    /** Whether the connection may stay open after this response (protocol and server permitting). */
    boolean keepAlive;
    Throwable failure;
    volatile boolean done;
    /** Answered already (handler timeout) or the connection ended: its late completion is ignored. */
    volatile boolean abandoned;

    Exchange(Request request, boolean keepAlive, RequestBody body) {
        this.request = request;
        this.keepAlive = keepAlive;
        this.body = body;
        if (request.route != null) {
            response.jsonCodec = request.route.json;
        }
    }
}
