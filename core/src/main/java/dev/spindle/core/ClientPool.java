// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import java.util.Objects;

/**
 * What a {@link Client} holds for one destination, summed over its event loops' pools and its
 * blocking path, as {@link Client#pools()} reads it: each loop's figures are the ones it published
 * after its last change, so a sum taken while requests run is a moment's view, not an atomic one.
 *
 * @param destination the scheme and authority, such as {@code https://api.example.test:443}
 *        ({@code http://} or {@code https://}, then the address's {@code host:port} as given); open
 *        WebSockets as {@code ws://} or {@code wss://} destinations of their own
 * @param open connections open or opening, idle ones included (a WebSocket: each open socket)
 * @param idle open connections with no request, kept alive for the next one
 * @param waiting requests waiting for a connection (at most {@link ClientConfig#maxWaitingRequests()} per loop, and as many off the loops)
 */
public record ClientPool(String destination, int open, int idle, int waiting) {
    /** Checks the figures. */
    public ClientPool {
        Objects.requireNonNull(destination, "destination");
        if (open < 0 || idle < 0 || waiting < 0) {
            throw new IllegalArgumentException("counts must not be negative: " + open + ", " + idle + ", " + waiting);
        }
    }
}
