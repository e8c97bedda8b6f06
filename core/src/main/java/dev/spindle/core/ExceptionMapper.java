package dev.spindle.core;

/**
 * Turns an exception a handler or filter threw (or an asynchronous handler's failed stage) into
 * a response. Registered per type with {@link Router.Builder#exception}; the most specific
 * registered type wins. The response it gets is reset (status 200, no body), keeping only the
 * headers that filters set before the failing step ran (CORS headers, request ids).
 *
 * @param <T> the exception type it answers
 */
@FunctionalInterface
public interface ExceptionMapper<T extends Throwable> {
    /**
     * Fills {@code response} with the answer to {@code exception}. Runs on the thread where the
     * failure surfaced (the handler's, or the one completing an asynchronous handler's stage). If it
     * throws, the response is reset again (keeping the filters' headers) and the default answer
     * goes out: an {@link HttpException}'s status, else 500.
     *
     * @param exception what was thrown (for a failed stage, its cause, unwrapped)
     * @param request the request being answered
     * @param response the response to fill, already reset
     * @throws Exception anything; the default answer then replaces what this mapper wrote
     */
    void map(T exception, Request request, Response response) throws Exception;
}
