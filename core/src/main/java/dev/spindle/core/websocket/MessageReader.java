// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static dev.spindle.core.websocket.WebSocketFrames.BINARY;
import static dev.spindle.core.websocket.WebSocketFrames.CLOSE;
import static dev.spindle.core.websocket.WebSocketFrames.CONTINUATION;
import static dev.spindle.core.websocket.WebSocketFrames.INVALID_PAYLOAD;
import static dev.spindle.core.websocket.WebSocketFrames.MESSAGE_TOO_BIG;
import static dev.spindle.core.websocket.WebSocketFrames.NO_STATUS;
import static dev.spindle.core.websocket.WebSocketFrames.PING;
import static dev.spindle.core.websocket.WebSocketFrames.PROTOCOL_ERROR;
import static dev.spindle.core.websocket.WebSocketFrames.TEXT;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Turns the frames of a {@link FrameReader} into messages (RFC 6455 5.4 to 5.6): fragments joined
 * in order, control frames handled between them, a text message's UTF-8 checked as each piece
 * arrives (so invalid text fails at its first bad byte, 1007), a message over the limit refused
 * as soon as its frames announce it (1009), and close frames read (a one-byte payload, or a code
 * a peer may not send, is 1002; a reason not UTF-8, 1007). Memory: one buffer of at most the
 * message limit, allocated when a message needs it and let go after one larger than
 * {@link #RETAINED} bytes, so an idle connection holds none of it. With permessage-deflate
 * (RFC 7692), a message whose first frame has RSV1 is inflated as it arrives, the limit applying
 * to the inflated bytes (a small message that inflates past it is 1009 with memory bounded).
 */
final class MessageReader implements FrameReader.Listener {
    /** What a connection's messages are. */
    interface Listener {
        void text(String message);

        /** A binary message, between {@code message}'s position and limit; valid during the call only. */
        void binary(ByteBuffer message);

        /** A ping, to be answered with a pong carrying {@code payload}; valid during the call only. */
        void ping(ByteBuffer payload);

        void pong(ByteBuffer payload);

        /** A close frame: {@code code} is {@link WebSocketFrames#NO_STATUS} when it had none, {@code reason} empty then. */
        void close(int code, String reason);
    }

    /** The largest message buffer kept between messages. */
    static final int RETAINED = 16 * 1024;
    private static final byte[] NONE = new byte[0];

    private final Listener listener;
    private final long maxMessageSize;
    /** Made at the first text message. */
    private Utf8Validator utf8;

    /** The opcode of the message being read, {@link WebSocketFrames#CONTINUATION} between messages. */
    private int messageOpcode = CONTINUATION;
    private boolean finalFrame;
    private byte[] message = NONE;
    private int size;
    /** The raw-deflate decompressor of permessage-deflate, or null without it. */
    private Inflater inflater;
    /** Whether permessage-deflate was agreed: the inflater is made at the first compressed message. */
    private final boolean inflates;
    private final boolean resetPerMessage;
    private boolean compressed;

    MessageReader(Listener listener, long maxMessageSize) {
        this(listener, maxMessageSize, null, false);
    }

    /**
     * @param inflater a raw-deflate inflater ({@code new Inflater(true)}) when permessage-deflate
     *        was agreed, else null; this reader owns it
     * @param resetPerMessage whether the peer agreed to no context takeover, so the inflater starts afresh per message
     */
    MessageReader(Listener listener, long maxMessageSize, Inflater inflater, boolean resetPerMessage) {
        this.listener = listener;
        this.maxMessageSize = maxMessageSize;
        this.inflater = inflater;
        this.inflates = inflater != null;
        this.resetPerMessage = resetPerMessage;
    }

    /**
     * A reader that inflates when {@code deflate}, its inflater made at the first compressed message
     * and, when the peer resets its context per message, let go after each one: an idle
     * connection holds none of the native memory an inflater costs.
     */
    MessageReader(Listener listener, long maxMessageSize, boolean deflate, boolean resetPerMessage) {
        this.listener = listener;
        this.maxMessageSize = maxMessageSize;
        this.inflates = deflate;
        this.resetPerMessage = resetPerMessage;
    }

    @Override
    public void dataFrame(int opcode, boolean fin, boolean rsv1, long length) {
        if (opcode == CONTINUATION) {
            if (messageOpcode == CONTINUATION) {
                throw new WebSocketException(PROTOCOL_ERROR, "a continuation frame with no message to continue");
            }
        } else {
            if (messageOpcode != CONTINUATION) {
                throw new WebSocketException(PROTOCOL_ERROR, "a new message before the fragmented one ended");
            }
            messageOpcode = opcode;
            size = 0;
            if (opcode == TEXT && utf8 == null) {
                utf8 = new Utf8Validator();
            } else if (opcode == TEXT) {
                utf8.reset();
            }
            compressed = rsv1;
            if (rsv1 && !inflates) {
                throw new WebSocketException(PROTOCOL_ERROR, "a compressed message without permessage-deflate");
            }
            if (rsv1 && inflater == null) {
                inflater = new Inflater(true);
            }
        }
        if (!compressed && size + length > maxMessageSize) {
            throw new WebSocketException(MESSAGE_TOO_BIG, "a message of more than " + maxMessageSize + " bytes");
        }
        finalFrame = fin;
    }

    @Override
    public void data(ByteBuffer payload) {
        if (compressed) {
            inflate(payload);
            return;
        }
        int n = payload.remaining();
        if (messageOpcode == TEXT && !utf8.accept(payload)) {
            throw new WebSocketException(INVALID_PAYLOAD, "a text message that is not UTF-8");
        }
        if (message.length < size + n) {
            // grown as bytes arrive, not as frames announce them: a peer that announces much and sends little holds little
            message = Arrays.copyOf(message, (int) Math.min(maxMessageSize, Math.max(size + n, Math.max(256, 2L * message.length))));
        }
        payload.get(message, size, n);
        size += n;
    }

    /** Inflates all of {@code input} into the message, checking the limit and the text's UTF-8 as bytes come out. */
    private void inflate(ByteBuffer input) {
        inflater.setInput(input);
        try {
            while (true) {
                if (size == message.length) {
                    if (message.length >= maxMessageSize) {
                        // one byte more than the limit allows, in a message at the limit only
                        if (inflater.inflate(new byte[1]) > 0) {
                            throw new WebSocketException(MESSAGE_TOO_BIG, "a message inflating to more than " + maxMessageSize + " bytes");
                        }
                        break;
                    }
                    message = Arrays.copyOf(message, (int) Math.min(maxMessageSize, Math.max(256, 2L * message.length)));
                }
                int n = inflater.inflate(message, size, message.length - size);
                if (n == 0) {
                    if (inflater.needsInput() || inflater.finished()) {
                        break;
                    }
                    throw new WebSocketException(INVALID_PAYLOAD, "a compressed message that asks for a preset dictionary");
                }
                if (messageOpcode == TEXT && !utf8.accept(message, size, n)) {
                    throw new WebSocketException(INVALID_PAYLOAD, "a text message that is not UTF-8");
                }
                size += n;
            }
        } catch (DataFormatException e) {
            throw new WebSocketException(INVALID_PAYLOAD, "a compressed message that is not deflate data");
        }
    }

    @Override
    public void dataEnd() {
        if (!finalFrame) {
            return;
        }
        if (compressed) {
            inflate(ByteBuffer.wrap(PerMessageDeflate.TAIL));
            // a peer that ended its deflate stream (BFINAL) starts a new one with its next message
            if (resetPerMessage) {
                inflater.end();
                inflater = null;
            } else if (inflater.finished()) {
                inflater.reset();
            }
        }
        int opcode = messageOpcode;
        messageOpcode = CONTINUATION;
        if (opcode == TEXT) {
            if (!utf8.complete()) {
                throw new WebSocketException(INVALID_PAYLOAD, "a text message that ends inside a UTF-8 sequence");
            }
            // checked above: decoding cannot meet a malformed sequence
            String text = new String(message, 0, size, StandardCharsets.UTF_8);
            release();
            listener.text(text);
        } else if (opcode == BINARY) {
            listener.binary(ByteBuffer.wrap(message, 0, size));
            release();
        }
    }

    /** The connection is over: the inflater's native memory goes now, not when a collection finds it. */
    void close() {
        if (inflater != null) {
            inflater.end();
            inflater = null;
        }
        message = NONE;
    }

    private void release() {
        if (message.length > RETAINED) {
            message = NONE;
        }
        size = 0;
    }

    @Override
    public void control(int opcode, ByteBuffer payload) {
        if (opcode == PING) {
            listener.ping(payload);
        } else if (opcode == CLOSE) {
            close(payload);
        } else {
            listener.pong(payload);
        }
    }

    private void close(ByteBuffer payload) {
        int length = payload.remaining();
        if (length == 0) {
            listener.close(NO_STATUS, "");
            return;
        }
        if (length == 1) {
            throw new WebSocketException(PROTOCOL_ERROR, "a close frame with a one-byte payload");
        }
        int code = payload.getShort(payload.position()) & 0xFFFF;
        if (!WebSocketFrames.sendable(code)) {
            throw new WebSocketException(PROTOCOL_ERROR, "close code " + code + " is not one a peer may send");
        }
        listener.close(code, WebSocketFrames.reason(payload));
    }
}
