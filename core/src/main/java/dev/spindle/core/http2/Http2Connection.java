package dev.spindle.core.http2;

import dev.spindle.core.HttpException;
import dev.spindle.core.Method;
import dev.spindle.core.RequestBody;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.bytes.HttpDate;
import dev.spindle.core.exchange.ApiAccess;
import dev.spindle.core.exchange.BodyException;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.exchange.Exchange;
import dev.spindle.core.exchange.HandlerRunner;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.exchange.ResponseState;
import dev.spindle.core.exchange.Route;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's {@link Connection} for HTTP/2 (RFC 9113): frames in, streams dispatched to the same
 * router and handlers as HTTP/1.1 ({@link HandlerRunner}), responses out as HEADERS and DATA
 * frames interleaved round-robin within both flow-control windows. Request bodies are buffered for
 * handlers that want them whole, and streamed to the others with WINDOW_UPDATEs given back only as
 * the handler consumes them, so a slow handler holds at most its stream's window. The strategy
 * moves bytes exactly as for HTTP/1.1.
 *
 * <p>Defences: a client that resets streams (or makes the server reset them) faster than
 * {@link Http2Limits#resetsPerWindow} per {@link Http2Limits#RESET_WINDOW_NANOS} gets GOAWAY
 * ENHANCE_YOUR_CALM; handlers of reset streams keep their concurrency slot until they finish; a
 * header block is bounded in size and in CONTINUATION frames; HPACK counts the header list while
 * decoding; floods of SETTINGS, PING and empty frames are bounded the same way; input is not read
 * while the peer leaves output unread.
 */
public final class Http2Connection implements LayeredConnection, FrameListener {
    private static final Logger log = LoggerFactory.getLogger(Http2Connection.class);
    private static final ApiAccess API = ApiAccess.get();
    private static final Runnable NO_WAKEUP = () -> { };
    private static final HpackDecoder.Sink DISCARD = (n, no, nl, v, vo, vl) -> { };
    private static final int MAX_WINDOW = Integer.MAX_VALUE;
    private static final Executor STREAM_THREADS = task -> Thread.ofVirtual().name("spindle-h2-stream").start(task);
    /**
     * How soon a thread-per-connection strategy must tick while handlers or body producers are in
     * flight: its thread sits in a blocking read, so the tick is what notices they finished.
     */
    private static final long BUSY_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final int DEFAULT_WINDOW = 65_535;
    private static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    private static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    private static final int SETTINGS_ENABLE_PUSH = 0x2;
    private static final byte[] SERVER = "spindle".getBytes(StandardCharsets.US_ASCII);
    /** Finished streams kept for reuse while the connection is busy, and while it idles. */
    private static final int FREE_STREAMS = 32;
    private static final int FREE_STREAMS_IDLE = 4;
    /** The content-length values of small bodies, made once: a response's length costs no allocation. */
    private static final byte[][] DECIMALS = new byte[4096][];

    static {
        for (int i = 0; i < DECIMALS.length; i++) {
            DECIMALS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static final byte[] SERVER_NAME = bytes("server");
    private static final byte[] DATE = bytes("date");
    private static final byte[] CONTENT_TYPE = bytes("content-type");

    /** What a header block being received belongs to. */
    private enum Block { REQUEST, TRAILERS, REFUSED, HALF_CLOSED, CLOSED_STREAM, LOWER_ID, IGNORED }

    private final ServerConfig config;
    private final Router router;
    private final Http2Limits limits;
    private final HandlerRunner handlers;
    private final Executor blockingExecutor;
    private final Runnable wakeup;
    private final BodyBudget budget;
    private final int highWater;
    private final FrameReader reader;
    private final HpackDecoder decoder;
    private final HpackEncoder encoder;
    private final RequestHead head = new RequestHead();
    private WireBuffer out;
    private final StreamMap streams = new StreamMap();
    private final ArrayDeque<Stream> free = new ArrayDeque<>();
    /** Streams whose blocking or asynchronous handler is in flight. */
    private final ArrayList<Stream> handling = new ArrayList<>();
    /** Streams holding DATA their body's consumer has not taken yet. */
    private final ArrayList<Stream> backlogged = new ArrayList<>();
    /** Streams whose streamed response body waits for its producer: the wakeup queues them again. */
    private final ArrayList<Stream> producing = new ArrayList<>();
    /** Streams closed while their handler still ran: they hold a concurrency slot until it finishes. */
    private final ArrayList<Stream> abandoned = new ArrayList<>();
    /** Streams with response DATA waiting to be sent, in round-robin order. */
    private Stream queueHead;
    private Stream queueTail;
    /** Streams this side reset lately: frames the peer sent before it learnt of the reset are ignored. */
    private final IdRing recentlyReset = new IdRing(32);
    /** Streams that ended lately (both sides done, or reset by the peer): frames on them are STREAM_CLOSED errors. */
    private final IdRing recentlyClosed = new IdRing(64);

    private int lastStreamId;
    private long sendWindow = DEFAULT_WINDOW;
    private int receiveWindow;
    private int unacknowledged;
    private long peerInitialWindow = DEFAULT_WINDOW;
    private int peerMaxFrameSize = 16_384;

    private byte[] block = new byte[1024];
    private int blockLength;
    private Block blockKind;
    private Stream blockStream;
    private int blockStreamId;
    private boolean blockEndStream;
    private int blockFrames;

    private final RateCounter resets;
    private final RateCounter controlFrames;
    private int emptyFrames;
    private String lastContentType;
    private byte[] lastContentTypeBytes;

    private boolean inputEnded;
    /** GOAWAY was sent: no new stream is accepted. */
    private boolean goingAway;
    /** No more frames are processed: a connection error, or every stream finished after GOAWAY. */
    private boolean finishing;
    private boolean lingering;
    private boolean aborted;
    private volatile boolean drainRequested;
    private boolean inputSeen;
    private boolean outputSeen;
    private long lastInput;
    private long lastOutput;
    private long lingerStarted;
    private final long createdAt = System.nanoTime();
    /** The time of the last tick: what stream activity is stamped with (a read is not worth a clock call). */
    private long clock = createdAt;
    private long blockStarted;

    /**
     * A connection that has received nothing yet: the client's preface comes first. Its own
     * SETTINGS are ready in {@link #outbound()} at once (RFC 9113 3.4).
     *
     * @param router the routes streams are dispatched to
     * @param config limits and timeouts
     * @param blockingExecutor where blocking handlers run; null (a strategy whose connection has a
     *        thread of its own) runs each on a virtual thread of its own
     * @param wakeup called from any thread when a handler finished or a body consumer wants more
     * @param budget the server's budget for buffered bodies, or null
     */
    public Http2Connection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        this(router, config, blockingExecutor, wakeup, budget, null);
    }

    /**
     * The connection an HTTP/1.1 request switched to h2c with {@code Upgrade: h2c}: its
     * {@code HTTP2-Settings} apply as if sent in a SETTINGS frame, and the request is stream 1,
     * half-closed (remote), dispatched at once; the client's preface comes next.
     *
     * @param router the routes streams are dispatched to
     * @param config limits and timeouts
     * @param blockingExecutor where blocking handlers run; null runs them inline
     * @param wakeup called from any thread when a handler finished or a body consumer wants more
     * @param budget the server's budget for buffered bodies, or null
     * @param request the upgrading request, detached from the HTTP/1.1 input
     * @param settings the SETTINGS payload its {@code HTTP2-Settings} carried
     * @param before bytes to send first: the 101 answer (and any HTTP/1.1 answer still pending before it)
     * @return the connection
     */
    public static Http2Connection upgraded(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup,
            BodyBudget budget, RequestState request, byte[] settings, byte[] before) {
        Http2Connection c = new Http2Connection(router, config, blockingExecutor, wakeup, budget, before);
        c.acceptUpgrade(request, settings);
        return c;
    }

    private Http2Connection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget,
            byte[] before) {
        this.config = config;
        this.router = router;
        this.limits = Http2Limits.of(config);
        this.wakeup = wakeup != null ? wakeup : NO_WAKEUP;
        // without an executor the strategy gives each connection a thread of its own (blocking servers): its
        // streams' blocking handlers then run on a virtual thread each, so one stream never waits for another
        Executor executor = blockingExecutor != null ? blockingExecutor : STREAM_THREADS;
        // a connection's own thread is no event loop: its inline handlers are not watched (a watch per thread)
        long watched = blockingExecutor != null ? config.blockedLoopThreshold().toNanos() : 0;
        this.handlers = new HandlerRunner(executor, this.wakeup, watched);
        this.blockingExecutor = executor;
        this.budget = budget;
        this.highWater = config.writeHighWaterMark();
        this.reader = new FrameReader(limits.maxFrameSize());
        this.reader.expectPreface();
        this.decoder = new HpackDecoder(limits.headerTableSize(), limits.maxHeaderListSize());
        this.encoder = new HpackEncoder(limits.headerTableSize());
        this.out = new WireBuffer(1024);
        this.resets = new RateCounter(limits.resetsPerWindow(), Http2Limits.RESET_WINDOW_NANOS);
        this.controlFrames = new RateCounter(limits.controlFramesPerWindow(), Http2Limits.RESET_WINDOW_NANOS);
        this.receiveWindow = limits.connectionWindow();
        if (before != null) {
            out.put(before, 0, before.length);
        }
        Frames.settings(out, SETTINGS_MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams(),
                SETTINGS_INITIAL_WINDOW_SIZE, limits.streamWindow(),
                SETTINGS_MAX_FRAME_SIZE, limits.maxFrameSize(),
                SETTINGS_MAX_HEADER_LIST_SIZE, limits.maxHeaderListSize(),
                SETTINGS_ENABLE_PUSH, 0);
        if (limits.connectionWindow() > DEFAULT_WINDOW) {
            Frames.windowUpdate(out, 0, limits.connectionWindow() - DEFAULT_WINDOW);
        }
    }

    private void acceptUpgrade(RequestState request, byte[] settings) {
        try {
            for (int i = 0; i + 6 <= settings.length; i += 6) {
                int id = ((settings[i] & 0xFF) << 8) | (settings[i + 1] & 0xFF);
                long value = ((long) (settings[i + 2] & 0xFF) << 24) | ((settings[i + 3] & 0xFF) << 16)
                        | ((settings[i + 4] & 0xFF) << 8) | (settings[i + 5] & 0xFF);
                FrameReader.checkSetting(id, value);
                setting(id, value);
            }
        } catch (Http2Exception e) {
            connectionError(e.code(), "HTTP2-Settings: " + e.getMessage());
            return;
        }
        Stream s = new Stream();
        s.open(1, limits.streamWindow(), peerInitialWindow);
        s.adopt(request);
        lastStreamId = 1;
        streams.put(s);
        dispatch(s);
        flush();
    }

    @Override
    public void transferFiles(boolean on) {
        // file bodies go out in DATA frames, through the output buffer
    }

    @Override
    public void inputPump(InputPump pump) {
        // streamed request bodies are fed from the frames as they arrive; inline handlers get them buffered
    }

    @Override
    public Next received(ByteBuffer src) {
        if (!src.hasRemaining()) {
            return next();
        }
        inputSeen = true;
        if (finishing || aborted) {
            src.position(src.limit());
            return next();
        }
        while (src.hasRemaining() && !finishing) {
            try {
                reader.read(src, this);
            } catch (Http2Exception e) {
                if (e.connectionError()) {
                    connectionError(e.code(), e.getMessage());
                } else {
                    log.debug("stream {} reset: {}", e.streamId(), e.getMessage());
                    reset(e.streamId(), e.code());
                }
            }
        }
        src.position(src.limit());
        flush();
        return next();
    }

    @Override
    public Next received(MemorySegment memory, long offset, int length) {
        return length == 0 ? next() : received(memory.asSlice(offset, length).asByteBuffer());
    }

    @Override
    public Next endOfInput() {
        if (!inputEnded) {
            inputEnded = true;
            // streams whose request can no longer complete end here; complete ones are still answered
            streams.forEach(s -> {
                if (!s.remoteClosed()) {
                    close(s);
                }
            });
            goingAway = true;
        }
        flush();
        return next();
    }

    @Override
    public Next resume() {
        completeDone();
        feedStreamedBodies();
        releaseAbandoned();
        for (Stream s : producing) {
            enqueue(s);
        }
        producing.clear();
        flush();
        return next();
    }

    /** Answers the streams whose handler finished. */
    private void completeDone() {
        for (int i = 0; i < handling.size(); ) {
            Stream s = handling.get(i);
            if (s.exchange.done) {
                handling.remove(i);
                completeExchange(s);
            } else {
                i++;
            }
        }
    }

    @Override
    public Next next() {
        if (aborted) {
            return Next.CLOSE;
        }
        boolean write = out.pending() > 0;
        if (!finishing && !write && (goingAway && streams.size() == 0
                // the peer sends nothing more, so no WINDOW_UPDATE either: what still waits for one never goes
                || inputEnded && handling.isEmpty() && producing.isEmpty())) {
            finishing = true;
        }
        if (finishing && !write) {
            if (!lingering) {
                lingering = true;
                lingerStarted = 0;
            }
            return inputEnded ? Next.CLOSE : Next.LINGER;
        }
        return Next.of(!inputEnded && !finishing && out.pending() < highWater, write);
    }

    @Override
    public State state() {
        if (aborted) {
            return State.CLOSED;
        }
        if (lingering) {
            return State.LINGERING;
        }
        if (finishing || goingAway) {
            return State.CLOSING;
        }
        if (!handling.isEmpty()) {
            return State.HANDLING;
        }
        if (out.pending() > 0 || queueHead != null) {
            return State.SENDING;
        }
        return streams.size() > 0 || blockKind != null ? State.READING_REQUEST : State.IDLE;
    }

    @Override
    public ByteBuffer outbound() {
        return out.view();
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
        out.written(bytes);
        outputSeen = true;
        flush();
        return next();
    }

    @Override
    public void closeAfterResponse() {
        goAway(ErrorCode.NO_ERROR, null);
    }

    @Override
    public void drain() {
        drainRequested = true;
    }

    @Override
    public Next tick(long now) {
        if (aborted) {
            return Next.CLOSE;
        }
        if (drainRequested && !goingAway) {
            goAway(ErrorCode.NO_ERROR, null);
        }
        if (inputSeen || lastInput == 0) {
            inputSeen = false;
            lastInput = now;
        }
        if (outputSeen || out.pending() == 0 || lastOutput == 0) {
            outputSeen = false;
            lastOutput = now;
        }
        clock = now;
        if (lingering) {
            if (lingerStarted == 0) {
                lingerStarted = now;
                shed();
            } else if (now - lingerStarted >= Deadlines.LINGER_NANOS) {
                aborted = true;
            }
            return next();
        }
        if (out.pending() > 0 && now - lastOutput >= config.writeTimeout().toNanos()) {
            log.debug("write timeout: the peer took no output for {}", config.writeTimeout());
            abort();
            return next();
        }
        if (!reader.prefaceDone() && now - createdAt >= config.headerTimeout().toNanos()) {
            log.debug("no HTTP/2 connection preface within {}", config.headerTimeout());
            abort();
            return next();
        }
        completeDone();
        feedStreamedBodies();
        for (Stream s : producing) {
            enqueue(s);
        }
        producing.clear();
        long handlerTimeout = config.handlerTimeout().toNanos();
        for (int i = 0; i < handling.size(); ) {
            Stream s = handling.get(i);
            if (!s.exchange.done && now - s.handlerStarted >= handlerTimeout) {
                handling.remove(i);
                handlerTimedOut(s);
            } else {
                i++;
            }
        }
        releaseAbandoned();
        requestTimeouts(now);
        while (streams.size() == 0 && free.size() > FREE_STREAMS_IDLE) {
            free.pop();
        }
        if (blockKind != null && now - blockStarted >= config.headerTimeout().toNanos()) {
            connectionError(ErrorCode.PROTOCOL_ERROR, "a header block not finished within " + config.headerTimeout());
            return next();
        }
        if (streams.size() == 0 && blockKind == null && out.pending() == 0 && !goingAway
                && now - Math.max(lastInput, lastOutput) >= config.idleTimeout().toNanos()) {
            log.debug("idle for {}: GOAWAY", config.idleTimeout());
            goAway(ErrorCode.NO_ERROR, null);
        }
        flush();
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        return handling.isEmpty() && producing.isEmpty() ? TimeUnit.MILLISECONDS.toNanos(200) : BUSY_TICK_NANOS;
    }

    @Override
    public void closed() {
        if (!aborted) {
            abort();
        }
    }

    @Override
    public void inputActivity() {
        inputSeen = true;
    }

    @Override
    public void outputActivity() {
        outputSeen = true;
    }

    @Override
    public void refuse(int status, String message) {
        connectionError(ErrorCode.PROTOCOL_ERROR, message);
    }

    @Override
    public void inputFailed() {
        inputEnded = true;
        connectionError(ErrorCode.PROTOCOL_ERROR, "the layer below failed");
    }

    @Override
    public boolean hasOutbound() {
        return out.pending() > 0;
    }

    @Override
    public boolean outputFinished() {
        return (finishing || goingAway && streams.size() == 0) && out.pending() == 0 && !aborted;
    }

    @Override
    public boolean aborted() {
        return aborted;
    }

    @Override
    public void applicationProtocol(String protocol) {
        // chosen before this connection was made
    }

    /** Gives up on the connection: nothing more is sent, and every stream is let go. */
    @Override
    public void abort() {
        aborted = true;
        streams.forEach(this::close);
        queueHead = null;
        queueTail = null;
    }

    // ---- frames in

    @Override
    public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) throws Http2Exception {
        if (flowControlledLength > receiveWindow) {
            throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
        }
        receiveWindow -= flowControlledLength;
        Stream s = streams.get(streamId);
        if (s == null || s.remoteClosed() || !s.headersDone) {
            consumed(null, flowControlledLength);
            if (s == null && streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on idle stream " + streamId);
            }
            if (s == null && wasReset(streamId)) {
                return;
            }
            throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "DATA on a closed or half-closed stream");
        }
        if (flowControlledLength > s.receiveWindow) {
            consumed(null, flowControlledLength);
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream's window");
        }
        s.receiveWindow -= flowControlledLength;
        s.activeAt = clock;
        int n = data.remaining();
        if (n == 0 && !endStream && ++emptyFrames > limits.maxEmptyFrames()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many empty DATA frames");
        } else if (n > 0) {
            emptyFrames = 0;
        }
        // padding is consumed at once
        consumed(s, flowControlledLength - n);
        s.received += n;
        if (s.contentLength >= 0 && (s.received > s.contentLength || endStream && s.received != s.contentLength)) {
            consumed(s, n);
            throw Http2Exception.stream(streamId, ErrorCode.PROTOCOL_ERROR, "DATA does not match content-length");
        }
        if (s.streamed != null) {
            if (s.received > s.bodyLimit || s.bodyFailed) {
                // the handler learns it from its body and answers (413); the rest is dropped
                consumed(s, n);
                if (!s.bodyFailed) {
                    s.bodyFailed = true;
                    API.fail(s.streamed, new BodyException(413, "the request body is larger than " + s.bodyLimit + " bytes"));
                }
            } else {
                feed(s, data);
            }
        } else if (!s.answered && s.exchange == null) {
            buffer(s, data);
        } else {
            // answered already (an early error): the rest is dropped
            consumed(s, n);
        }
        if (endStream) {
            endOfRequest(s);
        }
    }

    @Override
    public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream) throws Http2Exception {
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on even-numbered stream " + streamId);
        }
        emptyFrames = 0;
        Stream s = streams.get(streamId);
        Block kind;
        if (s != null) {
            kind = s.remoteClosed() ? Block.HALF_CLOSED : Block.TRAILERS;
        } else if (streamId <= lastStreamId) {
            // 5.1.1: a lower id that was never used is unexpected; 5.1: one that was, closed
            kind = wasReset(streamId) ? Block.IGNORED : recentlyClosed.contains(streamId) ? Block.CLOSED_STREAM : Block.LOWER_ID;
        } else {
            lastStreamId = streamId;
            if (goingAway) {
                kind = Block.IGNORED;
            } else if (streams.size() + abandoned.size() >= limits.maxConcurrentStreams()) {
                kind = Block.REFUSED;
            } else {
                s = free.isEmpty() ? new Stream() : free.pop();
                s.open(streamId, limits.streamWindow(), peerInitialWindow);
                s.activeAt = clock;
                streams.put(s);
                kind = Block.REQUEST;
            }
        }
        blockKind = kind;
        blockStream = s;
        blockStreamId = streamId;
        blockEndStream = endStream;
        blockLength = 0;
        blockFrames = 1;
        blockStarted = clock;
        appendFragment(fragment);
        if (endHeaders) {
            endBlock();
        }
    }

    @Override
    public void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) throws Http2Exception {
        if (++blockFrames > limits.maxContinuationFrames()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a header block in too many CONTINUATION frames");
        }
        appendFragment(fragment);
        if (endHeaders) {
            endBlock();
        }
    }

    private void appendFragment(ByteBuffer fragment) throws Http2Exception {
        int n = fragment.remaining();
        if (blockLength + n > limits.maxHeaderBlockSize()) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "a header block larger than " + limits.maxHeaderBlockSize() + " bytes");
        }
        if (block.length - blockLength < n) {
            block = java.util.Arrays.copyOf(block, Math.max(block.length * 2, blockLength + n));
        }
        fragment.get(block, blockLength, n);
        blockLength += n;
    }

    private void endBlock() throws Http2Exception {
        Block kind = blockKind;
        Stream s = blockStream;
        int id = blockStreamId;
        blockKind = null;
        blockStream = null;
        boolean complete;
        try {
            HpackDecoder.Sink sink = DISCARD;
            if (kind == Block.REQUEST) {
                head.beginRequest(s);
                sink = head;
            } else if (kind == Block.TRAILERS) {
                head.beginTrailers(s);
                sink = head;
            }
            complete = decoder.decode(block, 0, blockLength, sink);
        } catch (HpackException e) {
            throw Http2Exception.connection(ErrorCode.COMPRESSION_ERROR, e.getMessage());
        } finally {
            if (block.length > 64 * 1024) {
                block = new byte[1024];
            }
        }
        switch (kind) {
            case REQUEST -> request(s, complete);
            case TRAILERS -> trailers(s);
            case REFUSED -> {
                countReset();
                Frames.rstStream(out, id, ErrorCode.REFUSED_STREAM);
                remember(id);
            }
            case HALF_CLOSED -> throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "HEADERS on a half-closed stream");
            case CLOSED_STREAM -> throw Http2Exception.connection(ErrorCode.STREAM_CLOSED, "HEADERS on closed stream " + id);
            case LOWER_ID -> throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream " + id + ", lower than " + lastStreamId);
            case IGNORED -> { }
        }
    }

    private void request(Stream s, boolean complete) throws Http2Exception {
        String malformed = head.end();
        s.headersDone = true;
        if (blockEndStream) {
            s.state = Stream.State.HALF_CLOSED_REMOTE;
        }
        if (!complete) {
            // the fields past the limit were never kept, so what is missing is not the client's fault
            answerError(s, 431, "the header fields are larger than " + limits.maxHeaderListSize() + " bytes");
            return;
        }
        if (malformed != null) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "malformed request: " + malformed);
        }
        if (blockEndStream) {
            if (s.contentLength > 0) {
                throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "content-length without DATA");
            }
            dispatch(s);
            return;
        }
        Route route;
        try {
            route = API.route(router, s.request);
        } catch (HttpException e) {
            // answered when the request is complete (404, 405); its body is dropped meanwhile
            return;
        }
        s.request.route = route;
        long limit = route.bodyLimit(config, route.streamsBody && handlers.canStream(route, false));
        if (s.contentLength > limit) {
            answerError(s, 413, "the request body is larger than " + limit + " bytes");
            return;
        }
        if (route.streamsBody && handlers.canStream(route, false)) {
            startStreamed(s, route, limit);
        }
    }

    private void trailers(Stream s) throws Http2Exception {
        String malformed = head.end();
        if (malformed != null) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "malformed trailers: " + malformed);
        }
        if (!blockEndStream) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "trailers without END_STREAM");
        }
        if (s.contentLength >= 0 && s.received != s.contentLength) {
            throw Http2Exception.stream(s.id, ErrorCode.PROTOCOL_ERROR, "DATA does not match content-length");
        }
        endOfRequest(s);
    }

    @Override
    public void priority(int streamId) {
        // RFC 9113 5.3.2: priority signals may be ignored
    }

    @Override
    public void rstStream(int streamId, long errorCode) throws Http2Exception {
        Stream s = streams.get(streamId);
        if (s == null) {
            if (streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on idle stream " + streamId);
            }
            return;
        }
        log.debug("stream {} reset by the peer: {}", streamId, ErrorCode.name(errorCode));
        countReset();
        close(s);
    }

    @Override
    public void setting(int id, long value) throws Http2Exception {
        switch (id) {
            case SETTINGS_HEADER_TABLE_SIZE -> encoder.peerMaxTableSize(value);
            case SETTINGS_INITIAL_WINDOW_SIZE -> {
                long delta = value - peerInitialWindow;
                peerInitialWindow = value;
                Http2Exception[] overflow = new Http2Exception[1];
                streams.forEach(s -> {
                    s.sendWindow += delta;
                    if (s.sendWindow > MAX_WINDOW) {
                        overflow[0] = Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR,
                                "SETTINGS_INITIAL_WINDOW_SIZE takes a stream's window past 2^31-1");
                    } else if (delta > 0 && (s.out != null || s.source != null)) {
                        enqueue(s);
                    }
                });
                if (overflow[0] != null) {
                    throw overflow[0];
                }
            }
            case SETTINGS_MAX_FRAME_SIZE -> peerMaxFrameSize = (int) value;
            default -> { }
        }
    }

    @Override
    public void settingsEnd() throws Http2Exception {
        countControlFrame();
        Frames.settingsAck(out);
    }

    @Override
    public void settingsAck() {
        // our settings apply from the start; nothing waits for the acknowledgement
    }

    @Override
    public void ping(long payload, boolean ack) throws Http2Exception {
        if (!ack) {
            countControlFrame();
            Frames.ping(out, true, payload);
        }
    }

    @Override
    public void goAway(int lastStreamId, long errorCode, ByteBuffer debugData) {
        log.debug("GOAWAY from the peer: {}, last stream {}", ErrorCode.name(errorCode), lastStreamId);
        // the peer opens no more streams: the ones in flight are finished, then the connection closes
        goingAway = true;
    }

    @Override
    public void windowUpdate(int streamId, int increment) throws Http2Exception {
        emptyFrames = 0;
        if (streamId == 0) {
            sendWindow += increment;
            if (sendWindow > MAX_WINDOW) {
                throw Http2Exception.connection(ErrorCode.FLOW_CONTROL_ERROR, "WINDOW_UPDATE takes the connection's window past 2^31-1");
            }
            return;
        }
        Stream s = streams.get(streamId);
        if (s == null) {
            if (streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + streamId);
            }
            return;
        }
        s.sendWindow += increment;
        if (s.sendWindow > MAX_WINDOW) {
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "WINDOW_UPDATE takes the stream's window past 2^31-1");
        }
        if (s.out != null || s.source != null) {
            enqueue(s);
        }
    }

    // ---- requests to handlers

    /** A buffered body grows by what arrived; it is given back to the peer's windows at once, within the route's limit. */
    private void buffer(Stream s, ByteBuffer data) throws Http2Exception {
        int n = data.remaining();
        Route route = s.request.route;
        long limit = route != null ? route.bodyLimit(config, false) : config.maxBodySize();
        if (s.received > limit) {
            consumed(s, n);
            answerError(s, 413, "the request body is larger than " + limit + " bytes");
            return;
        }
        if (budget != null && n > 0) {
            if (!budget.tryReserve(n)) {
                consumed(s, n);
                answerError(s, 503, "too many request bodies in flight; retry");
                return;
            }
            s.budgeted += n;
        }
        s.appendBody(data);
        consumed(s, n);
    }

    private void endOfRequest(Stream s) {
        s.state = s.state == Stream.State.HALF_CLOSED_LOCAL ? Stream.State.CLOSED : Stream.State.HALF_CLOSED_REMOTE;
        if (s.streamed != null) {
            if (s.pendingBytes() == 0 && !s.bodyFailed) {
                API.end(s.streamed);
            }
        } else if (!s.answered && s.exchange == null) {
            dispatch(s);
        }
        if (s.state == Stream.State.CLOSED) {
            close(s);
        }
    }

    private void dispatch(Stream s) {
        RequestState req = s.request;
        Route route = req.route;
        if (route == null) {
            try {
                route = API.route(router, req);
            } catch (HttpException e) {
                s.response.reset();
                respond(s, s.response, e);
                return;
            }
        }
        if (handlers.deferred(route)) {
            if (route.async != null) {
                req.mayBlock = false;
            }
            begin(s, route, new Exchange(req, true, null));
            return;
        }
        s.response.reset();
        s.response.jsonCodec = route.json;
        respond(s, s.response, handlers.runInline(route, req, s.response));
    }

    private void startStreamed(Stream s, Route route, long limit) {
        s.bodyLimit = limit;
        RequestBody body = API.newBody(s.contentLength, wakeup);
        API.collectLimit(body, route.bodyLimit(config, false));
        s.request.streamed = body;
        s.request.mayBlock = route.blocking;
        s.streamed = body;
        begin(s, route, new Exchange(s.request, true, body));
    }

    private void begin(Stream s, Route route, Exchange ex) {
        s.exchange = ex;
        s.handlerStarted = System.nanoTime();
        handlers.start(route, ex);
        if (ex.done && handlers.runsHere(route)) {
            s.exchange = null;
            completeExchange(s, ex);
        } else {
            handling.add(s);
        }
    }

    private void completeExchange(Stream s) {
        Exchange ex = s.exchange;
        s.exchange = null;
        completeExchange(s, ex);
    }

    private void completeExchange(Stream s, Exchange ex) {
        if (s.streamed != null && !s.remoteClosed()) {
            // answered before its body arrived: the rest is not wanted
            API.abandon(s.streamed);
        }
        respond(s, ex.response, ex.failure);
    }

    private void handlerTimedOut(Stream s) {
        Exchange ex = s.exchange;
        log.warn("handler for {} did not answer within {}; answering 503", ex.request, config.handlerTimeout());
        ex.abandoned = true;
        if (s.streamed != null) {
            API.fail(s.streamed, new BodyException(503, "the handler timed out"));
        }
        // the handler may still read the request: the stream is only reused once it finished
        abandoned.add(s);
        s.exchange = ex;
        ResponseState res = new ResponseState();
        API.answerFailure(s.request, res, new HttpException(503, "the handler did not answer in time"));
        encodeResponse(s, res);
    }

    /**
     * A request whose body stopped arriving for the header timeout (slowloris on a stream): a
     * buffered one is answered 408, a streamed one fails its handler's body with 408.
     */
    private void requestTimeouts(long now) {
        long timeout = config.headerTimeout().toNanos();
        streams.forEach(s -> {
            if (!s.remoteClosed() && now - s.activeAt >= timeout) {
                s.activeAt = now;
                if (s.streamed != null) {
                    API.fail(s.streamed, new BodyException(408, "request body not received in time"));
                } else if (!s.answered && s.exchange == null) {
                    answerError(s, 408, "request not received in time");
                }
            }
        });
    }

    /** Moves DATA the streamed bodies' consumers have room for now, and gives it back to the windows. */
    private void feedStreamedBodies() {
        for (int i = backlogged.size() - 1; i >= 0; i--) {
            Stream s = backlogged.get(i);
            if (s.streamed == null || s.state == Stream.State.CLOSED) {
                backlogged.remove(i);
            } else if (API.hasRoom(s.streamed)) {
                int taken = API.offer(s.streamed, MemorySegment.ofArray(s.pending), s.pending, s.pendingStart, s.pendingBytes());
                s.pendingStart += taken;
                consumed(s, taken);
                if (s.pendingBytes() == 0) {
                    backlogged.remove(i);
                    if (s.remoteClosed()) {
                        API.end(s.streamed);
                    }
                }
            }
        }
    }

    private void feed(Stream s, ByteBuffer data) {
        int n = data.remaining();
        if (s.pendingBytes() == 0 && n > 0) {
            MemorySegment src = data.hasArray() ? MemorySegment.ofArray(data.array()) : MemorySegment.ofBuffer(data);
            long offset = data.hasArray() ? data.arrayOffset() + data.position() : 0;
            int taken = API.offer(s.streamed, src, data.hasArray() ? data.array() : null, offset, n);
            data.position(data.position() + taken);
            consumed(s, taken);
        }
        if (data.hasRemaining()) {
            if (s.pendingBytes() == 0) {
                backlogged.add(s);
            }
            s.keep(data);
        }
    }

    // ---- responses out

    private void answerError(Stream s, int status, String message) {
        s.response.reset();
        if (s.streamed != null) {
            API.fail(s.streamed, new BodyException(status, message));
        }
        respond(s, s.response, new HttpException(status, message));
    }

    private void respond(Stream s, ResponseState res, Throwable failure) {
        if (failure != null) {
            API.answerFailure(s.request, res, failure);
        }
        encodeResponse(s, res);
    }

    private void encodeResponse(Stream s, ResponseState res) {
        if (s.answered || aborted) {
            return;
        }
        boolean head = s.request.method == Method.HEAD;
        byte[] body = null;
        int offset = 0;
        int length = 0;
        if (res.bodyArray != null) {
            body = res.bodyArray;
            offset = res.bodyOffset;
            length = res.bodyLength;
        } else if (res.bodyBuffer != null) {
            ByteBuffer b = res.bodyBuffer;
            length = b.remaining();
            if (b.hasArray()) {
                body = b.array();
                offset = b.arrayOffset() + b.position();
            } else {
                body = new byte[length];
                b.duplicate().get(body);
            }
        } else if (res.bodyString != null) {
            body = res.bodyText();
            length = body.length;
        }
        boolean noContent = res.status == 204 || res.status == 304;
        boolean streamed = res.api.isStreamed();
        java.util.concurrent.CompletableFuture<Long> sent = streamed ? res.takeSent() : null;
        if (streamed && (head || noContent)) {
            res.closeStreamedBody();
            if (sent != null) {
                sent.complete(0L);
            }
            streamed = false;
        }
        boolean endStream = head || noContent || length == 0 && !streamed;
        int start = Frames.headersStart(out, s.id, endStream);
        encoder.beginBlock(out);
        encoder.status(res.status, out);
        encoder.headerConstant(SERVER_NAME, SERVER, out);
        encoder.headerConstant(DATE, HttpDate.value(), out);
        if (res.contentType != null) {
            encoder.headerConstant(CONTENT_TYPE, contentType(res.contentType), out);
        }
        long contentLength = res.api.isStreamed() ? res.streamLength : length;
        if (!noContent && contentLength >= 0) {
            encoder.contentLength(decimal(contentLength), out);
        }
        for (int i = 0; i < res.headerCount; i++) {
            String name = res.headerNames[i].toLowerCase(Locale.ROOT);
            if (!connectionSpecific(name)) {
                encoder.header(name, res.headerValues[i], out);
            }
        }
        Frames.headersEnd(out, start, peerMaxFrameSize);
        s.answered = true;
        if (body != s.bytes) {
            // answered, and not from the request's own array: a response held back by the peer's window
            // must not keep the request's fields too (128 streams of 32 KiB header lists)
            s.releaseRequestBytes();
        }
        if (endStream) {
            sentEnd(s);
        } else if (streamed) {
            s.source = OutgoingData.of(res, blockingExecutor, wakeup);
            s.sent = sent;
            enqueue(s);
        } else {
            s.out = body;
            s.outPos = offset;
            s.outEnd = offset + length;
            enqueue(s);
        }
    }

    /** Sends DATA round-robin, a frame per stream per turn, while the windows and the high-water mark allow. */
    private void flush() {
        if (aborted) {
            return;
        }
        while (queueHead != null && sendWindow > 0 && out.pending() < highWater) {
            Stream s = queueHead;
            queueHead = s.nextQueued;
            if (queueHead == null) {
                queueTail = null;
            }
            s.nextQueued = null;
            s.queued = false;
            if (s.out == null || s.outPos == s.outEnd) {
                if (s.source == null || !refill(s)) {
                    continue;
                }
            }
            int remaining = s.outEnd - s.outPos;
            int n = (int) Math.min(Math.min(remaining, peerMaxFrameSize), Math.min(sendWindow, s.sendWindow));
            if (n <= 0) {
                // blocked on the stream's window: its WINDOW_UPDATE queues it again
                continue;
            }
            boolean last = n == remaining && s.source == null;
            Frames.dataHeader(out, n, s.id, last);
            out.put(s.out, s.outPos, n);
            s.outPos += n;
            sendWindow -= n;
            s.sendWindow -= n;
            if (last) {
                s.out = null;
                sentEnd(s);
            } else {
                enqueue(s);
            }
        }
    }

    /**
     * Reads the next part of a streamed body into the stream's chunk.
     *
     * @return true when there is something to send; false when the producer has nothing yet (the
     *         wakeup queues the stream again), or the body ended (END_STREAM sent) or failed (reset)
     */
    private boolean refill(Stream s) {
        if (s.chunk == null) {
            s.chunk = new byte[OutgoingData.CHUNK];
        }
        int n;
        try {
            n = s.source.read(s.chunk);
        } catch (java.io.IOException | RuntimeException e) {
            log.debug("streamed response body of stream {} failed: {}", s.id, e.toString());
            endSource(s, e);
            reset(s.id, ErrorCode.INTERNAL_ERROR);
            return false;
        }
        if (n == OutgoingData.WAIT) {
            producing.add(s);
            return false;
        }
        if (n == OutgoingData.END) {
            endSource(s, null);
            Frames.dataHeader(out, 0, s.id, true);
            sentEnd(s);
            return false;
        }
        s.out = s.chunk;
        s.outPos = 0;
        s.outEnd = n;
        return true;
    }

    /** The streamed body is over: its source is released and {@code Response.sent()} completes. */
    private void endSource(Stream s, Throwable failure) {
        OutgoingData source = s.source;
        s.source = null;
        source.close();
        if (s.sent != null) {
            if (failure == null) {
                s.sent.complete(source.sent());
            } else {
                s.sent.completeExceptionally(failure);
            }
            s.sent = null;
        }
    }

    private void enqueue(Stream s) {
        if (s.queued) {
            return;
        }
        s.queued = true;
        s.nextQueued = null;
        if (queueTail == null) {
            queueHead = s;
        } else {
            queueTail.nextQueued = s;
        }
        queueTail = s;
    }

    /** END_STREAM went out on {@code s}. */
    private void sentEnd(Stream s) {
        if (s.remoteClosed()) {
            close(s);
            return;
        }
        s.state = Stream.State.HALF_CLOSED_LOCAL;
        // RFC 9113 8.1: answered before the request ended, the rest of it is not wanted
        Frames.rstStream(out, s.id, ErrorCode.NO_ERROR);
        remember(s.id);
        close(s);
    }

    // ---- stream and connection ends

    /** Resets a stream because of a stream error. */
    private void reset(int streamId, ErrorCode code) {
        Frames.rstStream(out, streamId, code);
        remember(streamId);
        Stream s = streams.get(streamId);
        if (s != null) {
            close(s);
        }
        try {
            // a client that makes the server reset streams is limited as one that resets them (MadeYouReset)
            countReset();
        } catch (Http2Exception e) {
            connectionError(e.code(), e.getMessage());
        }
    }

    /** The stream is over on this side: it lets go of its body and handler, and is reused once nothing refers to it. */
    private void close(Stream s) {
        if (streams.get(s.id) == s) {
            streams.remove(s.id);
            recentlyClosed.add(s.id);
        }
        s.state = Stream.State.CLOSED;
        s.out = null;
        if (s.source != null) {
            endSource(s, new java.io.IOException("the stream was reset before its body was sent"));
        }
        producing.remove(s);
        backlogged.remove(s);
        if (s.streamed != null && !s.remoteClosed()) {
            API.fail(s.streamed, new java.io.IOException("the stream was reset"));
        }
        if (s.received > 0 && s.streamed != null) {
            // bytes held for the consumer that will never take them go back to the connection's window
            consumed(null, s.pendingBytes());
        }
        if (budget != null && s.budgeted > 0) {
            budget.release(s.budgeted);
            s.budgeted = 0;
        }
        Exchange ex = s.exchange;
        if (ex != null && !ex.done) {
            ex.abandoned = true;
            handling.remove(s);
            if (!abandoned.contains(s)) {
                abandoned.add(s);
            }
            return;
        }
        if (!abandoned.contains(s) && !s.queued) {
            s.recycle();
            // a client with 32 streams in flight reuses them all; an idle tick gives most back
            if (free.size() < FREE_STREAMS) {
                free.push(s);
            }
        }
    }

    private void releaseAbandoned() {
        for (int i = abandoned.size() - 1; i >= 0; i--) {
            Stream s = abandoned.get(i);
            if (s.exchange == null || s.exchange.done) {
                abandoned.remove(i);
                if (streams.get(s.id) != s) {
                    s.recycle();
                }
            }
        }
    }

    /** Sends GOAWAY: no new streams; the ones in flight finish, then the connection closes. */
    private void goAway(ErrorCode code, String debug) {
        if (goingAway && code == ErrorCode.NO_ERROR) {
            return;
        }
        goingAway = true;
        Frames.goAway(out, lastStreamId, code, debug == null ? new byte[0] : debug.getBytes(StandardCharsets.UTF_8));
    }

    private void connectionError(ErrorCode code, String message) {
        log.debug("connection error {}: {}", code, message);
        goAway(code, message);
        finishing = true;
        streams.forEach(this::close);
        queueHead = null;
        queueTail = null;
    }

    private void shed() {
        out = new WireBuffer(0);
        block = new byte[0];
    }

    // ---- windows and limits

    /** {@code n} received octets were consumed: given back to the peer in WINDOW_UPDATEs once half a window is due. */
    private void consumed(Stream s, int n) {
        if (n <= 0) {
            return;
        }
        unacknowledged += n;
        if (unacknowledged >= limits.connectionWindow() / 2) {
            Frames.windowUpdate(out, 0, unacknowledged);
            receiveWindow += unacknowledged;
            unacknowledged = 0;
        }
        if (s != null && !s.remoteClosed()) {
            s.unacknowledged += n;
            if (s.unacknowledged >= limits.streamWindow() / 2) {
                Frames.windowUpdate(out, s.id, s.unacknowledged);
                s.receiveWindow += s.unacknowledged;
                s.unacknowledged = 0;
            }
        }
    }

    private void countReset() throws Http2Exception {
        if (!resets.add(System.nanoTime())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many streams reset");
        }
    }

    private void countControlFrame() throws Http2Exception {
        if (!controlFrames.add(System.nanoTime())) {
            throw Http2Exception.connection(ErrorCode.ENHANCE_YOUR_CALM, "too many SETTINGS or PING frames");
        }
    }

    private void remember(int streamId) {
        recentlyReset.add(streamId);
    }

    private boolean wasReset(int streamId) {
        return recentlyReset.contains(streamId);
    }

    private static boolean connectionSpecific(String name) {
        return switch (name) {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" -> true;
            default -> false;
        };
    }

    /** The last content type's bytes: most responses of a connection share one. */
    private byte[] contentType(String type) {
        if (!type.equals(lastContentType)) {
            lastContentType = type;
            lastContentTypeBytes = type.getBytes(StandardCharsets.ISO_8859_1);
        }
        return lastContentTypeBytes;
    }

    private static byte[] decimal(long n) {
        return n < DECIMALS.length ? DECIMALS[(int) n] : Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Bytes of memory the connection holds in its buffers and streams, for tests of its bounds. */
    long retainedBytes() {
        long[] total = {block.length + out.capacity() + reader.bufferCapacity()};
        streams.forEach(st -> total[0] += st.bytes.length + (st.pending == null ? 0 : st.pending.length)
                + (st.chunk == null ? 0 : st.chunk.length));
        for (Stream st : abandoned) {
            total[0] += st.bytes.length;
        }
        return total[0];
    }

    @Override
    public String toString() {
        return "Http2Connection[streams=" + streams.size() + ", last=" + lastStreamId + "]";
    }
}
