// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * Turns an exception a handler or filter threw (or an asynchronous handler's failed stage) into
 * a response. Registered per type with {@link Router.Builder#exception}; the most specific
 * registered type wins. A mapper reshapes an error answer; the rules on what it can change:
 *
 * <ul>
 *   <li>The response it gets starts as the default answer would, without its body: the
 *       {@link HttpException}'s status (500 for any other exception), the header fields that status
 *       requires ({@code Allow} on a 405, {@code Content-Range} on a static file's 416), and the
 *       headers filters set before the failing step ran (CORS headers, request ids). Everything
 *       else the failed step wrote is gone. A mapper that only writes a body keeps the status.</li>
 *   <li>It may set another status for an error the application or router raised (a 404, a
 *       {@link BodyDecodingException}'s 400, its own exceptions). Required headers stay: there is
 *       no way to remove them, and a mapper should not add them again.</li>
 *   <li>A status the connection decided from the wire stays whatever the mapper sets: a streamed
 *       request body that was too large (413), did not arrive in time (408) or had broken chunked
 *       framing (400). Once such a body failed, whatever the handler throws (the stream's
 *       {@code IOException}, wrapped or not) reaches mappers as an {@link HttpException} with that
 *       status and the thrown exception as its cause; the connection closes after the answer.</li>
 *   <li>Requests the connection rejects before routing (a malformed request line or header, a
 *       {@code Content-Length} over the limit, a header section that times out) reach no mapper.</li>
 * </ul>
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
     * @param response the response to fill: reset to the default answer's status and required
     *        headers, no body
     * @throws Exception anything; the default answer then replaces what this mapper wrote
     */
    void map(T exception, Request request, Response response) throws Exception;
}
