// SPDX-License-Identifier: Apache-2.0
/**
 * The HTTP/1.1 client without I/O, the mirror of the server's {@code http1}: a
 * {@link dev.spindle.core.client.ClientConnection} is the sans-I/O connection a strategy drives on
 * a socket it opened itself ({@link dev.spindle.core.spi.OutboundConnection}), encoding requests
 * ({@link dev.spindle.core.client.RequestEncoder}), parsing responses strictly and incrementally
 * ({@link dev.spindle.core.client.ResponseParser}), pipelining, keeping connections alive and
 * keeping its own connect, response and idle timeouts. Requests complete with the API's
 * {@link dev.spindle.core.ClientResponse} or fail with a {@link dev.spindle.core.ClientException}.
 *
 * <p>Layering: it depends on the API ({@code dev.spindle.core}), {@code spi} (the contract it
 * implements) and {@code bytes}, never on the server's wire protocols, TLS or exchanges; only the
 * API (which builds responses for it, {@link dev.spindle.core.client.ClientApiAccess}) and the
 * drivers that open sockets for it depend on it. Not exported.
 */
package dev.spindle.core.client;
