// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

/**
 * The peer broke RFC 6455 (or a limit): the connection is to be closed with {@link #closeCode()}
 * (RFC 6455 7.4.1: 1002 protocol error, 1007 invalid payload data, 1009 message too big), its
 * message the close frame's reason. No stack trace: these are expected, and cheap to throw.
 */
final class WebSocketException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int closeCode;

    WebSocketException(int closeCode, String reason) {
        super(reason, null, false, false);
        this.closeCode = closeCode;
    }

    /** {@return the status code of the close frame that answers the failure} */
    int closeCode() {
        return closeCode;
    }
}
