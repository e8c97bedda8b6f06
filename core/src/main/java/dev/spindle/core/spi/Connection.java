// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.spi;

import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.Tls;
import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.tls.TlsConnection;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One HTTP/1.1 connection without any I/O: the strategy feeds it received bytes, writes what it
 * hands out, and acts on what it answers. It parses, routes, runs handlers, streams bodies both
 * ways, encodes responses, answers pipelined requests in order, decides keep-alive, sends
 * {@code 100 Continue}, answers bad input with an error and a close, and keeps the connection's
 * time (idle, header, write and handler timeouts, lingering after a close).
 *
 * <p>What a strategy does, on its connection's thread: it feeds the connection ({@link #received},
 * {@link #endOfInput()}, {@link #written}, {@link #resume()} after the wakeup it passed in ran,
 * {@link #tick} now and then) and acts on the {@link Next} each call answers: read while it
 * {@link Next#reads() reads}; write {@link #outboundFile()} or else {@link #outbound()} while it
 * {@link Next#writes() writes}; on {@link Next#LINGER} shut down its output once and keep reading;
 * on {@link Next#CLOSE} close the socket and call {@link #closed()}; on {@link Next#WAIT} wait for
 * the wakeup or the next tick. {@link #nanosToTick(long)} says when the next tick is due. The
 * connection never touches a socket, selector, ring or thread, and every byte a strategy sends
 * comes from it. {@link #state()} tells where in its life the connection is, for strategies that
 * treat idle connections apart (parking them, closing them at shutdown).
 *
 * <p>Handlers ({@link Handler}): inline ones run within the call that completed their request;
 * blocking ones run on the blocking executor (when the strategy passes none, as blocking servers
 * do, each on a virtual thread of its own, so that the handler timeout applies to it; inline only
 * on a connection without a wakeup, a test's, which buffers their request bodies);
 * asynchronous ones start inline and finish when their stage completes. While one is in flight, or a streamed
 * response is being sent, later pipelined requests wait, so answers keep request order.
 *
 * <p>Back-pressure: while more than {@link ServerConfig#writeHighWaterMark()} bytes are pending the
 * connection processes no further requests and pulls no more of a streamed body, and it does
 * not ask for reads; {@link #written} resumes it by itself. A streamed request body
 * stops the reading while its consumer is 64 KiB behind.
 *
 * <p>This package is for server implementations (strategy modules); applications use
 * {@code dev.spindle.core} and a server class. A connection speaks TLS when its configuration has
 * {@link ServerConfig#tls()}: the strategy still only moves bytes.
 */
public interface Connection {
    /**
     * A connection whose blocking handlers run on {@code blockingExecutor}, for event-loop strategies.
     * It holds no socket: the strategy feeds it and writes for it, on the connection's thread.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits, timeouts and TLS it applies
     * @param blockingExecutor where blocking handlers and blocking body sources run; null (a
     *        thread-per-connection strategy) runs body sources inline on the connection's thread and
     *        each blocking handler on a virtual thread of its own, or inline too when there is no
     *        {@code wakeup}
     * @param wakeup called from any thread when the connection has work for its thread, which then
     *        calls {@link #resume()}; may be null only if no handler completes on another thread
     * @return a new connection
     */
    static Connection open(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup) {
        return open(router, config, blockingExecutor, wakeup, null);
    }

    /**
     * As {@link #open(Router, ServerConfig, Executor, Runnable)}, holding its buffered request
     * bodies within {@code budget}: what every server passes, one budget per server instance
     * ({@link BodyBudget#of(ServerConfig)}), so that bodies in flight on all of its connections
     * together cannot run the heap out.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits, timeouts and TLS it applies
     * @param blockingExecutor where blocking handlers and blocking body sources run; null (a
     *        thread-per-connection strategy) runs body sources inline on the connection's thread and
     *        each blocking handler on a virtual thread of its own, or inline too when there is no
     *        {@code wakeup}
     * @param wakeup called from any thread when the connection has work for its thread, which then
     *        calls {@link #resume()}; may be null only if no handler completes on another thread
     * @param budget the server's budget for buffered bodies, shared with its other connections; null
     *        bounds this connection's bodies by {@link ServerConfig#maxBodySize()} alone
     * @return a new connection
     */
    static Connection open(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        // HTTP/1.1 alone unless a request may switch protocols (h2c, a WebSocket route): then the switch around it
        boolean switches = dev.spindle.core.exchange.ApiAccess.get().webSockets(router);
        if (config.tls() == null) {
            return config.h2c() || switches ? new ProtocolSwitch(router, config, blockingExecutor, wakeup, budget, config.h2c())
                    : new HttpConnection(router, config, blockingExecutor, wakeup, budget);
        }
        if (!config.h2()) {
            LayeredConnection inner = switches ? new ProtocolSwitch(router, config, blockingExecutor, wakeup, budget, false)
                    : new HttpConnection(router, config, blockingExecutor, wakeup, budget);
            return new TlsConnection(inner, config, List.of(Tls.ALPN_HTTP_1_1));
        }
        // what ALPN offers, most preferred first; the switch speaks each of them (by ALPN only: no h2c inside TLS)
        return new TlsConnection(new ProtocolSwitch(router, config, blockingExecutor, wakeup, budget, false), config,
                List.of(ProtocolSwitch.ALPN_H2, Tls.ALPN_HTTP_1_1));
    }

    /**
     * A connection whose blocking handlers run inline, for tests. No handler completes on another
     * thread, so it needs no wakeup; its handlers get their request bodies buffered. A
     * handler running inline cannot be answered for: the handler timeout does not apply to it.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits, timeouts and TLS it applies
     * @return a new connection
     */
    static Connection open(Router router, ServerConfig config) {
        return open(router, config, null, null);
    }

    /**
     * A connection the server will not serve (too many connections, no free worker): it answers
     * {@code status} with {@code message} and {@code Connection: close}, then lingers and closes.
     * Without TLS its response is ready in {@link #outbound()} at once, before any byte was
     * received; it never parses or routes a request.
     *
     * @param config the limits and timeouts it applies (the write timeout, lingering, TLS)
     * @param status the HTTP status code to answer, such as 503
     * @param message the reason, in the plain-text body {@code <status> <reason phrase>: <message>}
     * @return a new connection that only answers, then closes
     */
    static Connection rejecting(ServerConfig config, int status, String message) {
        HttpConnection http = HttpConnection.rejecting(config, status, message);
        // the refusal is HTTP/1.1 whatever open() offers, so ALPN offers that alone
        return config.tls() == null ? http : new TlsConnection(http, config, List.of(Tls.ALPN_HTTP_1_1));
    }

    /** A region of a file to send with {@code FileChannel.transferTo}, then report with {@link #written}. */
    interface FileRegion {
        /**
         * The file to send from. The connection owns it and closes it when the body is done or the
         * connection is {@link #closed()}: the strategy must not close it.
         *
         * @return the open file channel
         */
        FileChannel channel();

        /**
         * Where in the file the next byte to send lies; it advances as {@link #written} reports bytes.
         *
         * @return the absolute file position, in bytes, to pass to {@code transferTo}
         */
        long position();

        /**
         * How many bytes of the region are still to be sent.
         *
         * @return the remaining byte count; positive whenever {@link #outboundFile()} returns the region
         */
        long count();
    }

    /**
     * Lets the strategy hand out file bodies as {@link #outboundFile()} regions for zero-copy sending.
     * Off by default: file bodies are then read into {@link #outbound()} like any other body.
     *
     * @param on true if the strategy sends {@link #outboundFile()} regions itself
     */
    void transferFiles(boolean on);

    /**
     * Consumes all of {@code src} and processes every complete request in it. When nothing is
     * buffered, a heap buffer is parsed in place and only the bytes of an unfinished request (or a
     * chunked body, which is joined by moving bytes) are copied. Nothing refers to its bytes once this
     * returns, so the caller may reuse it at once; they may have been rewritten meanwhile (a
     * connection switched to WebSocket unmasks payloads in place; a read-only buffer is copied
     * first). After a close began, the bytes are dropped (lingering).
     *
     * @param src the bytes read from the socket; consumed entirely (its position ends at its limit)
     * @return what to do next
     */
    Next received(ByteBuffer src);

    /**
     * Like {@link #received(ByteBuffer)} for {@code memory[offset, offset + length)}, such as a
     * buffer the kernel filled (io_uring's provided buffers): parsed where it lies, and no longer
     * referred to once this returns.
     *
     * @param memory the memory holding the bytes; read-only memory is copied, never parsed in place
     * @param offset where the bytes start in {@code memory}, in bytes
     * @param length how many bytes arrived; 0 does nothing
     * @return what to do next
     */
    Next received(MemorySegment memory, long offset, int length);

    /**
     * The peer closed its sending side: answer what is complete, then close.
     *
     * @return what to do next
     */
    Next endOfInput();

    /**
     * Continues after the wakeup ran: a handler finished, a streamed body moved, or a body consumer wants more.
     *
     * @return what to do next
     */
    Next resume();

    /**
     * What to do next, as the last call answered (the first answer of a new connection, such as a
     * {@link #rejecting} one whose refusal is ready at once).
     *
     * @return what to do next
     */
    Next next();

    /**
     * Where in its life the connection is.
     *
     * @return the connection's state
     */
    State state();

    /** Where in its life a connection is; {@link Next} says what a strategy does about it. */
    enum State {
        /** No request in progress and nothing to write: closing it now loses no request or response. */
        IDLE,
        /** Bytes of a request have arrived but not the whole request, and nothing else is in flight. */
        READING_REQUEST,
        /** A blocking or asynchronous handler is in flight (or finished and waiting for {@link #resume()}). */
        HANDLING,
        /** A response is being written (buffered bytes pending, or a streamed body). */
        SENDING,
        /**
         * Either side sends whenever it likes (an open WebSocket): output comes from other threads
         * through the wakeup at any time, also while the strategy waits in a read, so a strategy
         * that blocks in its reads writes from another thread meanwhile (under the same lock).
         */
        DUPLEX,
        /** No more requests will be read; the last output is being finished. */
        CLOSING,
        /** All is written; the connection drops what the peer still sends ({@link Next#LINGER}). */
        LINGERING,
        /** Over: the strategy closes the socket ({@link Next#CLOSE}). */
        CLOSED;

        /**
         * Whether nothing more will be sent.
         *
         * @return true for {@link #LINGERING} and {@link #CLOSED}
         */
        public boolean finished() {
            return this == LINGERING || this == CLOSED;
        }
    }

    /**
     * Bytes to write, as a buffer positioned at the first pending byte. It stays valid until the
     * next call to {@link #received}, {@link #resume}, {@link #tick} or {@link #written}; report
     * what was written with {@link #written}. Empty when only a file region is pending.
     *
     * @return the pending bytes, from its position to its limit; possibly empty
     */
    ByteBuffer outbound();

    /**
     * The file region to send next with {@code transferTo}, or null: only when
     * {@link #transferFiles} is on and no buffered bytes come before it.
     *
     * @return the region to send next, or null when the next bytes (if any) are in {@link #outbound()}
     */
    FileRegion outboundFile();

    /**
     * {@code bytes} of what was handed out (the buffer, or else the file region) were written.
     * Below the high-water mark this resumes processing held back by back-pressure.
     *
     * @param bytes how many bytes the socket took, from the start of what was handed out; 0 does nothing
     * @return what to do next
     * @throws IllegalArgumentException if more was reported than was handed out, or nothing was pending
     */
    Next written(int bytes);

    /**
     * The next response says {@code Connection: close} and ends the connection (shutdown,
     * shedding). A connection that is idle is the strategy's to close.
     */
    void closeAfterResponse();

    /**
     * The server is closing gracefully: as {@link #closeAfterResponse()}, and a connection with no
     * request in progress gets {@link #DRAIN_IDLE_GRACE_MILLIS} (at most half the drain timeout) for
     * one more, answered with {@code Connection: close}; then {@link #tick} ends it as after any
     * response that closes (output shut, lingering). Closing an idle keep-alive connection at once
     * would race with a client, or a load balancer's pooled connection, that has just sent its next
     * request: that request would be lost to a reset.
     *
     * <p>Unlike the other methods it may be called from any thread (the one closing the server): a
     * response decided after it says close, even one whose handler was already running inline on
     * the connection's thread; the idle grace starts at the connection's next {@link #tick}.
     */
    void drain();

    /** How long {@link #drain()} leaves an idle connection open for one more request. */
    long DRAIN_IDLE_GRACE_MILLIS = 1000;

    /**
     * Applies the timeouts at {@code now} ({@code System.nanoTime()}). Call it every few hundred
     * milliseconds (deadlines are as precise as that), or when {@link #nanosToTick} has passed.
     * Decides:
     * <ul>
     *   <li>output the peer has not taken for {@link ServerConfig#writeTimeout()}: close;</li>
     *   <li>a request begun but not complete after {@link ServerConfig#headerTimeout()} (for a
     *       streamed body: no bytes for that long; with TLS: a handshake not finished): 408 (or
     *       for a handshake, nothing) and a close;</li>
     *   <li>a blocking or asynchronous handler still running after {@link ServerConfig#handlerTimeout()}:
     *       503 and a close; a streamed response body producing nothing for that long: close;</li>
     *   <li>no request for {@link ServerConfig#idleTimeout()}: close, without a response;</li>
     *   <li>draining ({@link #drain()}) with no request for the grace: shut the output and linger;</li>
     *   <li>lingering (dropping what the peer still sends): close after 500 ms with nothing
     *       arriving, 30 s in all, or 1 GiB dropped.</li>
     * </ul>
     *
     * @param now the current {@link System#nanoTime()}; call on the connection's thread
     * @return what to do next
     */
    Next tick(long now);

    /**
     * How long the strategy may wait (in a blocking read with a socket timeout, or parked for a
     * handler) before it must call {@link #tick}, given that it ticked at {@code now}.
     *
     * @param now the {@link System#nanoTime()} of the last {@link #tick}
     * @return the time until the next deadline, in nanoseconds; at least 1
     */
    long nanosToTick(long now);

    /**
     * The strategy closed the socket, for whatever reason (the core said so, the peer reset it, the
     * server stopped): releases what the connection still holds, so that no producer of a streamed
     * response, file or request-body consumer waits for a socket that is gone. Idempotent.
     */
    void closed();
}
