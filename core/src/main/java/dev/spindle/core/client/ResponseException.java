// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException;

/**
 * A response the parser or the connection cannot take: what is wrong, and which
 * {@link ClientException.Reason} it fails the request with. Internal to the client: the connection
 * turns it into a {@link ClientException} naming the request and the destination. No stack trace
 * (a malformed response is expected input, not a bug).
 */
final class ResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ClientException.Reason reason;

    ResponseException(ClientException.Reason reason, String detail) {
        super(detail, null, false, false);
        this.reason = reason;
    }

    static ResponseException malformed(String detail) {
        return new ResponseException(ClientException.Reason.MALFORMED_RESPONSE, detail);
    }

    ClientException.Reason reason() {
        return reason;
    }
}
