package dev.spindle.core;

/**
 * Turns an exception a handler or filter threw (or an asynchronous handler's failed stage) into
 * a response. Registered per type with {@link Router.Builder#exception}; the most specific
 * registered type wins. The response it gets is reset (status 200, no body), keeping only the
 * headers that filters set before the failing step ran (CORS headers, request ids).
 */
@FunctionalInterface
public interface ExceptionMapper<T extends Throwable> {
    void map(T exception, Request request, Response response) throws Exception;
}
