// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One message to many sockets, encoded once: the frame a socket without compression receives, and
 * (made on first need) the compressed frame of those with permessage-deflate, which is the same
 * for all of them because the server never takes its context over from one message to the next.
 * Every socket's queue gets the same bytes, which the connections copy into their output.
 */
public final class Broadcast {
    private Broadcast() {
    }

    /** A message's frames, plain and compressed. */
    static final class Message {
        private final int opcode;
        private final byte[] payload;
        private final byte[] plain;
        private volatile byte[] compressed;

        Message(int opcode, byte[] payload) {
            this.opcode = opcode;
            this.payload = payload;
            this.plain = WebSocketFrames.frame(true, false, opcode, payload, null);
        }

        int opcode() {
            return opcode;
        }

        byte[] payload() {
            return payload;
        }

        byte[] plain() {
            return plain;
        }

        byte[] compressed() {
            byte[] frame = compressed;
            if (frame == null) {
                byte[] deflated = PerMessageDeflate.compress(payload, 0, payload.length);
                frame = WebSocketFrames.frame(true, true, opcode, deflated, null);
                compressed = frame;
            }
            return frame;
        }
    }

    /**
     * Sends text to every socket.
     *
     * @param sockets the sockets
     * @param text the message
     * @return a stage completing with how many sockets it was written to
     */
    public static CompletionStage<Integer> text(Iterable<? extends WebSocket> sockets, CharSequence text) {
        return send(sockets, new Message(WebSocketFrames.TEXT, WebSocketFrames.utf8(text)));
    }

    /**
     * Sends binary data to every socket.
     *
     * @param sockets the sockets
     * @param data the message, position to limit, copied once
     * @return a stage completing with how many sockets it was written to
     */
    public static CompletionStage<Integer> binary(Iterable<? extends WebSocket> sockets, ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.get(data.position(), bytes);
        return send(sockets, new Message(WebSocketFrames.BINARY, bytes));
    }

    private static CompletionStage<Integer> send(Iterable<? extends WebSocket> sockets, Message message) {
        AtomicInteger written = new AtomicInteger();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (WebSocket socket : sockets) {
            if (!socket.isOpen()) {
                continue;
            }
            CompletionStage<Void> sent = socket instanceof WebSocketConnection.Session session ? session.send(message)
                    : message.opcode == WebSocketFrames.TEXT ? socket.sendText(new String(message.payload, StandardCharsets.UTF_8))
                    : socket.sendBinary(ByteBuffer.wrap(message.payload));
            // a socket that fails (closed meanwhile, its queue full) is not counted, and holds no other back
            sends.add(sent.toCompletableFuture().handle((ok, failure) -> {
                if (failure == null) {
                    written.incrementAndGet();
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).thenApply(done -> written.get());
    }
}
