// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits and timeouts of one client connection. A timeout of zero means none.
 *
 * @param connectTimeout from the connection's creation to {@code connected()}; beyond it every
 *        request fails with {@code CONNECT_TIMEOUT}
 * @param responseTimeout from a request being handed to the socket to the last byte of its
 *        response; beyond it the request fails with {@code RESPONSE_TIMEOUT} and the connection closes
 * @param idleTimeout how long an open connection with no request pending stays open; then it closes itself
 * @param maxPipelined how many requests may be sent before the first is answered (1: no pipelining)
 * @param maxBodySize the largest response body buffered, in bytes, at most {@link #MAX_BODY_SIZE}; more fails with
 *        {@code BODY_TOO_LARGE}
 * @param maxStatusLineLength the longest status line, in bytes without its CRLF
 * @param maxHeaderSize the largest header section (and trailer section), in bytes with every CRLF
 * @param maxHeaderCount the most header (and trailer) field lines
 */
public record ClientSettings(Duration connectTimeout, Duration responseTimeout, Duration idleTimeout, int maxPipelined,
        long maxBodySize, int maxStatusLineLength, int maxHeaderSize, int maxHeaderCount) {

    /** 8 MiB: bodies are buffered whole, for now. */
    public static final long DEFAULT_MAX_BODY_SIZE = 8L << 20;
    /** A body is buffered in one array. */
    public static final long MAX_BODY_SIZE = Integer.MAX_VALUE - 16;

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if a timeout is negative or a limit below 1
     */
    public ClientSettings {
        for (Duration d : new Duration[] {connectTimeout, responseTimeout, idleTimeout}) {
            if (Objects.requireNonNull(d, "timeout").isNegative()) {
                throw new IllegalArgumentException("timeouts must not be negative: " + d);
            }
        }
        if (maxPipelined < 1 || maxBodySize < 0 || maxBodySize > MAX_BODY_SIZE || maxStatusLineLength < 16 || maxHeaderSize < 2 || maxHeaderCount < 1) {
            throw new IllegalArgumentException("limits out of range: pipelined " + maxPipelined + ", body " + maxBodySize
                    + ", status line " + maxStatusLineLength + ", header section " + maxHeaderSize + ", fields " + maxHeaderCount);
        }
    }

    /**
     * Connect 10 s, response 30 s, idle 30 s (below the 60 s that servers, Spindle's included, keep
     * an idle connection, so the client closes first and does not race the server's close), no
     * pipelining, 8 MiB bodies, 8 KiB status line, 32 KiB header section, 128 fields.
     *
     * @return the defaults
     */
    public static ClientSettings defaults() {
        return new ClientSettings(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(30), 1,
                DEFAULT_MAX_BODY_SIZE, 8192, 32 * 1024, 128);
    }

    /**
     * A copy with another connect timeout.
     *
     * @param d the timeout; zero for none
     * @return the copy
     */
    public ClientSettings connectTimeout(Duration d) {
        return new ClientSettings(d, responseTimeout, idleTimeout, maxPipelined, maxBodySize, maxStatusLineLength, maxHeaderSize,
                maxHeaderCount);
    }

    /**
     * A copy with another response timeout.
     *
     * @param d the timeout; zero for none
     * @return the copy
     */
    public ClientSettings responseTimeout(Duration d) {
        return new ClientSettings(connectTimeout, d, idleTimeout, maxPipelined, maxBodySize, maxStatusLineLength, maxHeaderSize,
                maxHeaderCount);
    }

    /**
     * A copy with another idle timeout.
     *
     * @param d the timeout; zero for none
     * @return the copy
     */
    public ClientSettings idleTimeout(Duration d) {
        return new ClientSettings(connectTimeout, responseTimeout, d, maxPipelined, maxBodySize, maxStatusLineLength, maxHeaderSize,
                maxHeaderCount);
    }

    /**
     * A copy with another pipelining depth.
     *
     * @param n how many requests may await their responses at once, at least 1
     * @return the copy
     */
    public ClientSettings maxPipelined(int n) {
        return new ClientSettings(connectTimeout, responseTimeout, idleTimeout, n, maxBodySize, maxStatusLineLength, maxHeaderSize,
                maxHeaderCount);
    }

    /**
     * A copy with another body limit.
     *
     * @param bytes the largest body buffered
     * @return the copy
     */
    public ClientSettings maxBodySize(long bytes) {
        return new ClientSettings(connectTimeout, responseTimeout, idleTimeout, maxPipelined, bytes, maxStatusLineLength,
                maxHeaderSize, maxHeaderCount);
    }

    /**
     * A copy with other limits on the response head.
     *
     * @param statusLine the longest status line
     * @param headerSize the largest header (and trailer) section
     * @param headerCount the most header (and trailer) fields
     * @return the copy
     */
    public ClientSettings headLimits(int statusLine, int headerSize, int headerCount) {
        return new ClientSettings(connectTimeout, responseTimeout, idleTimeout, maxPipelined, maxBodySize, statusLine, headerSize,
                headerCount);
    }
}
