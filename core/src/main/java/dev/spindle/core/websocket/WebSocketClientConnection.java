// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.WebSocket;
import dev.spindle.core.bytes.HeadCollector;
import dev.spindle.core.bytes.OutputBuffer;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.tls.TlsFailure;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client side of a WebSocket without any I/O: the opening handshake (RFC 6455 4.1: the
 * request, then the 101's checks), then the server's own engine, {@link WebSocketConnection}, in
 * client mode, to which every call goes from then on. Whoever opened the socket drives it as an
 * {@link OutboundConnection}: an event loop on its own outbound socket, or {@link dev.spindle.core.client.SocketDriver} on a
 * blocking one. The connect and the handshake together are bounded by the request's connect
 * timeout, counted from this connection's creation; a failure before the 101 fails the result with
 * a {@link ClientException} and answers {@link Next#CLOSE}.
 */
final class WebSocketClientConnection implements OutboundConnection {
    private static final ServerConfig ENGINE = ServerConfig.defaults();
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private static final long NO_DEADLINE_TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final WebSocketClient.Target target;
    private final WebSocketClient.Request request;
    private final WebSocket.Endpoint endpoint;
    private final CompletableFuture<WebSocket> result;
    private final Runnable wakeup;
    private final SecureRandom random = new SecureRandom();
    private final String key;
    private final long deadline;
    private final boolean bounded;
    /** The handshake request until it has all gone. */
    private OutputBuffer handshake;
    /** Handshake bytes handed out and not yet reported written when the engine took over. */
    private int handshakeUnreported;
    private HeadCollector head = new HeadCollector();
    private boolean connected;
    private boolean over;
    /** The engine once the 101 was accepted; every call goes to it from then on. */
    private volatile WebSocketConnection engine;

    /**
     * A connection that has not connected yet.
     *
     * @param target where to, from the request's URI
     * @param request the handshake's URI, headers, options and connect timeout
     * @param endpoint the socket's callbacks
     * @param result completes with the socket once the 101 was accepted and onOpen ran
     * @param wakeup the engine's wakeup, from any thread: makes the driver call {@link #resume()} on
     *        this connection's thread (on what it drives: TLS around this one, for {@code wss:})
     */
    WebSocketClientConnection(WebSocketClient.Target target, WebSocketClient.Request request, WebSocket.Endpoint endpoint,
            CompletableFuture<WebSocket> result, Runnable wakeup) {
        this.target = target;
        this.request = request;
        this.endpoint = endpoint;
        this.result = result;
        this.wakeup = wakeup;
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        this.key = java.util.Base64.getEncoder().encodeToString(nonce);
        long timeout = request.connectTimeout().toNanos();
        this.bounded = timeout > 0;
        this.deadline = System.nanoTime() + timeout;
        byte[] bytes = WebSocketClient.handshake(target, key, request).getBytes(StandardCharsets.ISO_8859_1);
        this.handshake = new OutputBuffer(bytes.length);
        handshake.put(bytes);
    }

    @Override
    public Next connected() {
        connected = true;
        return next();
    }

    /** Also once open, when TLS around it failed ({@link TlsFailure}): the socket ends. */
    @Override
    public Next connectFailed(IOException cause) {
        if (engine != null) {
            engine.abort();
            return Next.CLOSE;
        }
        if (!over) {
            if (cause instanceof TlsFailure tls) {
                fail(tls.reason(), tls.getMessage(), cause);
            } else {
                fail(Reason.CONNECT_FAILED, "could not connect: " + cause, cause);
            }
        }
        return Next.CLOSE;
    }

    @Override
    public void transferFiles(boolean on) {
    }

    @Override
    public Next received(ByteBuffer src) {
        if (engine != null) {
            return engine.received(src);
        }
        if (over) {
            src.position(src.limit());
            return Next.CLOSE;
        }
        HeadCollector.Head answer;
        try {
            answer = head.collect(src);
        } catch (HeadCollector.TooLarge e) {
            fail(Reason.MALFORMED_RESPONSE, "the handshake's answer has " + e.getMessage(), null);
            return Next.CLOSE;
        }
        return answer == null ? next() : answered(answer);
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        if (engine != null) {
            return engine.received(memory, offset, length);
        }
        return OutboundConnection.super.received(memory, offset, length);
    }

    /** The 101 (or a refusal) arrived whole: checks it, then opens the engine on what followed it. */
    private Next answered(HeadCollector.Head answer) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        String status = WebSocketClient.parseHead(answer.text(), fields);
        head = null;
        WebSocketClient.Refusal refused = WebSocketClient.checkStatus(status);
        if (refused != null) {
            fail(refused.reason(), refused.detail(), null);
            return Next.CLOSE;
        }
        WebSocket.Options options = request.options();
        String invalid = WebSocketClient.invalid(fields, key, options);
        if (invalid != null) {
            fail(Reason.HANDSHAKE_FAILED, "invalid handshake answer (101): " + invalid, null);
            return Next.CLOSE;
        }
        List<String> protocol = fields.getOrDefault("sec-websocket-protocol", List.of());
        List<String> extensions = fields.getOrDefault("sec-websocket-extensions", List.of());
        boolean deflate = !extensions.isEmpty();
        boolean inflateReset = deflate && WebSocketClient.hasParam(extensions.getFirst(), "server_no_context_takeover");
        // a driver that writes outside its lock may report the handshake's last bytes written after the answer came
        handshakeUnreported = pending();
        handshake = null;
        engine = new WebSocketConnection(endpoint, options, protocol.isEmpty() ? null : protocol.getFirst().trim(),
                deflate, inflateReset, null, ENGINE, wakeup, new byte[0], random);
        Next next = engine.open(answer.rest());
        result.complete(engine.socket());
        return next;
    }

    private void fail(Reason reason, String detail, Throwable cause) {
        over = true;
        head = null;
        handshake = null;
        result.completeExceptionally(new ClientException(reason, target.authority(), target.describe(), detail, cause));
    }

    @Override
    public Next endOfInput() {
        if (engine != null) {
            return engine.endOfInput();
        }
        if (!over) {
            fail(Reason.CONNECTION_CLOSED, "the server closed the connection before answering the handshake", null);
        }
        return Next.CLOSE;
    }

    @Override
    public Next resume() {
        return engine != null ? engine.resume() : next();
    }

    @Override
    public Next next() {
        if (engine != null) {
            return engine.next();
        }
        if (over) {
            return Next.CLOSE;
        }
        if (!connected) {
            return Next.WAIT;
        }
        return Next.of(true, pending() > 0);
    }

    @Override
    public State state() {
        if (engine != null) {
            return engine.state();
        }
        if (over) {
            return State.CLOSED;
        }
        if (connected && pending() > 0) {
            return State.SENDING;
        }
        return head != null && head.started() ? State.READING_REQUEST : State.HANDLING;
    }

    @Override
    public ByteBuffer outbound() {
        if (engine != null) {
            return engine.outbound();
        }
        return connected && !over && handshake != null ? handshake.view() : NOTHING;
    }

    private int pending() {
        return handshake == null ? 0 : handshake.pending();
    }

    @Override
    public Next written(int bytes) {
        if (engine != null) {
            int handshakeBytes = Math.min(bytes, handshakeUnreported);
            handshakeUnreported -= handshakeBytes;
            return engine.written(bytes - handshakeBytes);
        }
        if (bytes == 0) {
            return next();
        }
        if (over) {
            // a driver writing outside its lock reports a write that finished after the connection failed
            return next();
        }
        if (!connected || bytes > pending()) {
            throw new IllegalArgumentException(bytes + " bytes reported written, " + pending() + " pending");
        }
        handshake.written(bytes);
        if (pending() == 0) {
            handshake = null;
        }
        return next();
    }

    @Override
    public void closeAfterResponse() {
    }

    /** Any thread: the engine sends its close (1001) once open; a handshake under way is not cut short. */
    @Override
    public void drain() {
        WebSocketConnection e = engine;
        if (e != null) {
            e.drain();
        }
    }

    @Override
    public Next tick(long now) {
        if (engine != null) {
            return engine.tick(now);
        }
        if (!over && bounded && now - deadline >= 0) {
            long millis = request.connectTimeout().toMillis();
            if (connected) {
                fail(Reason.RESPONSE_TIMEOUT, "no handshake answer within " + millis + " ms", null);
            } else {
                fail(Reason.CONNECT_TIMEOUT, "not connected within " + millis + " ms", null);
            }
        }
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        if (engine != null) {
            return engine.nanosToTick(now);
        }
        return bounded ? Math.max(1, deadline - now) : NO_DEADLINE_TICK_NANOS;
    }

    @Override
    public void closed() {
        if (engine != null) {
            engine.closed();
            return;
        }
        if (!over) {
            fail(Reason.CONNECTION_CLOSED, "the connection closed before the handshake was answered", null);
        }
    }

    @Override
    public String toString() {
        return "WebSocket client " + target.describe() + " to " + target.authority() + (engine == null ? " (handshake)" : "");
    }
}
