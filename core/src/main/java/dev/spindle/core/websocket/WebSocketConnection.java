// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static dev.spindle.core.websocket.WebSocketFrames.BINARY;
import static dev.spindle.core.websocket.WebSocketFrames.CLOSE;
import static dev.spindle.core.websocket.WebSocketFrames.GOING_AWAY;
import static dev.spindle.core.websocket.WebSocketFrames.INTERNAL_ERROR;
import static dev.spindle.core.websocket.WebSocketFrames.MAX_CONTROL_PAYLOAD;
import static dev.spindle.core.websocket.WebSocketFrames.NO_STATUS;
import static dev.spindle.core.websocket.WebSocketFrames.PING;
import static dev.spindle.core.websocket.WebSocketFrames.POLICY_VIOLATION;
import static dev.spindle.core.websocket.WebSocketFrames.PONG;
import static dev.spindle.core.websocket.WebSocketFrames.TEXT;

import dev.spindle.core.Request;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection that speaks WebSocket after its opening handshake, without I/O, as the HTTP
 * connections do: the strategy feeds it bytes and writes what it hands out. Input goes through a
 * {@link FrameReader} and a {@link MessageReader} to the endpoint's callbacks, on the connection's
 * thread; a ping is answered with a pong. Sends come from any thread into a queue bounded by
 * {@link WebSocket.Options#maxQueuedBytes()} (the wakeup brings them to the connection's thread),
 * are copied into the output up to the write high-water mark, and complete their stage once the
 * strategy reports their bytes written. It keeps the socket's time: pings on a quiet connection,
 * the idle timeout, the closing handshake's timeout, the write timeout, and the linger after its
 * close frame (the server closes the TCP connection first, RFC 6455 7.1.1).
 */
public final class WebSocketConnection implements LayeredConnection, MessageReader.Listener {
    private static final Logger log = LoggerFactory.getLogger(WebSocketConnection.class);
    private static final byte[] NONE = new byte[0];

    private final ServerConfig config;
    private final WebSocket.Endpoint endpoint;
    private final WebSocket.Options options;
    private final Runnable wakeup;
    private final FrameReader frames;
    private final MessageReader messages;
    private final Session session;
    /** Whether permessage-deflate was agreed: messages go out compressed (by a pooled compressor). */
    private final boolean deflate;
    private final int highWater;
    /** A client's masking keys (RFC 6455 5.3), null on a server: outgoing frames are masked, incoming ones must not be. */
    private final RandomGenerator mask;
    private final FrameOutput output;

    /** Sends from any thread, bounded by the route's {@code maxQueuedBytes}. */
    private final SendQueue queue;
    /** The thread inside one of the connection's calls, which pulls the queue before it returns (no wakeup needed). */
    private volatile Thread inside;
    private volatile boolean overflowed;
    private volatile boolean draining;
    /** The callbacks of a blocking endpoint, run in order on a virtual thread; null when they run inline. */
    private final EndpointEvents events;
    /** A blocking endpoint's callback threw: the connection closes with 1011. */
    private volatile boolean endpointFailed;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    private boolean closeSent;
    private boolean closeReceived;
    /** The input broke the protocol (or a callback failed): nothing more of it is read. */
    private boolean failed;
    private boolean inputEnded;
    private boolean aborted;
    private boolean reported;
    private boolean lingering, lingerDone;
    private long lastInput;
    private long lastOutputTaken;
    private long lastPing;
    private long closeSentAt, lingerStarted;

    /** A server's socket after {@code accept}'s handshake: {@code before} (the 101) goes out first; {@code wakeup} runs {@link #resume()} on its thread. */
    public WebSocketConnection(WebSocketAccept accept, RequestState request, ServerConfig config, Runnable wakeup, byte[] before) {
        this(accept.endpoint, accept.options, accept.subprotocol, accept.deflate != null,
                accept.deflate != null && accept.deflate.clientNoContextTakeover(), request.api, config, wakeup, before, null);
    }

    /** Either side: {@code mask} is a client's (its frames masked, the server's refused masked), null on a server. */
    WebSocketConnection(WebSocket.Endpoint endpoint, WebSocket.Options options, String subprotocol, boolean deflate,
            boolean inflateReset, Request request, ServerConfig config, Runnable wakeup, byte[] before, RandomGenerator mask) {
        this.config = config;
        boolean blocking = endpoint instanceof BlockingEndpoint;
        this.endpoint = blocking ? ((BlockingEndpoint) endpoint).delegate() : endpoint;
        this.options = options;
        this.wakeup = wakeup;
        this.highWater = config.writeHighWaterMark();
        this.mask = mask;
        this.output = new FrameOutput(mask);
        this.session = new Session(request, subprotocol);
        this.queue = new SendQueue(options.maxQueuedBytes());
        this.events = blocking ? new EndpointEvents(this.endpoint, session, Math.max(64 * 1024, Math.min(options.maxMessageSize(), 4L << 20)),
                this::wake, this::callbackFailed) : null;
        this.messages = new MessageReader(this, options.maxMessageSize(), deflate, inflateReset);
        this.frames = new FrameReader(messages, mask == null, options.maxMessageSize());
        if (deflate) {
            frames.allowRsv1();
        }
        this.deflate = deflate;
        long now = System.nanoTime();
        lastInput = now;
        lastOutputTaken = now;
        lastPing = now;
        output.appendUnchanged(before);
    }

    /**
     * The socket is open: tells the endpoint, then reads what the client sent behind its handshake.
     *
     * @param rest bytes received after the handshake request
     * @return what to do next
     */
    public Next open(byte[] rest) {
        enter();
        try {
            deliver((e, s) -> e.onOpen(s), 0);
            if (rest.length > 0) {
                read(ByteBuffer.wrap(rest));
            }
            pull();
            return next();
        } finally {
            leave();
        }
    }

    /** {@return the application's view of this socket} */
    public WebSocket socket() {
        return session;
    }

    private void enter() {
        inside = Thread.currentThread();
    }

    /** Every call that may run a callback pulls the queue before it leaves, so a send made inside needs no wakeup. */
    private void leave() {
        inside = null;
    }

    private void wake() {
        if (inside != Thread.currentThread() && queue.claimWakeup()) {
            wakeup.run();
        }
    }

    @Override
    public void transferFiles(boolean on) {
    }

    @Override
    public Next received(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return next();
        }
        enter();
        try {
            lastInput = System.nanoTime();
            if (failed || closeReceived || lingering || aborted) {
                src.position(src.limit());
            } else {
                // payloads are unmasked in place: read-only input is copied first
                read(src.isReadOnly() ? ByteBuffer.allocate(src.remaining()).put(src).flip() : src);
                src.position(src.limit());
            }
            pull();
            return next();
        } finally {
            leave();
        }
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        if (length == 0) {
            return next();
        }
        MemorySegment slice = memory.asSlice(offset, length);
        return received(memory.isReadOnly() ? ByteBuffer.wrap(slice.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)) : slice.asByteBuffer());
    }

    private void read(ByteBuffer src) {
        try {
            frames.read(src);
        } catch (WebSocketException e) {
            log.debug("WebSocket protocol error ({}): {}", e.closeCode(), e.getMessage());
            fail(e.closeCode(), e.getMessage());
        }
    }

    @Override
    public void text(String message) {
        if (delivering()) {
            deliver((e, s) -> e.onText(s, message), 2L * message.length());
        }
    }

    @Override
    public void binary(ByteBuffer message) {
        if (delivering()) {
            ByteBuffer m = copied(message);
            deliver((e, s) -> e.onBinary(s, m), m.remaining());
        }
    }

    @Override
    public void ping(ByteBuffer payload) {
        if (!delivering()) {
            return;
        }
        if (!closeSent) {
            output.frame(PONG, payload);
        }
        ByteBuffer p = copied(payload);
        deliver((e, s) -> e.onPing(s, p), p.remaining());
    }

    @Override
    public void pong(ByteBuffer payload) {
        if (delivering()) {
            ByteBuffer p = copied(payload);
            deliver((e, s) -> e.onPong(s, p), p.remaining());
        }
    }

    @Override
    public void close(int code, String reason) {
        if (!delivering()) {
            return;
        }
        closeReceived = true;
        if (!closeSent) {
            // echo the code (RFC 6455 5.5.1); none when the client sent none
            queue.seal(new IllegalStateException("the client closed the WebSocket"));
            byte[] payload = code == NO_STATUS ? NONE : WebSocketFrames.closePayload(code, null);
            output.frame(CLOSE, ByteBuffer.wrap(payload));
            closeSent = true;
            closeSentAt = System.nanoTime();
        }
        report(code, reason);
    }

    private boolean delivering() {
        return !failed && !closeReceived && !aborted;
    }

    /** Fails the connection (RFC 6455 7.1.7): the close frame with {@code code}, nothing more read, then the TCP close. */
    private void fail(int code, String reason) {
        failed = true;
        if (!closeSent) {
            queue.seal(new IllegalStateException("the WebSocket was closed: " + reason));
            output.frame(CLOSE, ByteBuffer.wrap(WebSocketFrames.closePayload(code, reason)));
            closeSent = true;
            closeSentAt = System.nanoTime();
        }
        report(code, reason);
    }

    /** A callback failed (on the connection's thread, or else the endpoint's): onError, then a 1011 close. */
    private void callbackFailed(Throwable t) {
        log.warn("a WebSocket endpoint callback failed; closing the socket (1011)", t);
        try {
            endpoint.onError(session, t);
        } catch (Throwable again) {
            log.warn("the WebSocket endpoint's onError failed too", again);
        }
        if (events == null) {
            fail(INTERNAL_ERROR, "internal error");
        } else {
            endpointFailed = true;
            wake();
        }
    }

    private void deliver(EndpointEvents.Callback callback, long bytes) {
        if (events != null) {
            events.add(callback, bytes);
            return;
        }
        try {
            callback.run(endpoint, session);
        } catch (Throwable t) {
            callbackFailed(t);
        }
    }

    /** A payload that outlives the call when the endpoint's thread reads it later; inline, the reader's own view serves. */
    private ByteBuffer copied(ByteBuffer payload) {
        return events == null ? payload : EndpointEvents.copy(payload);
    }

    /** Tells the endpoint the socket closed, once. */
    private void report(int code, String reason) {
        if (reported) {
            return;
        }
        reported = true;
        EndpointEvents.Callback close = (e, s) -> {
            try {
                e.onClose(s, code, reason);
            } catch (Throwable t) {
                log.warn("a WebSocket endpoint's onClose failed", t);
            }
        };
        if (events != null) {
            events.add(close, 0);
        } else {
            try {
                close.run(endpoint, session);
            } catch (Exception impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }

    /** Moves queued sends into the output, up to the high-water mark; acts on an overflow or a drain first. */
    private void pull() {
        if (endpointFailed && !closeSent) {
            fail(INTERNAL_ERROR, "internal error");
        }
        if (overflowed && !closeSent) {
            log.debug("a WebSocket client reads too slowly for its {} queued bytes; closing it", options.maxQueuedBytes());
            // a close frame would wait behind what the client is not reading: the connection ends now
            queue.seal(new IllegalStateException("the WebSocket was closed: the client reads too slowly"));
            report(POLICY_VIOLATION, "the client reads too slowly");
            aborted = true;
            return;
        }
        if (draining && !closeSent) {
            queueClose(GOING_AWAY, "the server is shutting down");
        }
        while (output.pending() < highWater) {
            SendQueue.Outgoing o = queue.poll();
            if (o == null) {
                return;
            }
            output.append(o.frame(), o.done(), o.close() ? 0 : o.frame().length);
            if (o.close()) {
                closeSent = true;
                closeSentAt = System.nanoTime();
            }
        }
    }

    /** Queues a close frame behind the sends already queued (the application's close, idle, shutdown). */
    private CompletableFuture<Void> queueClose(int code, String reason) {
        byte[] frame = WebSocketFrames.frame(true, false, CLOSE, WebSocketFrames.closePayload(code, reason), mask);
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!queue.offerClose(frame, done)) {
            done.complete(null);
            return done;
        }
        wake();
        return done;
    }

    @Override
    public Next endOfInput() {
        enter();
        try {
            inputEnded = true;
            queue.seal(new IllegalStateException("the client went away"));
            if (!closeReceived && !failed) {
                report(WebSocketFrames.ABNORMAL_CLOSURE, "the connection ended without a close frame");
            }
            return next();
        } finally {
            leave();
        }
    }

    @Override
    public Next resume() {
        queue.woke();
        enter();
        try {
            pull();
            return next();
        } finally {
            leave();
        }
    }

    @Override
    public Next next() {
        if (aborted) {
            return Next.CLOSE;
        }
        int pending = output.pending();
        if (closeSent && (closeReceived || failed) && pending == 0) {
            if (inputEnded || lingerDone) {
                return Next.CLOSE;
            }
            if (!lingering) {
                lingering = true;
                lingerStarted = System.nanoTime();
            }
            return Next.LINGER;
        }
        if (inputEnded) {
            return pending > 0 && closeSent ? Next.WRITE : Next.CLOSE;
        }
        // a blocking endpoint behind on its messages holds the input back
        return Next.of(pending < highWater && (events == null || !events.full()), pending > 0);
    }

    @Override
    public State state() {
        if (aborted || (lingerDone && !hasOutbound())) {
            return State.CLOSED;
        }
        if (lingering) {
            return State.LINGERING;
        }
        // any thread may send on an open socket, while the strategy reads
        return closeSent ? State.CLOSING : State.DUPLEX;
    }

    @Override
    public ByteBuffer outbound() {
        return output.outbound();
    }

    @Override
    public FileRegion outboundFile() {
        return null;
    }

    @Override
    public Next written(int bytes) {
        if (bytes == 0) {
            return next();
        }
        output.written(bytes);
        enter();
        try {
            lastOutputTaken = System.nanoTime();
            for (FrameOutput.Completion c = output.due(); c != null; c = output.due()) {
                // the room is free before the stage's dependents run, which may send again
                queue.released(c.queued());
                c.done().complete(null);
            }
            pull();
            return next();
        } finally {
            leave();
        }
    }

    @Override
    public void closeAfterResponse() {
        // no responses here: a server shedding load keeps its open sockets
    }

    @Override
    public void drain() {
        draining = true;
        wake();
    }

    @Override
    public Next tick(long now) {
        enter();
        try {
            if (aborted) {
                return Next.CLOSE;
            }
            if (output.pending() > 0 && now - lastOutputTaken >= config.writeTimeout().toNanos()) {
                log.debug("WebSocket write timeout: the client took no output for {}", config.writeTimeout());
                abort();
                return Next.CLOSE;
            }
            if (lingering) {
                lingerDone = now - Math.max(lingerStarted, lastInput) >= Deadlines.LINGER_NANOS
                        || now - lingerStarted >= Deadlines.LINGER_MAX_NANOS;
            } else if (closeSent) {
                // once the client's close is in, only the write timeout bounds the echo: a strategy
                // that writes asynchronously (io_uring) may tick before the echo's send completes
                if (!closeReceived && now - closeSentAt >= options.closeTimeout().toNanos()) {
                    log.debug("a WebSocket client did not answer the close frame within {}", options.closeTimeout());
                    abort();
                    return Next.CLOSE;
                }
            } else {
                long idle = options.idleTimeout().toNanos();
                long ping = options.pingInterval().toNanos();
                if (idle > 0 && now - lastInput >= idle) {
                    queueClose(GOING_AWAY, "idle timeout");
                } else if (ping > 0 && now - Math.max(lastInput, lastPing) >= ping) {
                    lastPing = now;
                    output.ping();
                }
            }
            pull();
            return next();
        } finally {
            leave();
        }
    }

    @Override
    public long nanosToTick(long now) {
        long due = Long.MAX_VALUE;
        if (output.pending() > 0) {
            due = Math.min(due, lastOutputTaken + config.writeTimeout().toNanos());
        }
        if (lingering) {
            due = Math.min(due, Math.min(Math.max(lingerStarted, lastInput) + Deadlines.LINGER_NANOS,
                    lingerStarted + Deadlines.LINGER_MAX_NANOS));
        } else if (closeSent && !closeReceived) {
            due = Math.min(due, closeSentAt + options.closeTimeout().toNanos());
        } else if (!closeSent) {
            long idle = options.idleTimeout().toNanos();
            long ping = options.pingInterval().toNanos();
            if (idle > 0) {
                due = Math.min(due, lastInput + idle);
            }
            if (ping > 0) {
                due = Math.min(due, Math.max(lastInput, lastPing) + ping);
            }
        }
        return due == Long.MAX_VALUE ? java.util.concurrent.TimeUnit.SECONDS.toNanos(1) : Math.max(1, due - now);
    }

    @Override
    public void closed() {
        queue.seal(new IllegalStateException("the WebSocket connection is closed"));
        output.release(new IllegalStateException("the WebSocket connection closed before the message was written"));
        report(WebSocketFrames.ABNORMAL_CLOSURE, "the connection was closed");
        messages.close();
        ended.complete(null);
    }

    @Override
    public void inputActivity() {
        lastInput = System.nanoTime();
    }

    @Override
    public void outputActivity() {
        lastOutputTaken = System.nanoTime();
    }

    @Override
    public void refuse(int status, String message) {
        // the handshake is over: the peer spoke WebSocket-over-TLS, so this cannot happen
    }

    @Override
    public void inputFailed() {
        endOfInput();
    }

    @Override
    public boolean hasOutbound() {
        return output.pending() > 0;
    }

    @Override
    public boolean outputFinished() {
        return closeSent && output.pending() == 0 && (closeReceived || failed || inputEnded);
    }

    @Override
    public boolean aborted() {
        return aborted;
    }

    @Override
    public void abort() {
        if (!aborted) {
            aborted = true;
            report(WebSocketFrames.ABNORMAL_CLOSURE, "the connection was aborted");
        }
    }

    @Override
    public void applicationProtocol(String protocol) {
    }

    @Override
    public String toString() {
        return "WebSocketConnection[" + (session.request == null ? "client" : session.request.path()) + (closeSent ? ", closing" : "") + "]";
    }

    /** The application's view of the socket. */
    final class Session implements WebSocket {
        final Request request;
        final String subprotocol;
        private volatile Object attachment;

        Session(Request request, String subprotocol) {
            this.request = request;
            this.subprotocol = subprotocol;
        }

        @Override
        public CompletionStage<Void> sendText(CharSequence text) {
            return send(TEXT, WebSocketFrames.utf8(text));
        }

        @Override
        public CompletionStage<Void> sendBinary(ByteBuffer data) {
            byte[] bytes = new byte[data.remaining()];
            data.get(data.position(), bytes);
            return send(BINARY, bytes);
        }

        @Override
        public CompletionStage<Void> ping(ByteBuffer payload) {
            if (payload.remaining() > MAX_CONTROL_PAYLOAD) {
                throw new IllegalArgumentException("a ping carries at most 125 bytes, got " + payload.remaining());
            }
            byte[] bytes = new byte[payload.remaining()];
            payload.get(payload.position(), bytes);
            return enqueue(WebSocketFrames.frame(true, false, PING, bytes, mask));
        }

        /** A message a {@link Broadcast} encoded once: its frame as this socket agreed to receive it. */
        CompletionStage<Void> send(Broadcast.Message message) {
            // a client masks each frame with its own key, so nothing encoded once serves it
            return mask != null ? send(message.opcode(), message.payload()) : enqueue(deflate ? message.compressed() : message.plain());
        }

        private CompletionStage<Void> send(int opcode, byte[] payload) {
            if (deflate) {
                byte[] compressed = PerMessageDeflate.compress(payload, 0, payload.length);
                return enqueue(WebSocketFrames.frame(true, true, opcode, compressed, mask));
            }
            return enqueue(WebSocketFrames.frame(true, false, opcode, payload, mask));
        }

        private CompletionStage<Void> enqueue(byte[] frame) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            switch (queue.offer(frame, done)) {
                case SEALED -> done.completeExceptionally(new IllegalStateException("the WebSocket is closed"));
                case FULL -> {
                    overflowed = true;
                    done.completeExceptionally(new IllegalStateException("the WebSocket's send queue is full ("
                            + options.maxQueuedBytes() + " bytes): the client reads too slowly, and is closed"));
                }
                case QUEUED -> { }
            }
            wake();
            return done;
        }

        @Override
        public CompletionStage<Void> close(int code, String reason) {
            queueClose(code, reason);
            return ended;
        }

        @Override
        public boolean isOpen() {
            return !queue.sealed();
        }

        @Override
        public String subprotocol() {
            return subprotocol;
        }

        @Override
        public Request request() {
            return request;
        }

        @Override
        public CompletionStage<Void> closed() {
            return ended;
        }

        @Override
        public void attach(Object value) {
            attachment = value;
        }

        @Override
        public Object attachment() {
            return attachment;
        }

        @Override
        public String toString() {
            return WebSocketConnection.this.toString();
        }
    }
}
