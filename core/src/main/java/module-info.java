// SPDX-License-Identifier: Apache-2.0
/**
 * Spindle's core: the HTTP engine every server strategy shares, and the API applications use.
 * Beside the server's engine it holds an HTTP/1.1 client ({@code client}, not exported): a
 * sans-I/O client connection that strategies drive on sockets they open themselves, whose results
 * are the API's {@code ClientResponse} and {@code ClientException}.
 * Only the API, {@code dev.spindle.core}, is exported to everyone, and the strategy contract,
 * {@code dev.spindle.core.spi} (the sans-I/O connection and the server shells), only to Spindle's
 * own server modules. The engine's layers are not exported at all: {@code exchange} (requests,
 * responses and bodies as handlers see them, dispatch, deadlines; no HTTP/1.1), {@code http1}
 * (the HTTP/1.1 wire protocol and connection state machine), {@code http2} (HTTP/2: frames, HPACK,
 * streams and flow control), {@code websocket} (RFC 6455 frames, messages, permessage-deflate and
 * the connection a handshake switches to), {@code tls} (TLS as a layer around a connection) and {@code bytes}
 * (ASCII matching over raw memory, the output buffer).
 */
module dev.spindle.core {
    requires transitive org.slf4j;

    exports dev.spindle.core;
    exports dev.spindle.core.spi to dev.spindle.blocking, dev.spindle.nio, dev.spindle.iouring;
}
