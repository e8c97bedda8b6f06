// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

/**
 * A header block that cannot be decoded: a connection error of type {@code COMPRESSION_ERROR}
 * (RFC 9113 4.3), since the decoder's table is then out of step with the peer's.
 */
public final class HpackException extends Exception {
    private static final long serialVersionUID = 1L;

    HpackException(String message) {
        super(message);
    }
}
