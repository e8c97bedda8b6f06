// SPDX-License-Identifier: Apache-2.0
/**
 * TLS as a layer that wraps a connection: {@link dev.spindle.core.tls.TlsConnection} feeds the
 * plain connection decrypted bytes and encrypts what it answers, through the SSLEngine record
 * layer in {@link dev.spindle.core.tls.TlsLayer}; {@link dev.spindle.core.tls.TlsClientConnection}
 * is the same layer around a client's outbound connection. Not exported.
 */
package dev.spindle.core.tls;
