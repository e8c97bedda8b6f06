// SPDX-License-Identifier: Apache-2.0
/**
 * Exchanges, independent of the wire protocol: what a protocol's parser reports about a request
 * ({@link dev.spindle.core.exchange.RequestState}) and what its encoder reads of the response
 * ({@link dev.spindle.core.exchange.ResponseState}), dispatch of inline, blocking and asynchronous
 * handlers ({@link dev.spindle.core.exchange.HandlerRunner}), streamed bodies, routes and
 * deadlines. Nothing here knows HTTP/1.1 framing, so a second protocol plugs in beside the first.
 * Not exported: only the core's own packages use it.
 */
package dev.spindle.core.exchange;
