package dev.spindle.core;

import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The core's {@link Connection}: parsing, routing, handlers, encoding, timeouts, and TLS through {@link TlsLayer}. */
final class HttpConnection implements Connection {
    private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);
    /** How long a finished connection keeps reading (and dropping) what the peer still sends before closing. */
    static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How much it drops at most while lingering. */
    static final int LINGER_BYTES = 1 << 20;
    /** Echoed bodies from this size on are sent from the input array; smaller ones are copied behind the head, so one write carries both. */
    static final int IN_PLACE_MIN = 64 * 1024;
    private static final Runnable NO_WAKEUP = () -> { };
    /**
     * The input buffer a connection starts with. A strategy reading into a heap buffer or lending
     * memory has its requests parsed where they arrived, and only an unfinished tail is kept here,
     * so most connections never need more; it grows (doubling) for those that do. With thousands
     * of connections opened and closed (no keep-alive), memory held per connection is what counts.
     */
    static final int INPUT_INITIAL_BYTES = 2048;
    static final int OUTPUT_INITIAL_BYTES = 4096;

    static {
        new Engine() {
            @Override
            protected Connection open(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup,
                    BodyBudget budget) {
                return new HttpConnection(router, config, blockingExecutor, wakeup, budget);
            }

            @Override
            protected Connection rejecting(ServerConfig config, int status, String message) {
                return HttpConnection.rejecting(config, status, message);
            }
        };
    }



    private final Router router;
    private final ServerConfig config;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    /** Replaced by small ones once the connection only drops input ({@link #shedBuffers()}). */
    private InputBuffer in;
    private OutputBuffer out;
    private final RequestParser parser;
    private final Request request = new Request();
    private final Response response = new Response();
    private final int highWater;
    private final RequestParser.BodySink bodySink = this::offerBody;
    /** The blocked-loop threshold, or 0 when handlers are not watched (disabled, or they run on the connection's own thread). */
    private final long blockedLoopNanos;
    /** The watch of the loop thread this connection's handlers last ran on, or null. */
    private LoopWatch loopWatch;

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
    /**
     * {@link #drain()} was called, from any thread: a handler running inline while the server began
     * closing still answers with a close. {@link #drainIdleSince} is when the wait for one more request began.
     */
    private volatile boolean draining;
    private long drainIdleSince;
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
    /** What {@link Response#sent()} handed out for {@link #outgoing}, or null. */
    private CompletableFuture<Long> outgoingSent;
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
    HttpConnection(Router router, ServerConfig config) {
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
    HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup) {
        this(router, config, blockingExecutor, wakeup, null);
    }

    /**
     * As {@link #HttpConnection(Router, ServerConfig, Executor, Runnable)}, holding buffered request
     * bodies within the server's {@code budget}.
     *
     * @param budget shared by the server's connections; null for none
     */
    HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        this(router, config, blockingExecutor, wakeup, budget, INPUT_INITIAL_BYTES, OUTPUT_INITIAL_BYTES);
    }

    private HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget,
            int inputCapacity, int outputCapacity) {
        this.router = router;
        this.config = config;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup != null ? wakeup : NO_WAKEUP;
        this.in = new InputBuffer(inputCapacity, budget);
        this.out = new OutputBuffer(outputCapacity);
        this.parser = new RequestParser(config);
        this.highWater = config.writeHighWaterMark();
        this.tls = config.tls() != null ? new TlsLayer(config.tls().newEngine(), this) : null;
        // a blocking executor means an event loop: a blocking server runs even inline handlers on a thread of their own
        this.blockedLoopNanos = blockingExecutor != null ? config.blockedLoopThreshold().toNanos() : 0;
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
    static HttpConnection rejecting(ServerConfig config, int status, String message) {
        // it parses nothing and answers a short error: the smallest buffers (grown if ever needed)
        HttpConnection c = new HttpConnection(null, config, null, null, null, 0, 0);
        ResponseEncoder.error(c.out, c.response, status, message, null, ResponseEncoder.CONNECTION_CLOSE, false);
        c.closing = true;
        return c;
    }

    @Override
    public void transferFiles(boolean on) {
        // TLS encrypts every byte, so file bodies pass through the output like any other body
        transferFiles = on && tls == null;
    }

    @Override
    public void inputPump(InputPump pump) {
        this.pump = pump;
    }

    @Override
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
            if (append(src)) {
                process();
            }
            return;
        }
        long offset = src.arrayOffset() + src.position();
        src.position(src.limit());
        receivedInPlace(memory, lentKey, offset, length);
    }

    @Override
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
            if (append(memory.asSlice(offset, length).asByteBuffer())) {
                process();
            }
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
        append(src);
    }

    /** Buffers input; false if the budget for buffered bodies refused the room (the request is then refused). */
    private boolean append(ByteBuffer src) {
        try {
            in.append(src);
            return true;
        } catch (InputBuffer.OverBudget e) {
            src.position(src.limit());
            overBudget(e);
            return false;
        }
    }

    /**
     * The server's budget for buffered bodies cannot hold this connection's input: a request not
     * yet answered gets the status (503 with {@code Retry-After}, or 413) and the connection closes;
     * one already being answered just ends. A closing connection needs its input no more.
     */
    private void overBudget(InputBuffer.OverBudget e) {
        log.debug("request refused ({}): {}", e.status(), e.getMessage());
        if (closing) {
            return;
        }
        if (exchange != null || outgoing != null || streamingBody != null) {
            abort();
            return;
        }
        response.reset();
        response.status(e.status());
        if (e.status() == 503) {
            response.header("Retry-After", "1");
        }
        response.text(e.status() + " " + HttpStatus.reason(e.status()) + ": " + e.getMessage() + "\n");
        ResponseEncoder.encode(out, response, parser.requestLineParsed() && request.method == Method.HEAD,
                ResponseEncoder.CONNECTION_CLOSE);
        closing = true;
        if (!processing) {
            in.discard();
        }
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
            try {
                in.keepTail();
            } catch (InputBuffer.OverBudget e) {
                overBudget(e);
            }
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

    @Override
    public void endOfInput() {
        if (tls != null) {
            tls.inputEnded();
        }
        inputEnded = true;
        process();
        fillTls();
    }

    @Override
    public void resume() {
        process();
        fillTls();
    }

    @Override
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

    @Override
    public FileRegion outboundFile() {
        return tls == null && fileReady() ? (OutgoingBody.FileBody) outgoing : null;
    }

    private boolean fileReady() {
        return transferFiles && out.pending() == 0 && outgoing instanceof OutgoingBody.FileBody f && f.count() > 0;
    }

    @Override
    public boolean hasOutbound() {
        return tls != null ? tls.hasOutbound() : plaintextHasOutbound();
    }

    boolean plaintextHasOutbound() {
        return out.pending() > 0 || fileReady() || outgoing instanceof OutgoingBody.InPlaceBody body && body.count() > 0;
    }

    @Override
    public int outboundBytes() {
        return outbound().remaining();
    }

    @Override
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

    @Override
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

    @Override
    public boolean isLingering() {
        return closing && !aborted && flushed() && !inputEnded && !lingerDone;
    }

    @Override
    public boolean shouldClose() {
        return aborted || closing && flushed() && (inputEnded || lingerDone);
    }

    @Override
    public boolean isFinished() {
        return aborted || closing && flushed();
    }

    @Override
    public boolean isIdle() {
        return !closing && !aborted && exchange == null && outgoing == null && out.pending() == 0 && !parser.inProgress(in)
                && (tls == null || !tls.hasOutbound());
    }

    @Override
    public boolean hasPartialRequest() {
        return exchange == null && outgoing == null && parser.inProgress(in);
    }

    @Override
    public boolean isAwaitingHandler() {
        return exchange != null;
    }

    @Override
    public void closeAfterResponse() {
        closeAfterResponse = true;
    }

    @Override
    public void drain() {
        draining = true;
    }

    private long drainIdleGraceNanos() {
        return Math.min(TimeUnit.MILLISECONDS.toNanos(DRAIN_IDLE_GRACE_MILLIS), config.drainTimeout().toNanos() / 2);
    }

    @Override
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
                    shedBuffers();
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
        if (draining && out.pending() == 0) {
            if (drainIdleSince == 0) {
                drainIdleSince = now;
            } else if (now - drainIdleSince >= drainIdleGraceNanos()) {
                closing = true;
                return;
            }
        }
        if (out.pending() == 0 && now - lastActivity >= config.idleTimeout().toNanos()) {
            abort();
        }
    }

    /**
     * A lingering connection only drops what still arrives: it lets go of its buffers, and of the
     * strategy's read buffer it was lent last, so the connections a busy server is closing hold
     * almost nothing.
     */
    private void shedBuffers() {
        if (streamingBody != null || in.isLent()) {
            return;
        }
        in.releaseAll();
        in = new InputBuffer(0);
        out = new OutputBuffer(0);
        request.reset();
        response.reset();
        lentKey = null;
        lentMemory = null;
        pumpBuffer = null;
    }

    @Override
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
        long idle = since + config.idleTimeout().toNanos() - now;
        if (draining) {
            idle = Math.min(idle, (drainIdleSince != 0 ? drainIdleSince : now) + drainIdleGraceNanos() - now);
        }
        return Math.max(1, idle);
    }

    @Override
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

    @Override
    public void closed() {
        if (!aborted) {
            abort();
        }
        in.releaseAll();
    }

    /** Gives up on the connection: nothing more is sent, and the strategy closes it. */
    private void abort() {
        aborted = true;
        release();
        in.releaseAll();
    }

    /** Lets go of everything that waits on the connection: a streamed body, a request-body consumer, a handler. */
    private void release() {
        if (outgoing != null) {
            outgoing.close();
            outgoing = null;
        }
        if (outgoingSent != null) {
            outgoingSent.completeExceptionally(new IOException("the connection ended before the body was sent"));
            outgoingSent = null;
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
            if (closing) {
                // no request will be read again: a body buffered for one is given back at once
                in.discard();
            }
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
                boolean streams = route != null && streams(route);
                try {
                    // the route's limit (or the server's, buffered or streamed), and room for a buffered body of known length
                    parser.limitBody(route != null ? route.bodyLimit(config, streams) : config.maxBodySize(), request);
                    if (!streams && !request.chunked) {
                        in.reserveFor(request.bodyStart + request.contentLength);
                    }
                } catch (HttpException e) {
                    rejectInput(e);
                    return;
                }
                if (streams) {
                    startStreamedExchange(route);
                }
                continue;
            }
            in.consumeRequest(parser.consumed());
            continueSent = false;
            dispatch(request);
            in.shrinkIfDone();
            forgetLargeBody();
        }
    }

    /**
     * The request just handled had a large body: the input buffer let its array go (or an echo
     * being sent holds it), so the request and response must not keep it reachable while the
     * connection waits or lingers, outside the budget that no longer counts it.
     */
    private void forgetLargeBody() {
        byte[] array = request.array;
        if (array != null && array.length > OutputBuffer.RETAIN_LIMIT) {
            request.reset();
            response.reset();
        }
    }

    /** The route of a request whose header section just arrived, or null when none matched (404, 405). */
    private Route routeAtHeaders() {
        try {
            return router.route(request);
        } catch (HttpException e) {
            return null;
        }
    }

    /**
     * Whether the route's handler gets its body streamed; else it is buffered. A blocking handler
     * run inline can only stream through an input pump.
     */
    private boolean streams(Route route) {
        boolean canStream = route.async != null || blockingExecutor != null || pump != null;
        return route.streamsBody && canStream;
    }

    private void rejectInput(HttpException e) {
        if (e instanceof InputBuffer.OverBudget over) {
            overBudget(over);
            return;
        }
        if (log.isDebugEnabled()) {
            log.debug("bad request ({}): {}", e.status(), e.getMessage());
        }
        response.reset();
        boolean head = parser.requestLineParsed() && request.method == Method.HEAD;
        ResponseEncoder.error(out, response, e.status(), e.getMessage(), null, ResponseEncoder.CONNECTION_CLOSE, head);
        closing = true;
    }

    private boolean keepAlive(Request req) {
        return config.keepAlive() && !closeAfterResponse && !draining && req.isKeepAliveRequested();
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
        LoopWatch watch = loopWatch();
        if (watch != null) {
            watch.enter(route, blockedLoopNanos);
        }
        try {
            route.handler.handle(req, response);
        } catch (Throwable t) {
            failure = t;
        }
        if (watch != null) {
            watch.exit();
        }
        finish(req, response, failure, keepAlive);
    }

    /** The blocked-loop watch of the current thread when handlers run on an event loop and the detector is on, else null. */
    private LoopWatch loopWatch() {
        if (blockedLoopNanos == 0) {
            return null;
        }
        LoopWatch watch = loopWatch;
        if (watch == null || watch.thread != Thread.currentThread()) {
            watch = LoopWatch.ofCurrentThread(blockedLoopNanos);
            loopWatch = watch;
        }
        return watch;
    }

    /** A blocking or asynchronous route: its handler gets the request now and reads the body as it arrives. */
    private void startStreamedExchange(Route route) {
        Request copy = request.detach();
        parser.beginStreaming(in, request);
        RequestBody body = new RequestBody(request.chunked ? -1 : request.contentLength, wakeup);
        body.collectLimit = route.bodyLimit(config, false);
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
        // an asynchronous handler starts on the loop too, and must not block it either
        LoopWatch watch = loopWatch();
        if (watch != null) {
            watch.enter(route, blockedLoopNanos);
        }
        try {
            stage = route.async.handle(ex.request, ex.response);
        } catch (Throwable t) {
            ex.failure = t;
            ex.done = true;
            return;
        } finally {
            if (watch != null) {
                watch.exit();
            }
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
            try {
                in.append(pumpBuffer.flip());
            } catch (InputBuffer.OverBudget e) {
                streamingBody = null;
                body.fail(new RequestBody.BodyException(e.status(), e.getMessage()));
                closing = true;
                return false;
            }
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
                if (outgoingSent != null) {
                    outgoingSent.complete(outgoing.sentBytes());
                    outgoingSent = null;
                }
                outgoing = null;
                return true;
            }
        }
        blockedOnOutput = true;
        return false;
    }

    private void finish(Request req, Response res, Throwable failure, boolean keepAlive) {
        // decided again after the handler ran: the drain may have begun meanwhile, on another thread
        keepAlive &= !draining;
        int connection = !keepAlive ? ResponseEncoder.CONNECTION_CLOSE
                : req.version == Request.HTTP_1_0 ? ResponseEncoder.CONNECTION_KEEP_ALIVE
                : ResponseEncoder.CONNECTION_DEFAULT;
        if (!keepAlive) {
            closing = true;
        }
        boolean head = req.method == Method.HEAD;
        if (failure == null) {
            if (res.isStreamed()) {
                CompletableFuture<Long> sent = res.takeSent();
                startOutgoing(req, res, connection, head);
                if (sent != null) {
                    if (outgoing != null) {
                        outgoingSent = sent;
                    } else if (aborted) {
                        sent.completeExceptionally(new IOException("the body could not be sent"));
                    } else {
                        sent.complete(0L);
                    }
                }
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
        // the router's default answer: an HttpException's status (a body broken on the wire: its status), else 500
        Router.answerFailure(req, res, failure);
        ResponseEncoder.encode(out, res, head, connection);
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
