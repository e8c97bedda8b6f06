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
 *   <tr><td>blocking</td><td>{@link #blocking(Handler)}</td><td>a virtual thread on event-loop servers;
 *       the connection's own thread on blocking servers</td>
 *       <td>streamed: {@link Request#bodyStream()} as it arrives; the whole-body accessors read it all</td></tr>
 *   <tr><td>asynchronous</td><td>{@link #async(Async)}</td><td>starts on the connection's thread and
 *       finishes when its stage completes; no thread waits for it</td>
 *       <td>streamed: {@link Request#bodyPublisher()} (chunks with demand) or {@link Request#readBody()}</td></tr>
 * </table>
 */
@FunctionalInterface
public interface Handler {
    void handle(Request request, Response response) throws Exception;

    /**
     * Marks a handler as blocking (sleeps, blocking I/O, reading a streamed body). Event-loop
     * strategies run it on a virtual thread instead of the loop, and still answer pipelined
     * requests in order. It is dispatched as soon as the request's header section has arrived.
     */
    static Handler blocking(Handler handler) {
        return new Blocking(handler);
    }

    /**
     * An asynchronous handler: it returns a stage and fills in the response before completing it;
     * the response is sent when the stage completes (a failed stage answers 500, or the status of
     * an {@link HttpException}). A stage that does not complete within
     * {@link ServerConfig#handlerTimeout()} is answered 503 and the connection closed.
     */
    static Handler async(Async handler) {
        return new AsyncHandler(handler);
    }

    /** The body of an asynchronous handler. */
    @FunctionalInterface
    interface Async {
        CompletionStage<?> handle(Request request, Response response) throws Exception;
    }

    /** A handler wrapped by {@link #blocking(Handler)}. */
    record Blocking(Handler delegate) implements Handler {
        @Override
        public void handle(Request request, Response response) throws Exception {
            delegate.handle(request, response);
        }
    }

    /**
     * A handler wrapped by {@link #async(Async)}. Called as a plain handler it waits for its stage,
     * for callers that may block.
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
