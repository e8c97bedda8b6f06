// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.concurrent.CompletionStage;

/**
 * Answers one request by filling in the response. Three kinds, chosen when the route is built:
 *
 * <table>
 *   <caption>Kinds of handler</caption>
 *   <tr><th>kind</th><th>made by</th><th>runs on</th><th>request body</th></tr>
 *   <tr><td>inline</td><td>a lambda</td><td>the connection's thread (an event loop: must not block)</td>
 *       <td>whole, received before the handler runs (at most {@link ServerConfig#maxBodySize()})</td></tr>
 *   <tr><td>blocking</td><td>{@link #blocking(Handler)}</td><td>a virtual thread of its own, on every
 *       server; answered 503 if it runs past {@link ServerConfig#handlerTimeout()}</td>
 *       <td>streamed: {@link Request#bodyStream()} as it arrives; the whole-body accessors read it all</td></tr>
 *   <tr><td>asynchronous</td><td>{@link #async(Async)}</td><td>starts on the connection's thread and
 *       finishes when its stage completes; no thread waits for it</td>
 *       <td>streamed: {@link Request#bodyPublisher()} (chunks with demand) or {@link Request#readBody()}</td></tr>
 * </table>
 */
@FunctionalInterface
public interface Handler {
    /**
     * Answers {@code request} by filling in {@code response}; for an inline or blocking handler the
     * response is final when this returns (for an asynchronous one, when its stage completes).
     * Setting nothing sends 200 with an empty body.
     *
     * @param request the request: method, target, headers, path variables and body
     * @param response the response to fill in: status, headers and body
     * @throws Exception any failure: answered by the router's {@link ExceptionMapper} for its type,
     *         else with an {@link HttpException}'s status, else 500 (logged)
     */
    void handle(Request request, Response response) throws Exception;

    /**
     * Marks a handler as blocking (sleeps, blocking I/O, reading a streamed body). Event-loop
     * strategies run it on a virtual thread instead of the loop, and still answer pipelined
     * requests in order. It is dispatched as soon as the request's header section has arrived.
     *
     * <p>An unmarked handler that blocks holds its event loop, and every other connection of the
     * loop waits. The blocked-loop detector reports it: a handler that holds a loop longer than
     * {@link ServerConfig#blockedLoopThreshold(java.time.Duration)} (default 1 s,
     * {@code -Dspindle.blockedLoopThresholdMs}, 0 turns it off) gets one WARN naming its route,
     * with the loop thread's stack taken while it is blocked, which shows the blocking call.
     *
     * @param handler the handler that blocks
     * @return the same handler, marked blocking
     */
    static Handler blocking(Handler handler) {
        return new Blocking(handler);
    }

    /**
     * An asynchronous handler: it returns a stage and fills in the response before completing it;
     * the response is sent when the stage completes (a failed stage answers 500, or the status of
     * an {@link HttpException}). A stage that does not complete within
     * {@link ServerConfig#handlerTimeout()} is answered 503 and the connection closed.
     *
     * @param handler the asynchronous handler
     * @return a handler that routes can take
     */
    static Handler async(Async handler) {
        return new AsyncHandler(handler);
    }

    /** The body of an asynchronous handler. */
    @FunctionalInterface
    interface Async {
        /**
         * Starts answering {@code request} on the connection's thread and returns at once, without
         * blocking: it fills in {@code response} from any thread, then completes the stage. The
         * stage's value is ignored.
         *
         * @param request the request; its body is read with {@link Request#bodyPublisher()} or
         *        {@link Request#readBody()}
         * @param response the response to fill in before the stage completes
         * @return a stage that completes once the response is final (exceptionally to answer an
         *         error), or null when the response is already final
         * @throws Exception a failure before any stage exists, answered like a failed stage
         */
        CompletionStage<?> handle(Request request, Response response) throws Exception;
    }

    /**
     * A handler wrapped by {@link #blocking(Handler)}.
     *
     * @param delegate the handler that blocks
     */
    record Blocking(Handler delegate) implements Handler {
        @Override
        public void handle(Request request, Response response) throws Exception {
            delegate.handle(request, response);
        }
    }

    /**
     * A handler wrapped by {@link #async(Async)}. Called as a plain handler it waits for its stage,
     * for callers that may block.
     *
     * @param delegate the asynchronous handler
     */
    record AsyncHandler(Async delegate) implements Handler {
        @Override
        public void handle(Request request, Response response) throws Exception {
            CompletionStage<?> stage = delegate.handle(request, response);
            if (stage != null) {
                try {
                    stage.toCompletableFuture().get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
        }
    }
}
