// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import java.io.IOException;

/** A request body that could not be read, with the status the connection answers if the handler gives up on it. */
public final class BodyException extends IOException {
    private static final long serialVersionUID = 1L;
    /** The status to answer, or 0 when the request was answered already. */
    public final int status;

    /**
     * A failure of the body.
     *
     * @param status the status to answer, or 0
     * @param message what went wrong
     */
    public BodyException(int status, String message) {
        super(message);
        this.status = status;
    }
}
