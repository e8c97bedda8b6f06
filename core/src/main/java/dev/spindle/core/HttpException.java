// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * An HTTP-level failure with the status to answer. The parser throws it for bad input; handlers
 * may throw it to answer a client error without writing the response themselves. Exception mappers
 * ({@link Router.Builder#exception}) see the ones the router raises too: 404, 405 (with
 * {@code Allow}), a static file's 404 and 416, a body the codec cannot read
 * ({@link BodyDecodingException}), and a streamed request body that broke on the wire (413, 408,
 * 400), whose status a mapper cannot change.
 */
public class HttpException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The status to answer with. */
    private final int status;

    /**
     * An exception that answers with {@code status}. The default answer is a text body with the
     * status, its reason phrase and {@code message}, so the message reaches the client: keep it free
     * of secrets. No stack trace is recorded (these are expected, and cheap to throw), and it cannot
     * carry suppressed exceptions.
     *
     * @param status the status to answer with, from 200 to 599 (usually a 4xx or 5xx)
     * @param message why, for the client; may be null
     */
    public HttpException(int status, String message) {
        this(status, message, null);
    }

    /**
     * An exception that answers with {@code status}, caused by {@code cause}. The default answer
     * carries {@code message} (keep it free of secrets) but nothing of the cause, which is for logs
     * and exception mappers. No stack trace is recorded; the cause keeps its own.
     *
     * @param status the status to answer with, from 200 to 599 (usually a 4xx or 5xx)
     * @param message why, for the client; may be null
     * @param cause what went wrong underneath, such as a codec's exception; may be null
     */
    public HttpException(int status, String message, Throwable cause) {
        super(message, cause, false, false);
        this.status = status;
    }

    /**
     * The status to answer with.
     *
     * @return the status code given to the constructor
     */
    public int status() {
        return status;
    }

    /**
     * Adds the header fields this status requires ({@code Allow} on a 405, {@code Content-Range}
     * on a 416) to an answer: before an exception mapper runs, and to the default answer.
     */
    void addRequiredHeaders(Response response) {
    }
}
