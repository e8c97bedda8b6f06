// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * One exchange as it ended, handed to {@link ExchangeListener#exchangeEnded} and to the callbacks
 * registered with {@link Request#onEnd}: what was asked, what was sent, and how it ended. Valid
 * only during that call.
 */
public interface ExchangeEnd {
    /** How an exchange ended. */
    enum Outcome {
        /** Its whole answer was handed to the socket. */
        COMPLETE,
        /** It ended before its whole answer was sent: the client reset or closed the connection, or cancelled the HTTP/2 stream. */
        ABORTED,
        /** The server refused the HTTP/2 stream unprocessed (over the concurrency limit, or the connection going away): safe for the client to retry. */
        REFUSED
    }

    /** {@return the request method, such as {@code GET}, or {@code ""} when no request line was read} */
    String method();

    /** {@return the request target as received (path and query), or {@code ""} when none was read} */
    String target();

    /** {@return the matched route's pattern ({@code /users/{id}}), or null: no route matched, or the request was refused before routing} */
    String route();

    /** {@return {@code HTTP/1.0}, {@code HTTP/1.1} or {@code HTTP/2}} */
    String protocol();

    /** {@return the status code sent, or 0 when no status was sent} */
    int status();

    /** {@return the response body bytes sent, or -1 when not known (a streamed body cut short)} */
    long responseBodyBytes();

    /** {@return the request body bytes received (as framed on the wire, before any decoding)} */
    long requestBodyBytes();

    /**
     * The time from the request's head being received (for a refusal before that, from when it was
     * refused) to the answer's last byte handed to the socket, or to the end without one.
     *
     * @return nanoseconds
     */
    long durationNanos();

    /** {@return how the exchange ended} */
    Outcome outcome();

    /**
     * What the answer was made from, when it was an error: the handler's exception, the
     * {@link HttpException} of a refusal, a timeout; null for an answer the handler made itself.
     *
     * @return the failure behind the answer, or null
     */
    Throwable failure();
}
