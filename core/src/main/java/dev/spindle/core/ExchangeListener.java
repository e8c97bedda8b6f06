// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

/**
 * Observes every exchange a server answers, or fails to answer, at its one end: routed requests,
 * the requests the connection refuses before routing (400, 408, 413, 414, 431, the body budget's
 * 503), handler timeouts (with the 503 actually sent, whatever the handler does later), and
 * exchanges cut short by the client (a reset connection, a cancelled HTTP/2 stream) or refused
 * (an HTTP/2 stream over the concurrency limit), on HTTP/1.1 and HTTP/2 alike. Register one with
 * {@link Router.Builder#listener}; {@link AccessLog} and {@link ExchangeMetrics} are listeners.
 *
 * <p>Each exchange is started once and ended once: {@link #exchangeStarted} when its request is
 * handed to routing (for a refusal, just before it ends), {@link #exchangeEnded} once the last
 * byte of its answer was handed to the socket, or when it ended without one. Both are called on
 * the connection's thread (an event loop, or a blocking server's connection thread), so they must
 * be quick, must not block, and must be thread-safe: one listener serves every connection. What a
 * listener throws is logged and does not affect the exchange.
 */
public interface ExchangeListener {
    /**
     * An exchange began: its request is about to be routed (or, refused before routing, to be ended).
     *
     * @param method the request method, such as {@code GET}, or {@code ""} when no request line was read
     * @param protocol {@code HTTP/1.0}, {@code HTTP/1.1} or {@code HTTP/2}
     */
    default void exchangeStarted(String method, String protocol) {
    }

    /**
     * An exchange ended. {@code end} is valid only during this call: copy what is kept.
     *
     * @param end what was asked and what was sent
     */
    void exchangeEnded(ExchangeEnd end);
}
