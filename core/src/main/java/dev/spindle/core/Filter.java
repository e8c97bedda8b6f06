// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.concurrent.CompletionStage;

/**
 * Runs around every exchange that reaches routing: a route's handler, the 404 and 405 answers,
 * and the answers to exceptions (mapped by {@link Router.Builder#exception} or by default), in the
 * order the filters were added, the first outermost; and around the connection's refusals of
 * requests whose head was read (413, a body's 400 or 408, the body budget's 503), answered as if
 * a handler had thrown their {@link HttpException}, their status kept. Requests with a malformed
 * head (400, 414, 431) pass no filter. A streamed request body that breaks after routing (413,
 * 408, 400) is answered inside the filters, with its status kept (see {@link ExceptionMapper}).
 * {@code chain.proceed()} completes when the handler is done; for what was actually sent (after
 * a handler timeout, the 503), register {@link Request#onEnd} before proceeding.
 *
 * <p>A filter keeps its route's nature: around an inline handler it runs on the connection's
 * thread, around a blocking one on that handler's thread, around an asynchronous one it starts on
 * the connection's thread and finishes when the handler's stage does. So it returns a stage,
 * as a WebFlux {@code WebFilter} does: {@code return chain.proceed();} to go on, or
 * {@code return chain.proceed().thenRun(...)} to act once the response is final (for example to
 * add a header or log its status). A filter that answers by itself fills in the response and
 * returns without proceeding. An exception it throws is answered like a handler's.
 *
 * <p>Around an inline route the chain must finish at once: a filter that returns an incomplete
 * stage there fails the exchange with 500 (make the route {@link Handler#async asynchronous}).
 */
@FunctionalInterface
public interface Filter {
    /**
     * Runs this filter around the rest of one exchange. Called on the thread the exchange runs on
     * (see above), for every exchange of every connection, so an instance must be thread-safe.
     *
     * @param request the request, its route already chosen ({@link Request#routePattern()} is null
     *        for a 404 or 405)
     * @param response the response; headers set before proceeding stay on error answers too
     * @param chain the rest of the exchange: call {@link Chain#proceed()} at most once
     * @return a stage that completes once this filter is done: usually {@code chain.proceed()} or a
     *         stage derived from it; a completed stage (or null) when it answered by itself
     * @throws Exception a failure, answered like a handler's
     */
    CompletionStage<?> filter(Request request, Response response, Chain chain) throws Exception;

    /** The rest of the exchange after a filter: later filters, then the handler. */
    @FunctionalInterface
    interface Chain {
        /**
         * Runs the rest and returns a stage that completes, never exceptionally, when the response
         * is final (at once unless the route is asynchronous). Call it at most once.
         *
         * @return a stage completing, with null, once the response is final
         */
        CompletionStage<Void> proceed();
    }
}
