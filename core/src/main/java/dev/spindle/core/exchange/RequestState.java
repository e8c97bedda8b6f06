// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.exchange;

import dev.spindle.core.Method;
import dev.spindle.core.Request;
import dev.spindle.core.RequestBody;
import dev.spindle.core.bytes.Ascii;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What a protocol's parser reports about one request, and what {@link Request} reads: offsets into
 * the memory the request was parsed in (the connection's buffer, or the strategy's receive buffer),
 * decoded only when the application asks. The parser writes these fields; the application sees
 * them only through {@link #api}, whose methods decode them.
 */
public final class RequestState {
    /** {@link #version} of an HTTP/1.0 request. */
    public static final int HTTP_1_0 = 10;
    /** {@link #version} of an HTTP/1.1 request. */
    public static final int HTTP_1_1 = 11;
    /** {@link #version} of an HTTP/2 request. */
    public static final int HTTP_2 = 20;

    /** The application's view of this state. */
    public final Request api = ApiAccess.get().request(this);

    public MemorySegment data;
    /** The array behind {@link #data}, or null when it is native. */
    public byte[] array;
    public int base;
    public Method method;
    public int methodEnd;
    public int targetStart;
    public int targetEnd;
    public int pathStart;
    public int pathEnd;
    public int queryStart = -1;
    public int version;
    public int headerCount;
    public int[] headers;
    public int bodyStart;
    public int bodyEnd;
    public long contentLength = -1;
    public boolean chunked;
    public boolean connectionClose;
    public boolean connectionKeepAlive;
    public boolean expectContinue;
    /** The request asked to switch to h2c ({@code Upgrade: h2c}). */
    public boolean upgradeH2c;
    /** An HTTP/2 extended CONNECT's {@code :protocol} (RFC 8441), such as {@code websocket}; else null. */
    public String protocol;

    public Route route;
    /** The route's variables, offsets in pairs: room for a route's most (8), or as many as its route has once {@link #settled()}. */
    public int[] params;
    /** The body of a request dispatched before its body arrived, or null when the body is buffered (or absent). */
    public RequestBody streamed;
    /** Whether whole-body accessors may block reading {@link #streamed} (not on an event loop). */
    public boolean mayBlock;
    public byte[] streamedBytes;
    /** The last view {@code Request.body()} handed out: a response that sends it back may send it from where it lies. */
    public ByteBuffer bodyView;

    public String pathString;
    /** When the request's head was parsed ({@link System#nanoTime()}), if someone listens for its end; else 0. */
    public long startNanos;
    /** The {@code Request.onEnd} callbacks: null, one {@code Consumer}, or a list of them; guarded by this state's lock while its exchange may end on another thread. */
    public Object onEnd;
    /** How this request's exchange ended, once it has (a callback registered later is called at once); guarded by this state's lock. */
    public EndRecord endedWith;
    /** A copy made by {@link #detach()} for a handler off the connection's thread: it is not reused while its exchange lives. */
    public boolean detached;
    /** The exception a router's filter chain answered (the handler's, a filter's), for the exchange's end; else null. */
    public Throwable failure;

    private static final int[] NO_PARAMS = new int[0];

    public RequestState() {
        this(new int[64], new int[16]);
    }

    private RequestState(int[] headers, int[] params) {
        this.headers = headers;
        this.params = params;
    }

    public void reset() {
        data = null;
        array = null;
        method = null;
        queryStart = -1;
        headerCount = 0;
        bodyStart = 0;
        bodyEnd = 0;
        contentLength = -1;
        chunked = false;
        connectionClose = false;
        connectionKeepAlive = false;
        expectContinue = false;
        upgradeH2c = false;
        protocol = null;
        route = null;
        pathString = null;
        bodyView = null;
        streamed = null;
        streamedBytes = null;
        startNanos = 0;
        onEnd = null;
        endedWith = null;
        failure = null;
    }

    public void addHeader(int nameStart, int nameEnd, int valueStart, int valueEnd) {
        int i = headerCount * 4;
        if (i + 4 > headers.length) {
            headers = Arrays.copyOf(headers, headers.length * 2);
        }
        headers[i] = nameStart;
        headers[i + 1] = nameEnd;
        headers[i + 2] = valueStart;
        headers[i + 3] = valueEnd;
        headerCount++;
    }

    /** Copies everything this request refers to, so it stays valid after the buffer is reused. */
    public RequestState detach() {
        RequestState copy = new RequestState(Arrays.copyOf(headers, headerCount * 4), params.clone());
        int end = Math.max(bodyEnd, Math.max(targetEnd, lastHeaderEnd()));
        copy.array = Ascii.bytes(data, base, end);
        copy.data = MemorySegment.ofArray(copy.array);
        copy.base = 0;
        copy.method = method;
        copy.methodEnd = methodEnd;
        copy.targetStart = targetStart;
        copy.targetEnd = targetEnd;
        copy.pathStart = pathStart;
        copy.pathEnd = pathEnd;
        copy.queryStart = queryStart;
        copy.version = version;
        copy.headerCount = headerCount;
        copy.bodyStart = bodyStart;
        copy.bodyEnd = bodyEnd;
        copy.contentLength = contentLength;
        copy.chunked = chunked;
        copy.connectionClose = connectionClose;
        copy.connectionKeepAlive = connectionKeepAlive;
        copy.expectContinue = expectContinue;
        copy.upgradeH2c = upgradeH2c;
        copy.protocol = protocol;
        copy.route = route;
        copy.startNanos = startNanos;
        copy.onEnd = onEnd;
        copy.detached = true;
        copy.failure = failure;
        return copy;
    }

    /**
     * Lets go of the room routing needs, in a detached copy that is never routed again and may live
     * long (a WebSocket's request, kept as long as its socket).
     *
     * @return this state
     */
    public RequestState settled() {
        int n = route == null ? 0 : 2 * route.paramCount();
        params = n == 0 ? NO_PARAMS : Arrays.copyOf(params, n);
        return this;
    }

    public int lastHeaderEnd() {
        return headerCount == 0 ? 0 : headers[headerCount * 4 - 1];
    }
}
