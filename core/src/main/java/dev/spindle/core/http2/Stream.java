// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.RequestBody;
import dev.spindle.core.exchange.Exchange;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One HTTP/2 stream on the server's side: the request as it arrives (its header fields and a
 * buffered body in one array, as {@link RequestState} reads them), the handler's run, the
 * response being sent, and both flow-control windows. A connection reuses finished streams, so a
 * connection that serves one request after another allocates no new ones.
 */
final class Stream {
    /** Stream states as RFC 9113 5.1 names them, for a server that never pushes (no reserved states). */
    enum State { OPEN, HALF_CLOSED_REMOTE, HALF_CLOSED_LOCAL, CLOSED }

    private static final int INITIAL_BYTES = 256;

    int id;
    State state;
    /** The request; replaced only by the one that upgraded an HTTP/1.1 connection ({@link #adopt}). */
    RequestState request = new RequestState();
    /** The response of an inline handler (a deferred one fills its exchange's). */
    final ResponseState response = new ResponseState();
    /** The header fields, then a buffered body; {@link #length} bytes are used. */
    byte[] bytes = new byte[INITIAL_BYTES];
    private MemorySegment segment = MemorySegment.ofArray(bytes);
    int length;
    /** Where a buffered body starts in {@link #bytes}, or -1 before the header block ended. */
    int bodyStart = -1;
    /** Bytes of body this stream's buffer holds against the server's budget. */
    long budgeted;
    /** The declared content-length, or -1. */
    long contentLength = -1;
    /** The most body a streamed request may bring (the route's streamed limit). */
    long bodyLimit = Long.MAX_VALUE;
    /** The streamed body was failed (over its limit): what still arrives is dropped. */
    boolean bodyFailed;
    /** DATA payload received (without padding). */
    long received;
    /** When the request last made progress (opened, or DATA arrived), for a streamed body's stall. */
    long activeAt;
    /** When the stream opened: its request must be whole within the header timeout of it. */
    long openedAt;
    /** The request's header block arrived, and the request was dispatched or is being buffered. */
    boolean headersDone;
    /** The request carried an {@code expect} other than {@code 100-continue}: answered 417. */
    boolean unsupportedExpectation;

    /** Our receive window: how many more DATA octets the peer may send on this stream. */
    int receiveWindow;
    /** Octets consumed that the peer has not been given back with a WINDOW_UPDATE yet. */
    int unacknowledged;
    /** The peer's window for what we send on this stream; may go negative after a SETTINGS change. */
    long sendWindow;

    /** The request body streamed to its handler as DATA arrives, or null when buffered. */
    RequestBody streamed;
    /** DATA the streamed body's consumer has not taken yet: bounded by the receive window. */
    byte[] pending;
    int pendingStart;
    int pendingEnd;

    /** A blocking or asynchronous handler in flight, or null. */
    Exchange exchange;
    long handlerStarted;

    /** The response's body, being sent in DATA frames as the windows allow; null when none is left. */
    byte[] out;
    int outPos;
    int outEnd;
    /** A streamed response body still being read, or null. */
    OutgoingData source;
    /** Its chunk: the part read and not yet sent lies in {@link #out}. */
    byte[] chunk;
    /** What {@code Response.sent()} handed out for the streamed body, or null. */
    java.util.concurrent.CompletableFuture<Long> sent;
    /** Whether the response's HEADERS went out (its body may still be sending). */
    boolean answered;
    /** The listeners heard that this stream's exchange began. */
    boolean started;
    /** This stream's answer's end record, reported when END_STREAM goes out or the stream closes first; null when nobody listens. */
    dev.spindle.core.exchange.EndRecord end;
    /** The WebSocket this stream carries after an extended CONNECT was answered (RFC 8441), or null. */
    dev.spindle.core.websocket.WebSocketConnection webSocket;
    /** Octets the WebSocket took while it was behind, not yet given back to the stream's window. */
    int webSocketOwed;
    /** Linked in the connection's round-robin of streams with DATA to send. */
    boolean queued;
    Stream nextQueued;

    void open(int id, int receiveWindow, long sendWindow, long now) {
        this.id = id;
        this.state = State.OPEN;
        this.receiveWindow = receiveWindow;
        this.sendWindow = sendWindow;
        this.activeAt = now;
        this.openedAt = now;
    }

    /** Takes over a request parsed by HTTP/1.1 (h2c upgrade: it becomes stream 1, its body already whole). */
    void adopt(RequestState upgraded) {
        request = upgraded;
        headersDone = true;
        state = State.HALF_CLOSED_REMOTE;
        bodyStart = upgraded.bodyStart;
    }

    /** Clears everything of the last request, keeping the arrays for the next stream. */
    void recycle() {
        id = 0;
        state = State.CLOSED;
        request.reset();
        response.reset();
        length = 0;
        bodyStart = -1;
        budgeted = 0;
        contentLength = -1;
        received = 0;
        bodyLimit = Long.MAX_VALUE;
        bodyFailed = false;
        headersDone = false;
        unsupportedExpectation = false;
        unacknowledged = 0;
        streamed = null;
        pendingStart = 0;
        pendingEnd = 0;
        exchange = null;
        handlerStarted = 0;
        out = null;
        outPos = 0;
        outEnd = 0;
        answered = false;
        started = false;
        end = null;
        source = null;
        sent = null;
        webSocket = null;
        webSocketOwed = 0;
        queued = false;
        nextQueued = null;
        if (bytes.length > 64 * 1024) {
            bytes = new byte[INITIAL_BYTES];
            segment = MemorySegment.ofArray(bytes);
        }
        if (pending != null && pending.length > 64 * 1024) {
            pending = null;
        }
    }

    /** The request is answered and nothing refers to its array any more: a grown one goes. */
    void releaseRequestBytes() {
        if (bytes.length > INITIAL_BYTES) {
            request.data = null;
            request.array = null;
            bytes = new byte[INITIAL_BYTES];
            segment = MemorySegment.ofArray(bytes);
            length = 0;
        }
    }

    /** Makes room for {@code n} more bytes in {@link #bytes}. */
    void ensure(int n) {
        if (bytes.length - length >= n) {
            return;
        }
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
        segment = MemorySegment.ofArray(bytes);
    }

    /** Moves {@code bytes[at, at + n)} to the front, shifting what was before it (a method only known by name must lie at 0). */
    void moveToFront(int at, int n) {
        byte[] moved = Arrays.copyOfRange(bytes, at, at + n);
        System.arraycopy(bytes, 0, bytes, n, at);
        System.arraycopy(moved, 0, bytes, 0, n);
        RequestState r = request;
        r.targetStart = shift(r.targetStart, at, n);
        r.targetEnd = shift(r.targetEnd, at, n);
        r.pathStart = shift(r.pathStart, at, n);
        r.pathEnd = shift(r.pathEnd, at, n);
        if (r.queryStart >= 0) {
            r.queryStart = shift(r.queryStart, at, n);
        }
        for (int i = 0; i < r.headerCount * 4; i++) {
            r.headers[i] = shift(r.headers[i], at, n);
        }
    }

    private static int shift(int offset, int at, int n) {
        return offset < at ? offset + n : offset;
    }

    /** Points the request at the array, now that the header fields are in it. */
    void publish() {
        request.array = bytes;
        request.data = segment;
        request.base = 0;
        bodyStart = length;
        request.bodyStart = length;
        request.bodyEnd = length;
    }

    /** Appends DATA to a buffered body. */
    void appendBody(java.nio.ByteBuffer data) {
        int n = data.remaining();
        ensure(n);
        data.get(bytes, length, n);
        length += n;
        request.array = bytes;
        request.data = segment;
        request.bodyEnd = length;
    }

    /** Keeps DATA the streamed body's consumer did not take. */
    void keep(java.nio.ByteBuffer data) {
        int n = data.remaining();
        if (pending == null) {
            pending = new byte[Math.max(n, 16 * 1024)];
        } else if (pending.length - pendingEnd < n) {
            int held = pendingEnd - pendingStart;
            byte[] target = pending.length - held >= n ? pending : new byte[Math.max(pending.length * 2, held + n)];
            System.arraycopy(pending, pendingStart, target, 0, held);
            pending = target;
            pendingStart = 0;
            pendingEnd = held;
        }
        data.get(pending, pendingEnd, n);
        pendingEnd += n;
    }

    int pendingBytes() {
        return pendingEnd - pendingStart;
    }

    /** Whether the request side is over: END_STREAM received, or the stream was reset. */
    boolean remoteClosed() {
        return state == State.HALF_CLOSED_REMOTE || state == State.CLOSED;
    }

    @Override
    public String toString() {
        return "stream " + id + " (" + state + ")";
    }
}
