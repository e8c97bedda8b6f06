package dev.spindle.core;

/**
 * An HTTP-level failure with the status to answer. The parser throws it for bad input; handlers
 * may throw it to answer a client error without writing the response themselves.
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
        super(message, null, false, false);
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
}
