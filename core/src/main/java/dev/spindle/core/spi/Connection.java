package dev.spindle.core.spi;

import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.Executor;

/**
 * One HTTP/1.1 connection without any I/O: the strategy feeds it received bytes, writes what it
 * hands out, and acts on what it answers. It parses, routes, runs handlers, streams bodies both
 * ways, encodes responses, answers pipelined requests in order, decides keep-alive, sends
 * {@code 100 Continue}, answers bad input with an error and a close, and keeps the connection's
 * time (idle, header, write and handler timeouts, lingering after a close).
 *
 * <p>What a strategy does, on its connection's thread:
 * <ul>
 *   <li>bytes arrive: {@link #received}; the peer shut its side: {@link #endOfInput()};</li>
 *   <li>write {@link #outboundFile()} (zero-copy, if it enabled {@link #transferFiles}) or else
 *       {@link #outbound()} while {@link #hasOutbound()}, reporting each write with {@link #written};</li>
 *   <li>read from the socket only while {@link #wantsInput()};</li>
 *   <li>once {@link #isLingering()}: shut down its output (once) and keep reading (the bytes are dropped);</li>
 *   <li>close the socket when {@link #shouldClose()};</li>
 *   <li>call {@link #tick(long)} now and then (every few hundred milliseconds, or when a read times
 *       out after {@link #readTimeoutNanos(long)}), which applies the timeouts;</li>
 *   <li>when the wakeup it passed in runs (from any thread: a handler finished, a streamed body has
 *       its next chunk, a body consumer wants more), call {@link #resume()} on its own thread.</li>
 * </ul>
 * After each of these calls the strategy re-checks the answers above; the connection never touches
 * a socket, selector, ring or thread, and every byte a strategy sends comes from it.
 *
 * <p>Handlers ({@link Handler}): inline ones run within the call that completed their request;
 * blocking ones run on the blocking executor (or inline when the strategy passes none, as blocking
 * servers do, reading streamed request bodies through their {@link InputPump}); asynchronous ones
 * start inline and finish when their stage completes. While one is in flight, or a streamed
 * response is being sent, later pipelined requests wait, so answers keep request order.
 *
 * <p>Back-pressure: while more than {@link ServerConfig#writeHighWaterMark()} bytes are pending the
 * connection processes no further requests and pulls no more of a streamed body, and
 * {@link #wantsInput()} is false; {@link #written} resumes it by itself. A streamed request body
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
     * @param blockingExecutor where blocking handlers and blocking body sources run; null runs them
     *        inline on the connection's thread (then set an {@link #inputPump})
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
     * @param blockingExecutor where blocking handlers and blocking body sources run; null runs them
     *        inline on the connection's thread (then set an {@link #inputPump})
     * @param wakeup called from any thread when the connection has work for its thread, which then
     *        calls {@link #resume()}; may be null only if no handler completes on another thread
     * @param budget the server's budget for buffered bodies, shared with its other connections; null
     *        bounds this connection's bodies by {@link ServerConfig#maxBodySize()} alone
     * @return a new connection
     */
    static Connection open(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        return Engine.installed().open(router, config, blockingExecutor, wakeup, budget);
    }

    /**
     * A connection whose blocking handlers run inline, for thread-per-connection strategies and tests.
     * No handler completes on another thread, so it needs no wakeup; for streamed request bodies set
     * an {@link #inputPump}.
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
        return Engine.installed().rejecting(config, status, message);
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
     * Reads more request bytes on the connection's own thread, for strategies that run handlers
     * inline (blocking servers): called when an inline handler reads a streamed body that has not
     * arrived. It must first write whatever {@link #outbound()} holds (a {@code 100 Continue}),
     * then block reading the socket; -1 at the end of input.
     */
    @FunctionalInterface
    interface InputPump {
        /**
         * Blocks until some request bytes arrive and puts them into {@code dst}; called on the
         * connection's own thread, from within the inline handler's read.
         *
         * @param dst where to put the bytes, cleared, with room for at least one byte
         * @return how many bytes were put into {@code dst}, or -1 at the end of input
         * @throws IOException if the socket fails or times out; it reaches the handler reading the body
         */
        int read(ByteBuffer dst) throws IOException;
    }

    /**
     * Lets the strategy hand out file bodies as {@link #outboundFile()} regions for zero-copy sending.
     * Off by default: file bodies are then read into {@link #outbound()} like any other body.
     *
     * @param on true if the strategy sends {@link #outboundFile()} regions itself
     */
    void transferFiles(boolean on);

    /**
     * How an inline handler reads a request body that has not arrived yet (strategies without a blocking executor).
     * Set it before the first {@link #received}.
     *
     * @param pump reads the socket on the connection's thread
     */
    void inputPump(InputPump pump);

    /**
     * Consumes all of {@code src} and processes every complete request in it. When nothing is
     * buffered, a heap buffer is parsed in place and only the bytes of an unfinished request (or a
     * chunked body, which is joined by moving bytes) are copied. Its bytes are never written, and
     * nothing refers to them once this returns, so the caller may reuse it at once. After a close
     * began, the bytes are dropped (lingering).
     *
     * @param src the bytes read from the socket; consumed entirely (its position ends at its limit)
     */
    void received(ByteBuffer src);

    /**
     * Like {@link #received(ByteBuffer)} for {@code memory[offset, offset + length)}, such as a
     * buffer the kernel filled (io_uring's provided buffers): parsed where it lies, and no longer
     * referred to once this returns.
     *
     * @param memory the memory holding the bytes; read-only memory is copied, never parsed in place
     * @param offset where the bytes start in {@code memory}, in bytes
     * @param length how many bytes arrived; 0 does nothing
     */
    void received(MemorySegment memory, long offset, int length);

    /** The peer closed its sending side: answer what is complete, then close. */
    void endOfInput();

    /** Continues after the wakeup ran: a handler finished, a streamed body moved, or a body consumer wants more. */
    void resume();

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
     * Whether anything waits to be written, in {@link #outbound()} or {@link #outboundFile()}; write
     * while this is true (and the socket takes it).
     *
     * @return true if bytes or a file region are pending
     */
    boolean hasOutbound();

    /**
     * Bytes pending in {@link #outbound()} (not counting a file region).
     *
     * @return the remaining bytes of {@link #outbound()}; 0 when only a file region is pending
     */
    int outboundBytes();

    /**
     * {@code bytes} of what was handed out (the buffer, or else the file region) were written.
     * Below the high-water mark this resumes processing held back by back-pressure.
     *
     * @param bytes how many bytes the socket took, from the start of what was handed out; 0 does nothing
     * @throws IllegalArgumentException if more was reported than was handed out, or nothing was pending
     */
    void written(int bytes);

    /**
     * Whether the strategy should read from the socket now.
     *
     * @return true if a read is useful now; false under back-pressure (output at the high-water
     *         mark, a full request-body window, a handler or streamed response in flight and no
     *         request body to read), after the end of input, and once the connection is closing,
     *         except while it lingers
     */
    boolean wantsInput();

    /**
     * Everything is answered and written, and the peer may still be sending: shut down the output
     * (once) and keep reading; the connection drops what arrives until it says {@link #shouldClose()}.
     * Closing at once could make the kernel answer unread bytes with a reset that destroys the response.
     *
     * @return true while the connection lingers: at most 500 ms or 1 MiB of dropped input
     */
    boolean isLingering();

    /**
     * Close the socket now: the connection is over (or a timeout gave up on it). Then call {@link #closed()}.
     *
     * @return true if the strategy must close the socket; nothing more will be handed out
     */
    boolean shouldClose();

    /**
     * No more responses will come and all output is written ({@link #isLingering()} or {@link #shouldClose()}).
     *
     * @return true once the connection has nothing more to send
     */
    boolean isFinished();

    /**
     * No request in progress and nothing to write: safe to close for idleness or shutdown.
     *
     * @return true if closing the socket now loses no request or response
     */
    boolean isIdle();

    /**
     * Bytes of a request have arrived but not the whole request (header timeout applies).
     *
     * @return true while a request has begun arriving but is not complete, and no handler or
     *         streamed response is in flight
     */
    boolean hasPartialRequest();

    /**
     * A blocking or asynchronous handler is in flight (or finished and waiting for {@link #resume()}).
     *
     * @return true while the connection waits for a handler run on another thread or stage
     */
    boolean isAwaitingHandler();

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
     * milliseconds (deadlines are as precise as that) and whenever a read timed out; then act on
     * the answers as after any other call. Decides:
     * <ul>
     *   <li>output the peer has not taken for {@link ServerConfig#writeTimeout()}: close;</li>
     *   <li>a request begun but not complete after {@link ServerConfig#headerTimeout()} (for a
     *       streamed body: no bytes for that long): 408 and a close;</li>
     *   <li>a blocking or asynchronous handler still running after {@link ServerConfig#handlerTimeout()}:
     *       503 and a close; a streamed response body producing nothing for that long: close;</li>
     *   <li>no request for {@link ServerConfig#idleTimeout()}: close, without a response;</li>
     *   <li>draining ({@link #drain()}) with no request for the grace: shut the output and linger;</li>
     *   <li>lingering for 500 ms: close.</li>
     * </ul>
     *
     * @param now the current {@link System#nanoTime()}; call on the connection's thread
     */
    void tick(long now);

    /**
     * How long the strategy may block reading before it must call {@link #tick} (for strategies
     * that wait in a blocking read with a socket timeout), given that it ticked at {@code now}.
     *
     * @param now the {@link System#nanoTime()} of the last {@link #tick}
     * @return the time until the next deadline, in nanoseconds; at least 1
     */
    long readTimeoutNanos(long now);

    /**
     * How long a strategy waiting for a handler may wait before it must call {@link #tick}.
     *
     * @return {@link ServerConfig#handlerTimeout()} in nanoseconds
     */
    long handlerTimeoutNanos();

    /**
     * The strategy closed the socket, for whatever reason (the core said so, the peer reset it, the
     * server stopped): releases what the connection still holds, so that no producer of a streamed
     * response, file or request-body consumer waits for a socket that is gone. Idempotent.
     */
    void closed();
}
