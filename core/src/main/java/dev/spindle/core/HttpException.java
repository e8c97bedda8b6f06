package dev.spindle.core;

/**
 * An HTTP-level failure with the status to answer. The parser throws it for bad input; handlers
 * may throw it to answer a client error without writing the response themselves.
 */
public class HttpException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    public HttpException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
