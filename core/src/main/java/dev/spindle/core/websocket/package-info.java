// SPDX-License-Identifier: Apache-2.0
/**
 * WebSocket (RFC 6455) without I/O: the opening handshake's checks and answer
 * ({@link dev.spindle.core.websocket.WebSocketHandshake}), the frame layer
 * ({@link dev.spindle.core.websocket.FrameReader} checks and hands on frames read from the input,
 * payloads as they arrive; {@link dev.spindle.core.websocket.WebSocketFrames} writes them), and
 * messages ({@link dev.spindle.core.websocket.MessageReader}: fragments joined, UTF-8 checked as it
 * arrives, close frames read, limits), and permessage-deflate (RFC 7692:
 * {@link dev.spindle.core.websocket.PerMessageDeflate} negotiates and compresses; the message reader
 * inflates within the limit), and the connection an HTTP/1.1 handshake switches to
 * ({@link dev.spindle.core.websocket.WebSocketConnection}, after
 * {@link dev.spindle.core.websocket.WebSocketAccept} checked and agreed on the handshake). Not exported.
 */
package dev.spindle.core.websocket;
