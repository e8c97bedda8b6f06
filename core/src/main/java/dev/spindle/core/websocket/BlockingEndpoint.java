// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.WebSocket;

/**
 * What {@link WebSocket.Endpoint#blocking} wraps an endpoint in: the connection runs its callbacks
 * on a thread of the socket's own ({@link EndpointEvents}). Its own callbacks are never called.
 *
 * @param delegate the endpoint whose callbacks may block
 */
public record BlockingEndpoint(WebSocket.Endpoint delegate) implements WebSocket.Endpoint {
}
