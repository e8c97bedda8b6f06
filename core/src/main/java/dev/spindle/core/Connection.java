package dev.spindle.core;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * stops the reading while its consumer is {@value RequestBody#WINDOW} bytes behind.
 */
public final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    /** How long a finished connection keeps reading (and dropping) what the peer still sends before closing. */
    static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How much it drops at most while lingering. */
    static final int LINGER_BYTES = 1 << 20;
    /** Echoed bodies from this size on are sent from the input array; smaller ones are copied behind the head, so one write carries both. */
    static final int IN_PLACE_MIN = 64 * 1024;
    private static final Runnable NO_WAKEUP = () -> { };

    /** A region of a file to send with {@code FileChannel.transferTo}, then report with {@link #written}. */
    public interface FileRegion {
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
    public interface InputPump {
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

    private final Router router;
    private final ServerConfig config;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    private final InputBuffer in;
    private final OutputBuffer out;
    private final RequestParser parser;
    private final Request request = new Request();
    private final Response response = new Response();
    private final int highWater;
    private final RequestParser.BodySink bodySink = this::offerBody;

    /** The TLS between the socket and the HTTP, or null for plain HTTP. */
    private TlsLayer tls;
    private InputPump pump;
    private ByteBuffer pumpBuffer;
    private boolean transferFiles;

    /** No more requests will be processed: finish the output, then linger and close. */
    private boolean closing;
    /** Close the socket now; nothing more will be sent. */
    private boolean aborted;
    private boolean closeAfterResponse;
    private boolean inputEnded;
    private boolean continueSent;
    private boolean processing;
    private boolean reprocess;
    /** Processing stopped at the high-water mark; {@link #written} resumes it. */
    private boolean blockedOnOutput;

    /** A blocking or asynchronous handler in flight, or null. */
    private Exchange exchange;
    /** The request body the parser is streaming (to a handler, or dropped once abandoned), or null. */
    private RequestBody streamingBody;
    private long discardFrom;
    /** A streamed response body being sent, or null. */
    private OutgoingBody outgoing;
    private boolean awaitingProducer;

    private byte[] lentKey;
    private MemorySegment lentMemory;

    // time, in System.nanoTime() units; 0 means unset. Activity flags are turned into times by tick().
    private boolean inputActivity;
    private boolean outputActivity;
    private boolean producerActivity;
    private long lastActivity;
    private long requestStarted;
    private long outputWaitingSince;
    private long bodyWaitingSince;
    private long producerWaitingSince;
    private long lingerStarted;
    private long handshakeStarted;
    private boolean lingerDone;
    private long lingerBytes;

    /**
     * A connection whose blocking handlers run inline, for thread-per-connection strategies and tests.
     * No handler completes on another thread, so it needs no wakeup; for streamed request bodies set
     * an {@link #inputPump}.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits and timeouts it applies
     */
    public Connection(Router router, ServerConfig config) {
        this(router, config, null, null);
    }

    /**
     * A connection whose blocking handlers run on {@code blockingExecutor}, for event-loop strategies.
     * It holds no socket: the strategy feeds it and writes for it, on the connection's thread.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits and timeouts it applies
     * @param blockingExecutor where blocking handlers and blocking body sources run; null runs them
     *        inline on the connection's thread (then set an {@link #inputPump})
     * @param wakeup called from any thread when the connection has work for its thread, which then
     *        calls {@link #resume()}; may be null only if no handler completes on another thread
     */
    public Connection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup) {
        this.router = router;
        this.config = config;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup != null ? wakeup : NO_WAKEUP;
        this.in = new InputBuffer(Math.min(config.readBufferSize(), 64 * 1024));
        this.out = new OutputBuffer(4096);
        this.parser = new RequestParser(config);
        this.highWater = config.writeHighWaterMark();
        this.tls = config.tls() != null ? new TlsLayer(config.tls().newEngine(), this) : null;
    }

    /**
     * A connection the server will not serve (too many connections, no free worker): it answers
     * {@code status} with {@code message} and {@code Connection: close}, then lingers and closes.
     * Its response is ready in {@link #outbound()} at once, before any byte was received; it never
     * parses or routes a request.
     *
     * @param config the limits and timeouts it applies (the write timeout, lingering)
     * @param status the HTTP status code to answer, such as 503
     * @param message the reason, in the plain-text body {@code <status> <reason phrase>: <message>}
     * @return a new connection that only answers, then closes
     */
    public static Connection rejecting(ServerConfig config, int status, String message) {
        Connection c = new Connection(null, config);
        ResponseEncoder.error(c.out, c.response, status, message, null, ResponseEncoder.CONNECTION_CLOSE, false);
        c.closing = true;
        return c;
    }

    /**
     * Lets the strategy hand out file bodies as {@link #outboundFile()} regions for zero-copy sending.
     * Off by default: file bodies are then read into {@link #outbound()} like any other body.
     *
     * @param on true if the strategy sends {@link #outboundFile()} regions itself
     */
    public void transferFiles(boolean on) {
        // TLS encrypts every byte, so file bodies pass through the output like any other body
        transferFiles = on && tls == null;
    }

    /**
     * How an inline handler reads a request body that has not arrived yet (strategies without a blocking executor).
     * Set it before the first {@link #received}.
     *
     * @param pump reads the socket on the connection's thread
     */
    public void inputPump(InputPump pump) {
        this.pump = pump;
    }

    /**
     * Consumes all of {@code src} and processes every complete request in it. When nothing is
     * buffered, a heap buffer is parsed in place and only the bytes of an unfinished request (or a
     * chunked body, which is joined by moving bytes) are copied. Its bytes are never written, and
     * nothing refers to them once this returns, so the caller may reuse it at once. After a close
     * began, the bytes are dropped (lingering).
     *
     * @param src the bytes read from the socket; consumed entirely (its position ends at its limit)
     */
    public void received(ByteBuffer src) {
        if (tls != null) {
            receivedTls(src);
            return;
        }
        plaintextReceived(src);
    }

    /** Bytes the TLS layer decrypted (or, without TLS, the socket's): parsed and processed. */
    void plaintextReceived(ByteBuffer src) {
        int length = src.remaining();
        if (length == 0) {
            return;
        }
        inputActivity = true;
        if (closing || aborted) {
            src.position(src.limit());
            dropped(length);
            return;
        }
        MemorySegment memory = in.available() == 0 && !processing ? lendable(src) : null;
        if (memory == null) {
            in.append(src);
            process();
            return;
        }
        long offset = src.arrayOffset() + src.position();
        src.position(src.limit());
        receivedInPlace(memory, lentKey, offset, length);
    }

    /**
     * Like {@link #received(ByteBuffer)} for {@code memory[offset, offset + length)}, such as a
     * buffer the kernel filled (io_uring's provided buffers): parsed where it lies, and no longer
     * referred to once this returns.
     *
     * @param memory the memory holding the bytes; read-only memory is copied, never parsed in place
     * @param offset where the bytes start in {@code memory}, in bytes
     * @param length how many bytes arrived; 0 does nothing
     */
    public void received(MemorySegment memory, long offset, int length) {
        if (length == 0) {
            return;
        }
        if (tls != null) {
            receivedTls(memory.asSlice(offset, length).asByteBuffer());
            return;
        }
        inputActivity = true;
        if (closing || aborted) {
            dropped(length);
            return;
        }
        if (in.available() > 0 || memory.isReadOnly() || processing) {
            in.append(memory.asSlice(offset, length).asByteBuffer());
            process();
            return;
        }
        receivedInPlace(memory, null, offset, length);
    }

    private void receivedTls(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return;
        }
        inputActivity = true;
        if (tls.plainHttpArrived(src)) {
            plainHttpOnTlsPort(src);
            return;
        }
        tls.received(src);
    }

    /**
     * A plain HTTP request on a TLS port: answered 400 in plain HTTP, saying why, and closed (a
     * connection already being refused sends its refusal in plain HTTP instead).
     */
    private void plainHttpOnTlsPort(ByteBuffer src) {
        log.debug("plain HTTP on a TLS port");
        tls = null;
        if (!closing) {
            response.reset();
            ResponseEncoder.error(out, response, 400, "this port speaks HTTPS; use an https:// URL", null,
                    ResponseEncoder.CONNECTION_CLOSE, false);
            closing = true;
        }
        plaintextReceived(src);
    }

    /** Plaintext the TLS layer decrypted while an inline handler pumps a request body. */
    void plaintextAppended(ByteBuffer src) {
        inputActivity = true;
        in.append(src);
    }

    /** The peer sent TLS {@code close_notify}: its side is done. */
    void tlsInputClosed() {
        if (!inputEnded) {
            inputEnded = true;
            process();
        }
    }

    /** TLS failed: no request can be read or answered; what the layer still has to send (an alert) goes, then the close. */
    void tlsFailed() {
        release();
        closing = true;
        inputEnded = true;
    }

    private void fillTls() {
        if (tls != null && !aborted) {
            tls.fill();
        }
    }

    private void dropped(int length) {
        lingerBytes += length;
        if (lingerBytes > LINGER_BYTES) {
            lingerDone = true;
        }
    }

    private void receivedInPlace(MemorySegment memory, byte[] array, long offset, int length) {
        in.lend(memory, array, offset, length);
        try {
            process();
        } finally {
            in.keepTail();
        }
    }

    /**
     * The memory behind a heap {@code src}, cached because strategies read into the same buffer
     * again and again. Direct buffers are copied: JMH (CoreRoundTripBenchmark) measured parsing
     * native memory through a segment slower than copying a request and parsing the array.
     */
    private MemorySegment lendable(ByteBuffer src) {
        if (!src.hasArray()) {
            return null;
        }
        byte[] key = src.array();
        if (key != lentKey) {
            lentMemory = MemorySegment.ofArray(key);
            lentKey = key;
        }
        return lentMemory;
    }

    /** The peer closed its sending side: answer what is complete, then close. */
    public void endOfInput() {
        if (tls != null) {
            tls.inputEnded();
        }
        inputEnded = true;
        process();
        fillTls();
    }

    /** Continues after the wakeup ran: a handler finished, a streamed body moved, or a body consumer wants more. */
    public void resume() {
        process();
        fillTls();
    }

    /**
     * Bytes to write, as a buffer positioned at the first pending byte. It stays valid until the
     * next call to {@link #received}, {@link #resume}, {@link #tick} or {@link #written}; report
     * what was written with {@link #written}. Empty when only a file region is pending.
     *
     * @return the pending bytes, from its position to its limit; possibly empty
     */
    public ByteBuffer outbound() {
        return tls != null ? tls.outbound() : plaintextOutbound();
    }

    /** The HTTP side's pending bytes (what TLS wraps, or what the strategy writes without TLS). */
    ByteBuffer plaintextOutbound() {
        if (out.pending() == 0 && outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0) {
            return body.view();
        }
        return out.view();
    }

    /**
     * The file region to send next with {@code transferTo}, or null: only when
     * {@link #transferFiles} is on and no buffered bytes come before it.
     *
     * @return the region to send next, or null when the next bytes (if any) are in {@link #outbound()}
     */
    public FileRegion outboundFile() {
        return tls == null && fileReady() ? (OutgoingBody.FileBody) outgoing : null;
    }

    private boolean fileReady() {
        return transferFiles && out.pending() == 0 && outgoing instanceof OutgoingBody.FileBody f && f.count() > 0;
    }

    /**
     * Whether anything waits to be written, in {@link #outbound()} or {@link #outboundFile()}; write
     * while this is true (and the socket takes it).
     *
     * @return true if bytes or a file region are pending
     */
    public boolean hasOutbound() {
        return tls != null ? tls.hasOutbound() : plaintextHasOutbound();
    }

    boolean plaintextHasOutbound() {
        return out.pending() > 0 || fileReady() || outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0;
    }

    /**
     * Bytes pending in {@link #outbound()} (not counting a file region).
     *
     * @return the remaining bytes of {@link #outbound()}; 0 when only a file region is pending
     */
    public int outboundBytes() {
        return outbound().remaining();
    }

    /**
     * {@code bytes} of what was handed out (the buffer, or else the file region) were written.
     * Below the high-water mark this resumes processing held back by back-pressure.
     *
     * @param bytes how many bytes the socket took, from the start of what was handed out; 0 does nothing
     * @throws IllegalArgumentException if more was reported than was handed out, or nothing was pending
     */
    public void written(int bytes) {
        if (bytes == 0) {
            return;
        }
        if (tls != null) {
            outputActivity = true;
            tls.written(bytes);
            return;
        }
        plaintextWritten(bytes);
    }

    /** {@code bytes} of {@link #plaintextOutbound()} were written (or, with TLS, wrapped into records). */
    void plaintextWritten(int bytes) {
        if (out.pending() > 0) {
            out.written(bytes);
        } else if (fileReady()) {
            OutgoingBody.FileBody file = (OutgoingBody.FileBody) outgoing;
            if (bytes > file.count()) {
                throw new IllegalArgumentException("written " + bytes + " of a " + file.count() + "-byte file region");
            }
            file.transferred(bytes);
        } else if (outgoing instanceof OutgoingBody.InPlaceBody body) {
            body.sent(bytes);
        } else {
            throw new IllegalArgumentException("written " + bytes + " bytes, but nothing was pending");
        }
        outputActivity = true;
        if ((blockedOnOutput || outgoing != null) && out.pending() < highWater) {
            blockedOnOutput = false;
            process();
        }
    }

    /**
     * Whether the strategy should read from the socket now.
     *
     * @return true if a read is useful now; false under back-pressure (output at the high-water
     *         mark, a full request-body window, a handler or streamed response in flight and no
     *         request body to read), after the end of input, and once the connection is closing,
     *         except while it lingers
     */
    public boolean wantsInput() {
        if (aborted || inputEnded) {
            return false;
        }
        if (tls != null && tls.needsInput()) {
            return true;
        }
        if (closing) {
            return flushed() && !lingerDone;
        }
        if (streamingBody != null) {
            return streamingBody.hasRoom() && in.available() < highWater;
        }
        return exchange == null && outgoing == null && out.pending() < highWater;
    }

    private boolean flushed() {
        return plaintextFlushed() && (tls == null || !tls.hasOutbound());
    }

    private boolean plaintextFlushed() {
        return out.pending() == 0 && outgoing == null && exchange == null;
    }

    /** The HTTP side is closing and has handed out everything: TLS may send {@code close_notify}. */
    boolean plaintextFinished() {
        return closing && !aborted && plaintextFlushed();
    }

    /**
     * Everything is answered and written, and the peer may still be sending: shut down the output
     * (once) and keep reading; the connection drops what arrives until it says {@link #shouldClose()}.
     * Closing at once could make the kernel answer unread bytes with a reset that destroys the response.
     *
     * @return true while the connection lingers: at most 500 ms or 1 MiB of dropped input
     */
    public boolean isLingering() {
        return closing && !aborted && flushed() && !inputEnded && !lingerDone;
    }

    /**
     * Close the socket now: the connection is over (or a timeout gave up on it). Then call {@link #closed()}.
     *
     * @return true if the strategy must close the socket; nothing more will be handed out
     */
    public boolean shouldClose() {
        return aborted || closing && flushed() && (inputEnded || lingerDone);
    }

    /**
     * No more responses will come and all output is written ({@link #isLingering()} or {@link #shouldClose()}).
     *
     * @return true once the connection has nothing more to send
     */
    public boolean isFinished() {
        return aborted || closing && flushed();
    }

    /**
     * No request in progress and nothing to write: safe to close for idleness or shutdown.
     *
     * @return true if closing the socket now loses no request or response
     */
    public boolean isIdle() {
        return !closing && !aborted && exchange == null && outgoing == null && out.pending() == 0 && !parser.inProgress(in)
                && (tls == null || !tls.hasOutbound());
    }

    /**
     * Bytes of a request have arrived but not the whole request (header timeout applies).
     *
     * @return true while a request has begun arriving but is not complete, and no handler or
     *         streamed response is in flight
     */
    public boolean hasPartialRequest() {
        return exchange == null && outgoing == null && parser.inProgress(in);
    }

    /**
     * A blocking or asynchronous handler is in flight (or finished and waiting for {@link #resume()}).
     *
     * @return true while the connection waits for a handler run on another thread or stage
     */
    public boolean isAwaitingHandler() {
        return exchange != null;
    }

    /**
     * The next response says {@code Connection: close} and ends the connection (shutdown,
     * shedding). A connection that is idle is the strategy's to close.
     */
    public void closeAfterResponse() {
        closeAfterResponse = true;
    }

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
     *   <li>lingering for 500 ms: close.</li>
     * </ul>
     *
     * @param now the current {@link System#nanoTime()}; call on the connection's thread
     */
    public void tick(long now) {
        applyTimeouts(now);
        fillTls();
    }

    private void applyTimeouts(long now) {
        if (aborted) {
            return;
        }
        if (inputActivity || outputActivity || producerActivity || lastActivity == 0) {
            lastActivity = now;
        }
        boolean wrote = outputActivity;
        boolean read = inputActivity;
        boolean produced = producerActivity;
        inputActivity = false;
        outputActivity = false;
        producerActivity = false;

        if (hasOutbound()) {
            if (outputWaitingSince == 0 || wrote) {
                outputWaitingSince = now;
            } else if (now - outputWaitingSince >= config.writeTimeout().toNanos()) {
                log.debug("write timeout: the peer took no output for {}", config.writeTimeout());
                abort();
                return;
            }
        } else {
            outputWaitingSince = 0;
        }
        if (tls != null && tls.handshaking()) {
            // as a request's header: a peer that starts a connection must finish its handshake in time
            if (handshakeStarted == 0) {
                handshakeStarted = now;
            } else if (now - handshakeStarted >= config.headerTimeout().toNanos()) {
                log.debug("TLS handshake not finished within {}", config.headerTimeout());
                abort();
                return;
            }
        }
        if (closing) {
            if (isLingering()) {
                if (lingerStarted == 0) {
                    lingerStarted = now;
                } else if (now - lingerStarted >= LINGER_NANOS) {
                    lingerDone = true;
                }
            }
            return;
        }
        if (streamingBody != null && exchange != null && streamingBody.hasRoom()) {
            if (bodyWaitingSince == 0 || read) {
                bodyWaitingSince = now;
            } else if (now - bodyWaitingSince >= config.headerTimeout().toNanos()) {
                RequestBody body = streamingBody;
                streamingBody = null;
                closing = true;
                body.fail(new RequestBody.BodyException(408, "request body not received in time"));
            }
        } else {
            bodyWaitingSince = 0;
        }
        if (exchange != null) {
            Exchange ex = exchange;
            if (ex.since == 0) {
                ex.since = now;
            } else if (!ex.done && now - ex.since >= config.handlerTimeout().toNanos()) {
                handlerTimedOut(ex);
            }
            return;
        }
        if (outgoing != null) {
            if (!awaitingProducer || produced || producerWaitingSince == 0) {
                producerWaitingSince = awaitingProducer ? now : 0;
            } else if (now - producerWaitingSince >= config.handlerTimeout().toNanos()) {
                log.warn("a streamed response body produced nothing for {}; closing its connection", config.handlerTimeout());
                abort();
            }
            return;
        }
        if (parser.inProgress(in)) {
            if (requestStarted == 0 || streamingBody != null && read) {
                requestStarted = now;
            } else if (now - requestStarted >= config.headerTimeout().toNanos()) {
                requestTimedOut();
            }
            return;
        }
        requestStarted = 0;
        if (out.pending() == 0 && now - lastActivity >= config.idleTimeout().toNanos()) {
            abort();
        }
    }

    /**
     * How long the strategy may block reading before it must call {@link #tick} (for strategies
     * that wait in a blocking read with a socket timeout), given that it ticked at {@code now}.
     *
     * @param now the {@link System#nanoTime()} of the last {@link #tick}
     * @return the time until the next deadline, in nanoseconds; at least 1
     */
    public long readTimeoutNanos(long now) {
        if (isLingering()) {
            return lingerStarted == 0 ? LINGER_NANOS : Math.max(1, lingerStarted + LINGER_NANOS - now);
        }
        if (tls != null && tls.handshaking()) {
            long since = handshakeStarted != 0 ? handshakeStarted : now;
            return Math.max(1, since + config.headerTimeout().toNanos() - now);
        }
        if (streamingBody != null) {
            long since = bodyWaitingSince != 0 ? bodyWaitingSince : now;
            return Math.max(1, since + config.headerTimeout().toNanos() - now);
        }
        if (parser.inProgress(in)) {
            long since = requestStarted != 0 ? requestStarted : now;
            return Math.max(1, since + config.headerTimeout().toNanos() - now);
        }
        long since = lastActivity != 0 ? lastActivity : now;
        return Math.max(1, since + config.idleTimeout().toNanos() - now);
    }

    /**
     * How long a strategy waiting for a handler may wait before it must call {@link #tick}.
     *
     * @return {@link ServerConfig#handlerTimeout()} in nanoseconds
     */
    public long handlerTimeoutNanos() {
        return config.handlerTimeout().toNanos();
    }

    private void requestTimedOut() {
        log.debug("request not received within {}", config.headerTimeout());
        // a body being dropped after its answer gets no second answer
        if (!hasOutbound() && streamingBody == null) {
            response.reset();
            ResponseEncoder.error(out, response, 408, "request not received in time", null, ResponseEncoder.CONNECTION_CLOSE, false);
        }
        closing = true;
        requestStarted = 0;
    }

    private void handlerTimedOut(Exchange ex) {
        log.warn("handler for {} did not answer within {}; answering 503", ex.request, config.handlerTimeout());
        ex.abandoned = true;
        exchange = null;
        if (streamingBody != null) {
            streamingBody.fail(new RequestBody.BodyException(503, "the handler timed out"));
            streamingBody = null;
        }
        response.reset();
        ResponseEncoder.error(out, response, 503, "the handler did not answer in time", null, ResponseEncoder.CONNECTION_CLOSE,
                ex.request.method == Method.HEAD);
        closing = true;
    }

    /**
     * The strategy closed the socket, for whatever reason (the core said so, the peer reset it, the
     * server stopped): releases what the connection still holds, so that no producer of a streamed
     * response, file or request-body consumer waits for a socket that is gone. Idempotent.
     */
    public void closed() {
        if (!aborted) {
            abort();
        }
    }

    /** Gives up on the connection: nothing more is sent, and the strategy closes it. */
    private void abort() {
        aborted = true;
        release();
    }

    /** Lets go of everything that waits on the connection: a streamed body, a request-body consumer, a handler. */
    private void release() {
        if (outgoing != null) {
            outgoing.close();
            outgoing = null;
        }
        if (streamingBody != null) {
            streamingBody.fail(new RequestBody.BodyException(0, "the connection was closed"));
            streamingBody = null;
        }
        if (exchange != null) {
            exchange.abandoned = true;
            exchange = null;
        }
    }

    private void process() {
        if (processing) {
            reprocess = true;
            return;
        }
        processing = true;
        try {
            do {
                reprocess = false;
                step();
            } while (reprocess && !aborted);
        } finally {
            processing = false;
        }
    }

    private void step() {
        while (!aborted) {
            if (streamingBody != null) {
                feedBody();
                if (aborted) {
                    return;
                }
            }
            if (exchange != null) {
                if (!exchange.done) {
                    sendContinueIfDemanded();
                    return;
                }
                completeExchange();
                continue;
            }
            if (outgoing != null) {
                if (!pullBody()) {
                    return;
                }
                continue;
            }
            if (streamingBody != null || closing) {
                // still dropping the rest of an unread body, or finished
                return;
            }
            if (out.pending() >= highWater) {
                blockedOnOutput = true;
                return;
            }
            int result;
            try {
                result = parser.parse(in, request);
            } catch (HttpException e) {
                rejectInput(e);
                return;
            }
            if (result == RequestParser.NEED_MORE) {
                if (inputEnded) {
                    closing = true;
                } else if (request.expectContinue && request.version == Request.HTTP_1_1 && !continueSent && parser.inBody()) {
                    continueSent = true;
                    ResponseEncoder.writeContinue(out);
                }
                return;
            }
            if (result == RequestParser.HEADERS) {
                Route route = routeAtHeaders();
                if (route != null) {
                    startStreamedExchange(route);
                }
                continue;
            }
            in.consume(parser.consumed());
            continueSent = false;
            dispatch(request);
        }
    }

    /**
     * The route of a request whose header section just arrived, if its handler streams the body;
     * else null (buffer it). A blocking handler run inline can only stream through an input pump.
     */
    private Route routeAtHeaders() {
        try {
            Route route = router.route(request);
            boolean canStream = route.async != null || blockingExecutor != null || pump != null;
            return route.streamsBody && canStream ? route : null;
        } catch (HttpException e) {
            return null;
        }
    }

    private void rejectInput(HttpException e) {
        if (log.isDebugEnabled()) {
            log.debug("bad request ({}): {}", e.status(), e.getMessage());
        }
        response.reset();
        boolean head = parser.requestLineParsed() && request.method == Method.HEAD;
        ResponseEncoder.error(out, response, e.status(), e.getMessage(), null, ResponseEncoder.CONNECTION_CLOSE, head);
        closing = true;
    }

    private boolean keepAlive(Request req) {
        return config.keepAlive() && !closeAfterResponse && req.isKeepAliveRequested();
    }

    private void dispatch(Request req) {
        boolean keepAlive = keepAlive(req);
        Route route = req.route;
        if (route == null) {
            try {
                route = router.route(req);
            } catch (HttpException e) {
                response.reset();
                finish(req, response, e, keepAlive);
                return;
            }
        }
        if (route.blocking && blockingExecutor != null) {
            offload(route, new Exchange(req.detach(), keepAlive, null));
            return;
        }
        if (route.async != null) {
            Request copy = req.detach();
            copy.mayBlock = false;
            startAsync(route, new Exchange(copy, keepAlive, null));
            return;
        }
        response.reset();
        response.jsonCodec = route.json;
        Throwable failure = null;
        try {
            route.handler.handle(req, response);
        } catch (Throwable t) {
            failure = t;
        }
        finish(req, response, failure, keepAlive);
    }

    /** A blocking or asynchronous route: its handler gets the request now and reads the body as it arrives. */
    private void startStreamedExchange(Route route) {
        Request copy = request.detach();
        parser.beginStreaming(in, request);
        RequestBody body = new RequestBody(request.chunked ? -1 : request.contentLength, wakeup);
        copy.streamed = body;
        copy.mayBlock = route.blocking;
        continueSent = false;
        Exchange ex = new Exchange(copy, keepAlive(request), body);
        streamingBody = body;
        bodyWaitingSince = 0;
        if (route.async != null) {
            startAsync(route, ex);
        } else if (blockingExecutor != null) {
            offload(route, ex);
        } else {
            if (pump != null) {
                body.source(this::pumpInput);
            }
            exchange = ex;
            runHandler(route, ex);
        }
    }

    private void offload(Route route, Exchange ex) {
        exchange = ex;
        try {
            blockingExecutor.execute(() -> {
                runHandler(route, ex);
                wakeup.run();
            });
        } catch (RejectedExecutionException e) {
            ex.failure = new HttpException(503, "server is shutting down");
            ex.keepAlive = false;
            ex.done = true;
        }
    }

    private static void runHandler(Route route, Exchange ex) {
        try {
            route.handler.handle(ex.request, ex.response);
        } catch (Throwable t) {
            ex.failure = t;
        }
        ex.done = true;
    }

    private void startAsync(Route route, Exchange ex) {
        exchange = ex;
        CompletionStage<?> stage;
        try {
            stage = route.async.handle(ex.request, ex.response);
        } catch (Throwable t) {
            ex.failure = t;
            ex.done = true;
            return;
        }
        if (stage == null) {
            ex.done = true;
            return;
        }
        stage.whenComplete((value, failure) -> {
            ex.failure = failure == null ? null : Router.unwrap(failure);
            ex.done = true;
            if (!ex.abandoned) {
                wakeup.run();
            }
        });
    }

    private void completeExchange() {
        Exchange ex = exchange;
        exchange = null;
        boolean keepAlive = ex.keepAlive && !closeAfterResponse && !closing;
        RequestBody body = ex.body;
        Throwable failure = ex.failure;
        if (body != null) {
            RequestBody.BodyException broken = body.failure();
            if (failure != null && broken != null && broken.status > 0) {
                failure = new HttpException(broken.status, broken.getMessage());
            }
            if (streamingBody == body) {
                long rest = body.length() >= 0 ? body.length() - body.received() : 0;
                if (rest > config.discardLimit() || ex.request.expectContinue && !continueSent) {
                    // dropping the rest would cost more than the limit, or the client still waits for 100
                    streamingBody = null;
                    closing = true;
                    keepAlive = false;
                } else {
                    body.abandon();
                    discardFrom = body.received();
                }
            }
        }
        finish(ex.request, ex.response, failure, keepAlive);
    }

    private void sendContinueIfDemanded() {
        if (streamingBody != null && !continueSent && exchange.request.expectContinue
                && exchange.request.version == Request.HTTP_1_1 && streamingBody.demanded()) {
            continueSent = true;
            ResponseEncoder.writeContinue(out);
        }
    }

    /** Moves what has arrived of a streamed request body to its consumer (or drops it once abandoned). */
    private void feedBody() {
        RequestBody body = streamingBody;
        if (!body.hasRoom()) {
            return;
        }
        int result;
        try {
            result = parser.streamBody(in, bodySink);
        } catch (HttpException e) {
            streamingBody = null;
            body.fail(new RequestBody.BodyException(e.status(), e.getMessage()));
            // the handler gets the failure (and its status is answered if it gives up); a body
            // already answered is just dropped: either way the framing is lost, so the connection ends
            log.debug("bad request body ({}): {}", e.status(), e.getMessage());
            closing = true;
            return;
        }
        if (result == RequestParser.COMPLETE) {
            streamingBody = null;
            continueSent = false;
            body.end();
            return;
        }
        if (body.abandoned() && body.received() - discardFrom > config.discardLimit()) {
            streamingBody = null;
            closing = true;
            return;
        }
        if (inputEnded && body.hasRoom()) {
            // the peer half-closed inside the body: it can never complete, and there is nobody to answer
            abort();
        }
    }

    private int offerBody(MemorySegment data, byte[] array, long offset, int length) {
        return streamingBody.offer(data, array, offset, length);
    }

    /** The {@link RequestBody.Source} of an inline handler: reads more bytes through the pump and feeds them. */
    private boolean pumpInput() throws IOException {
        RequestBody body = streamingBody;
        if (body == null || inputEnded || aborted) {
            return false;
        }
        sendContinueIfDemanded();
        if (in.available() > 0) {
            long before = body.received();
            feedBody();
            if (streamingBody != body || body.received() > before) {
                return streamingBody == body;
            }
            // what is buffered is only part of the framing (a chunk-size line, a chunk's CRLF): read more
        }
        if (pumpBuffer == null) {
            pumpBuffer = ByteBuffer.allocate(config.readBufferSize());
        }
        int n = tls != null ? tls.pump(pump, pumpBuffer) : pump.read(pumpBuffer.clear());
        if (n < 0) {
            inputEnded = true;
        } else if (tls == null) {
            inputActivity = true;
            in.append(pumpBuffer.flip());
        }
        feedBody();
        return streamingBody == body;
    }

    /** Pulls more of a streamed response body; false when it must wait (for the socket or the producer). */
    private boolean pullBody() {
        while (out.pending() < highWater) {
            if (transferFiles && outgoing instanceof OutgoingBody.FileBody file && file.count() > 0
                    || outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0) {
                // the strategy sends it (transferTo, or from its array) once the bytes before it are written
                return false;
            }
            int r;
            try {
                r = outgoing.pull(out);
            } catch (IOException | RuntimeException e) {
                log.debug("streamed response body failed: {}", e.toString());
                abort();
                return false;
            }
            if (r == OutgoingBody.WAIT) {
                awaitingProducer = true;
                return false;
            }
            producerActivity = true;
            awaitingProducer = false;
            if (r == OutgoingBody.END) {
                outgoing.close();
                outgoing = null;
                return true;
            }
        }
        blockedOnOutput = true;
        return false;
    }

    private void finish(Request req, Response res, Throwable failure, boolean keepAlive) {
        int connection = !keepAlive ? ResponseEncoder.CONNECTION_CLOSE
                : req.version == Request.HTTP_1_0 ? ResponseEncoder.CONNECTION_KEEP_ALIVE
                : ResponseEncoder.CONNECTION_DEFAULT;
        if (!keepAlive) {
            closing = true;
        }
        boolean head = req.method == Method.HEAD;
        if (failure == null) {
            if (res.isStreamed()) {
                startOutgoing(req, res, connection, head);
            } else if (!head && sendsInPlace(req, res)) {
                ByteBuffer body = res.bodyBuffer;
                int length = body.remaining();
                ResponseEncoder.encodeStreamedHead(out, res, length, false, connection);
                byte[] array = in.ownArray();
                in.pin();
                outgoing = new OutgoingBody.InPlaceBody(array, req.base + req.bodyStart + body.position(), length,
                        () -> in.unpin(array));
            } else {
                ResponseEncoder.encode(out, res, head, connection);
            }
            return;
        }
        res.closeStreamedBody();
        if (failure instanceof HttpException e) {
            String allow = e instanceof Router.MethodNotAllowed m ? m.allow : null;
            res.reset();
            ResponseEncoder.error(out, res, e.status(), e.getMessage(), allow, connection, head);
        } else {
            log.warn("handler for {} failed", req, failure);
            res.reset();
            ResponseEncoder.error(out, res, 500, "the handler failed", null, connection, head);
        }
    }

    /**
     * Whether the response sends back a large part of the request's own body (an echo), which lies
     * in this connection's input array: it is then written from there instead of copied, and the
     * input buffer leaves that array alone until it is sent.
     */
    private boolean sendsInPlace(Request req, Response res) {
        ByteBuffer body = res.bodyBuffer;
        return body != null && body == req.bodyView && body.remaining() >= IN_PLACE_MIN
                && res.status != 204 && res.status != 304 && req.array != null && req.array == in.ownArray();
    }

    private void startOutgoing(Request req, Response res, int connection, boolean head) {
        long length = res.streamLength;
        boolean noContent = res.status == 204 || res.status == 304;
        boolean chunked = length < 0 && req.version == Request.HTTP_1_1;
        if (length < 0 && !chunked && !noContent && !head) {
            // HTTP/1.0 and no length: the close ends the body
            connection = ResponseEncoder.CONNECTION_CLOSE;
            closing = true;
        }
        ResponseEncoder.encodeStreamedHead(out, res, noContent ? -1 : length, chunked && !noContent, connection);
        if (head || noContent) {
            res.closeStreamedBody();
            return;
        }
        if (res.bodyFile != null) {
            try {
                outgoing = new OutgoingBody.FileBody(res.bodyFile, length);
            } catch (IOException e) {
                log.debug("the file to send failed: {}", e.toString());
                res.closeStreamedBody();
                abort();
                return;
            }
        } else if (res.bodyWriter != null) {
            outgoing = OutgoingBody.PipedBody.start(res.bodyWriter, length, chunked, blockingExecutor, wakeup);
        } else if (blockingExecutor == null) {
            outgoing = new OutgoingBody.InlineStreamBody(res.bodyStream, length, chunked);
        } else {
            InputStream source = res.bodyStream;
            outgoing = OutgoingBody.PipedBody.start(sink -> {
                try (source) {
                    source.transferTo(sink);
                }
            }, length, chunked, blockingExecutor, wakeup);
        }
        res.bodyFile = null;
        res.bodyWriter = null;
        res.bodyStream = null;
        producerWaitingSince = 0;
    }

    /** Bytes of buffer memory the connection holds, for tests of its memory bound. */
    int bufferCapacity() {
        return in.capacity() + out.capacity();
    }

    /** Bytes of output buffer memory, for tests that a body is not copied into it. */
    int outputCapacity() {
        return out.capacity();
    }

    /** A blocking or asynchronous handler's run. The handler's thread writes it; the connection's thread reads it after {@link #done}. */
    private static final class Exchange {
        final Request request;
        final Response response = new Response();
        final RequestBody body;
        boolean keepAlive;
        Throwable failure;
        volatile boolean done;
        /** Answered 503 (handler timeout) or the connection ended: its late completion is ignored. */
        volatile boolean abandoned;
        long since;

        Exchange(Request request, boolean keepAlive, RequestBody body) {
            this.request = request;
            this.keepAlive = keepAlive;
            this.body = body;
            if (request.route != null) {
                response.jsonCodec = request.route.json;
            }
        }
    }
}
