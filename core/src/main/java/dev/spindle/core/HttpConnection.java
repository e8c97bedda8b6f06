package dev.spindle.core;

import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Engine;
import dev.spindle.core.spi.Next;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's {@link Connection} for plain HTTP/1.1: parsing, routing, handlers, encoding and
 * timeouts ({@link Deadlines}). TLS is a layer around it ({@link TlsConnection}).
 */
final class HttpConnection implements Connection, Deadlines.Waits {
    private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);
    /** How long a finished connection keeps reading (and dropping) what the peer still sends before closing. */
    static final long LINGER_NANOS = Deadlines.LINGER_NANOS;
    /** How much it drops at most while lingering. */
    static final int LINGER_BYTES = 1 << 20;
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
                return withTls(new HttpConnection(router, config, blockingExecutor, wakeup, budget));
            }

            @Override
            protected Connection rejecting(ServerConfig config, int status, String message) {
                return withTls(HttpConnection.rejecting(config, status, message));
            }
        };
    }

    /** {@code http} itself, or wrapped in TLS when its configuration has it. */
    static Connection withTls(HttpConnection http) {
        return http.config.tls() != null ? new TlsConnection(http, http.config) : http;
    }

    private final Router router;
    private final ServerConfig config;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    /** Replaced by small ones once the connection only drops input ({@link #shedBuffers()}). */
    private InputBuffer in;
    private final ResponseWriter writer;
    private final RequestParser parser;
    private final Request request = new Request();
    private final Response response = new Response();
    private final int highWater;
    private final RequestParser.BodySink bodySink = this::offerBody;
    private final HandlerRunner handlers;

    private final Deadlines deadlines;
    private InputPump pump;
    private ByteBuffer pumpBuffer;

    /** No more requests will be processed: finish the output, then linger and close. */
    private boolean closing;
    /** Close the socket now; nothing more will be sent. */
    private boolean aborted;
    private boolean closeAfterResponse;
    /**
     * {@link #drain()} was called, from any thread: a handler running inline while the server began
     * closing still answers with a close.
     */
    private volatile boolean draining;
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

    private byte[] lentKey;
    private MemorySegment lentMemory;

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
        this.parser = new RequestParser(config);
        this.highWater = config.writeHighWaterMark();
        this.deadlines = new Deadlines(config, DRAIN_IDLE_GRACE_MILLIS);
        this.writer = new ResponseWriter(outputCapacity, highWater, blockingExecutor, this.wakeup, deadlines);
        // a blocking executor means an event loop: a blocking server runs even inline handlers on a thread of their own
        this.handlers = new HandlerRunner(blockingExecutor, this.wakeup, config.blockedLoopThreshold().toNanos());
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
        ResponseEncoder.error(c.writer.buffer(), c.response, status, message, null, ResponseEncoder.CONNECTION_CLOSE, false);
        c.closing = true;
        return c;
    }

    @Override
    public void transferFiles(boolean on) {
        writer.transferFiles(on);
    }

    @Override
    public void inputPump(InputPump pump) {
        this.pump = pump;
    }

    @Override
    public Next received(ByteBuffer src) {
        int length = src.remaining();
        if (length == 0) {
            return next();
        }
        deadlines.inputActivity();
        if (closing || aborted) {
            src.position(src.limit());
            dropped(length);
            return next();
        }
        MemorySegment memory = in.available() == 0 && !processing ? lendable(src) : null;
        if (memory == null) {
            if (append(src)) {
                process();
            }
            return next();
        }
        long offset = src.arrayOffset() + src.position();
        src.position(src.limit());
        receivedInPlace(memory, lentKey, offset, length);
        return next();
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        if (length == 0) {
            return next();
        }
        deadlines.inputActivity();
        if (closing || aborted) {
            dropped(length);
            return next();
        }
        if (in.available() > 0 || memory.isReadOnly() || processing) {
            if (append(memory.asSlice(offset, length).asByteBuffer())) {
                process();
            }
            return next();
        }
        receivedInPlace(memory, null, offset, length);
        return next();
    }

    /**
     * Answers {@code status} with {@code message} and a close before reading anything, such as a
     * plain HTTP request on a TLS port (a connection already being refused keeps its refusal).
     */
    void refuse(int status, String message) {
        if (!closing) {
            response.reset();
            ResponseEncoder.error(writer.buffer(), response, status, message, null, ResponseEncoder.CONNECTION_CLOSE, false);
            closing = true;
        }
    }

    /** Input arrived (for a layer around the connection, such as TLS, whose bytes the connection does not see). */
    void inputActivity() {
        deadlines.inputActivity();
    }

    /** Output was written (by a layer around the connection). */
    void outputActivity() {
        deadlines.outputActivity();
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
        if (exchange != null || writer.sending() || streamingBody != null) {
            abort();
            return;
        }
        response.reset();
        response.status(e.status());
        if (e.status() == 503) {
            response.header("Retry-After", "1");
        }
        response.text(e.status() + " " + HttpStatus.reason(e.status()) + ": " + e.getMessage() + "\n");
        ResponseEncoder.encode(writer.buffer(), response, parser.requestLineParsed() && request.method == Method.HEAD,
                ResponseEncoder.CONNECTION_CLOSE);
        closing = true;
        if (!processing) {
            in.discard();
        }
    }

    /** The layer around the connection failed (TLS): no request can be read or answered; it still sends what it has, then closes. */
    void inputFailed() {
        release();
        closing = true;
        inputEnded = true;
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
    public Next endOfInput() {
        if (!inputEnded) {
            inputEnded = true;
            process();
        }
        return next();
    }

    @Override
    public Next resume() {
        process();
        return next();
    }

    @Override
    public ByteBuffer outbound() {
        return writer.outbound();
    }

    @Override
    public FileRegion outboundFile() {
        return writer.outboundFile();
    }

    /** Whether bytes or a file region wait to be written. */
    boolean hasOutbound() {
        return writer.hasOutbound();
    }

    @Override
    public Next written(int bytes) {
        if (bytes == 0) {
            return next();
        }
        writer.written(bytes);
        if ((blockedOnOutput || writer.sending()) && !writer.full()) {
            blockedOnOutput = false;
            process();
        }
        return next();
    }

    @Override
    public Next next() {
        if (aborted) {
            return Next.CLOSE;
        }
        if (closing && flushed()) {
            return inputEnded || lingerDone ? Next.CLOSE : Next.LINGER;
        }
        return Next.of(wantsInput(), hasOutbound());
    }

    @Override
    public State state() {
        if (aborted) {
            return State.CLOSED;
        }
        if (closing) {
            return !flushed() ? State.CLOSING : inputEnded || lingerDone ? State.CLOSED : State.LINGERING;
        }
        if (exchange != null) {
            return State.HANDLING;
        }
        if (!writer.idle()) {
            return State.SENDING;
        }
        return parser.inProgress(in) ? State.READING_REQUEST : State.IDLE;
    }

    /** Whether a read is useful now (open, not closing, not held back). */
    private boolean wantsInput() {
        if (aborted || inputEnded || closing) {
            return false;
        }
        if (streamingBody != null) {
            return streamingBody.hasRoom() && in.available() < highWater;
        }
        return exchange == null && !writer.sending() && !writer.full();
    }

    private boolean flushed() {
        return writer.idle() && exchange == null;
    }

    /** The connection is closing and has handed out everything: a layer around it (TLS) may end its side. */
    boolean outputFinished() {
        return closing && !aborted && flushed();
    }

    /** Whether the connection gave up (a timeout, a failure): nothing more is sent. */
    boolean aborted() {
        return aborted;
    }

    @Override
    public boolean outputPending() {
        return hasOutbound();
    }

    @Override
    public boolean closing() {
        return closing;
    }

    @Override
    public boolean lingering() {
        return closing && !aborted && flushed() && !inputEnded && !lingerDone;
    }

    @Override
    public boolean bodyAwaited() {
        return streamingBody != null && exchange != null && streamingBody.hasRoom();
    }

    @Override
    public boolean bodyStreaming() {
        return streamingBody != null;
    }

    @Override
    public boolean handling() {
        return exchange != null;
    }

    @Override
    public boolean handlerDone() {
        return exchange.done;
    }

    @Override
    public boolean sending() {
        return writer.sending();
    }

    @Override
    public boolean awaitingProducer() {
        return writer.awaitingProducer();
    }

    @Override
    public boolean requestInProgress() {
        return parser.inProgress(in);
    }

    @Override
    public boolean draining() {
        return draining;
    }

    @Override
    public void closeAfterResponse() {
        closeAfterResponse = true;
    }

    @Override
    public void drain() {
        draining = true;
    }

    @Override
    public Next tick(long now) {
        if (aborted) {
            return Next.CLOSE;
        }
        switch (deadlines.expired(now, this)) {
            case WRITE -> {
                log.debug("write timeout: the peer took no output for {}", config.writeTimeout());
                abort();
            }
            case LINGER_STARTED -> shedBuffers();
            case LINGER -> lingerDone = true;
            case BODY -> {
                RequestBody body = streamingBody;
                streamingBody = null;
                closing = true;
                body.fail(new RequestBody.BodyException(408, "request body not received in time"));
            }
            case HANDLER -> handlerTimedOut(exchange);
            case PRODUCER -> {
                log.warn("a streamed response body produced nothing for {}; closing its connection", config.handlerTimeout());
                abort();
            }
            case REQUEST -> requestTimedOut();
            case DRAIN_IDLE -> closing = true;
            case IDLE -> abort();
            case NONE -> { }
        }
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        return deadlines.nanosToTick(now, this);
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
        writer.shed();
        request.reset();
        response.reset();
        lentKey = null;
        lentMemory = null;
        pumpBuffer = null;
    }

    private void requestTimedOut() {
        log.debug("request not received within {}", config.headerTimeout());
        // a body being dropped after its answer gets no second answer
        if (!hasOutbound() && streamingBody == null) {
            response.reset();
            ResponseEncoder.error(writer.buffer(), response, 408, "request not received in time", null, ResponseEncoder.CONNECTION_CLOSE, false);
        }
        closing = true;
        deadlines.requestEnded();
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
        ResponseEncoder.error(writer.buffer(), response, 503, "the handler did not answer in time", null, ResponseEncoder.CONNECTION_CLOSE,
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
    void abort() {
        aborted = true;
        release();
        in.releaseAll();
    }

    /** Lets go of everything that waits on the connection: a streamed body, a request-body consumer, a handler. */
    private void release() {
        writer.release();
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
            if (writer.sending()) {
                ResponseWriter.Outcome pulled = writer.pull();
                if (pulled == ResponseWriter.Outcome.FAILED) {
                    abort();
                    return;
                }
                if (pulled == ResponseWriter.Outcome.WAIT) {
                    blockedOnOutput = writer.full();
                    return;
                }
                continue;
            }
            if (streamingBody != null || closing) {
                // still dropping the rest of an unread body, or finished
                return;
            }
            if (writer.full()) {
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
                    ResponseEncoder.writeContinue(writer.buffer());
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
        return route.streamsBody && handlers.canStream(route, pump != null);
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
        ResponseEncoder.error(writer.buffer(), response, e.status(), e.getMessage(), null, ResponseEncoder.CONNECTION_CLOSE, head);
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
        if (handlers.deferred(route)) {
            Request copy = req.detach();
            if (route.async != null) {
                copy.mayBlock = false;
            }
            begin(route, new Exchange(copy, keepAlive, null));
            return;
        }
        response.reset();
        response.jsonCodec = route.json;
        finish(req, response, handlers.runInline(route, req, response), keepAlive);
    }

    /** Hands a request to a handler that answers later (or, inline, reading its streamed body): the connection waits for it. */
    private void begin(Route route, Exchange ex) {
        exchange = ex;
        deadlines.handlerStarted();
        handlers.start(route, ex);
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
        deadlines.bodyStarted();
        if (pump != null && handlers.runsHere(route)) {
            body.source(this::pumpInput);
        }
        begin(route, ex);
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
            ResponseEncoder.writeContinue(writer.buffer());
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
        int n = pump.read(pumpBuffer.clear());
        if (n < 0) {
            inputEnded = true;
        } else {
            deadlines.inputActivity();
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


    private void finish(Request req, Response res, Throwable failure, boolean keepAlive) {
        // decided again after the handler ran: the drain may have begun meanwhile, on another thread
        keepAlive &= !draining;
        int connection = !keepAlive ? ResponseEncoder.CONNECTION_CLOSE
                : req.version == Request.HTTP_1_0 ? ResponseEncoder.CONNECTION_KEEP_ALIVE
                : ResponseEncoder.CONNECTION_DEFAULT;
        if (!keepAlive) {
            closing = true;
        }
        switch (writer.respond(req, res, failure, in, connection)) {
            case CLOSE_AFTER -> closing = true;
            case FAILED -> abort();
            default -> { }
        }
    }

    /** Bytes of buffer memory the connection holds, for tests of its memory bound. */
    int bufferCapacity() {
        return in.capacity() + writer.capacity();
    }

    /** Bytes of output buffer memory, for tests that a body is not copied into it. */
    int outputCapacity() {
        return writer.capacity();
    }
}
