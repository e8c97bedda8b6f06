// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The opening handshake's arithmetic (RFC 6455 4.2): whether a {@code Sec-WebSocket-Key} is one
 * (16 random bytes in base64) and the {@code Sec-WebSocket-Accept} that answers it; the token
 * lists of {@code Connection} and {@code Upgrade} are read with {@code Ascii.listHasToken}.
 */
final class WebSocketHandshake {
    /** The version this side speaks, the only one RFC 6455 defines. */
    static final String VERSION = "13";
    private static final byte[] GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11".getBytes(StandardCharsets.US_ASCII);

    private WebSocketHandshake() {
    }

    /** {@return whether {@code key} is base64 of 16 bytes, as a client must send} */
    static boolean validKey(String key) {
        if (key == null || key.length() != 24) {
            return false;
        }
        try {
            return Base64.getDecoder().decode(key).length == 16;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** {@return the {@code Sec-WebSocket-Accept} value for {@code key}: base64 of the SHA-1 of the key and RFC 6455's GUID} */
    static String accept(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            sha1.update(key.getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1.digest(GUID));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }
}
