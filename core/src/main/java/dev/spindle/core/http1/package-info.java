// SPDX-License-Identifier: Apache-2.0
/**
 * The HTTP/1.1 wire protocol (RFC 9112) without I/O: the request parser, which reports to a
 * {@link dev.spindle.core.exchange.RequestState}; the response encoder; and the connection, whose
 * life is the state machine in {@link dev.spindle.core.http1.Lifecycle}, answering each call of
 * the strategy contract with what to do next. Not exported.
 */
package dev.spindle.core.http1;
