// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * A WebSocket connection's output, on the connection's thread: frames appended in the order they
 * go out, handed to the strategy as one buffer, and the stages of the sends among them, each due
 * once the strategy has reported its last byte written. The buffer is let go once everything in it
 * was written (unless it is small), and bytes that only go out now and then (the handshake's
 * response, a server's pings) are handed out from where they lie rather than copied into one, so
 * an idle connection holds no buffer.
 */
final class FrameOutput {
    private static final byte[] NONE = new byte[0];
    /** The largest buffer kept once everything in it was written. */
    private static final int RETAINED = 1024;
    /** A server's empty ping, unmasked: the same bytes on every socket. */
    private static final byte[] SERVER_PING = {(byte) (0x80 | WebSocketFrames.PING), 0};

    /** A send's stage, due once the byte at {@code end} of all appended ones is written; {@code queued} bytes of the send queue it held. */
    record Completion(long end, CompletableFuture<Void> done, int queued) {
    }

    private byte[] out = NONE;
    /** {@link #out} is someone else's array, handed out as it is: never written into, let go once written. */
    private boolean borrowed;
    private int start;
    private int end;
    private ByteBuffer view;
    /** Bytes ever appended, and ever reported written. */
    private long appended;
    private long taken;
    /** Made at the first send: a socket that only receives holds none. */
    private ArrayDeque<Completion> completions;
    /** A client's masking keys (one per frame); null on a server, whose frames are unmasked. */
    private final RandomGenerator mask;

    FrameOutput(RandomGenerator mask) {
        this.mask = mask;
    }

    int pending() {
        return end - start;
    }

    /** Appends a whole frame with {@code payload}, which is not consumed: masked with a fresh key on a client. */
    void frame(int opcode, ByteBuffer payload) {
        int length = payload.remaining();
        boolean masked = mask != null;
        ensure(WebSocketFrames.headerLength(length, masked) + length);
        ByteBuffer dst = ByteBuffer.wrap(out, end, out.length - end);
        int key = masked ? mask.nextInt() : 0;
        WebSocketFrames.writeHeader(dst, true, false, opcode, length, masked, key);
        int from = dst.position();
        dst.put(payload.duplicate());
        if (masked) {
            WebSocketFrames.mask(dst, from, dst.position(), key, 0);
        }
        advance(dst.position() - end);
    }

    /** Appends {@code bytes}, which nobody changes afterwards: into an empty output they go as they are, not copied. */
    void appendUnchanged(byte[] bytes) {
        if (pending() == 0 && bytes.length > 0) {
            out = bytes;
            view = null;
            borrowed = true;
            start = 0;
            end = 0;
            advance(bytes.length);
        } else {
            append(bytes);
        }
    }

    /** Appends an empty ping: a server's is the same two bytes on every socket, borrowed; a client's is masked afresh. */
    void ping() {
        if (mask == null) {
            appendUnchanged(SERVER_PING);
        } else {
            frame(WebSocketFrames.PING, ByteBuffer.wrap(NONE));
        }
    }

    private void append(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, out, end, bytes.length);
        advance(bytes.length);
    }

    /** Appends a sender's frame, whose stage completes once it is written. */
    void append(byte[] frame, CompletableFuture<Void> done, int queued) {
        append(frame);
        if (completions == null) {
            completions = new ArrayDeque<>(4);
        }
        completions.add(new Completion(appended, done, queued));
    }

    private void advance(int n) {
        end += n;
        appended += n;
    }

    private void ensure(int room) {
        if (!borrowed && out.length - end >= room) {
            return;
        }
        int pending = pending();
        byte[] target = !borrowed && pending + room <= out.length ? out : new byte[Math.max(pending + room, Math.max(256, 2 * out.length))];
        System.arraycopy(out, start, target, 0, pending);
        out = target;
        borrowed = false;
        start = 0;
        end = pending;
    }

    /** {@return the pending bytes, position to limit; valid until the next append or written} */
    ByteBuffer outbound() {
        if (view == null || view.array() != out) {
            view = ByteBuffer.wrap(out);
        }
        return view.limit(end).position(start);
    }

    /** The strategy wrote {@code bytes} of what {@link #outbound()} handed out. */
    void written(int bytes) {
        if (bytes > pending()) {
            throw new IllegalArgumentException("written " + bytes + " bytes of " + pending() + " pending");
        }
        start += bytes;
        taken += bytes;
        if (start == end) {
            start = 0;
            end = 0;
            if (borrowed || out.length > RETAINED) {
                out = NONE;
                view = null;
                borrowed = false;
            }
        }
    }

    /** {@return the next send whose frame is all written, taken off the list; null when none is} */
    Completion due() {
        Completion c = completions == null ? null : completions.peek();
        return c != null && c.end() <= taken ? completions.poll() : null;
    }

    /** The connection is over: sends not yet written fail with {@code why}, and the buffer goes. */
    void release(Exception why) {
        Completion c;
        while (completions != null && (c = completions.poll()) != null) {
            c.done().completeExceptionally(why);
        }
        out = NONE;
        view = null;
        borrowed = false;
        start = 0;
        end = 0;
    }
}
