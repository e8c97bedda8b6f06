// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.Deadlines;
import dev.spindle.core.exchange.HandlerRunner;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.LayeredConnection;
import dev.spindle.core.spi.Next;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
 * <p>Defences: a client that resets streams (or makes the server reset them) more than
 * {@link Http2Limits#resetsPerWindow} per {@link Http2Limits#RESET_WINDOW_NANOS} beyond the
 * streams answered meanwhile gets GOAWAY ENHANCE_YOUR_CALM; a reset stream gives the client its
 * concurrency slot back at once, and handlers of reset streams still running are bounded apart
 * ({@link Http2Limits#maxAbandonedHandlers}, new streams refused past it); a
 * header block is bounded in size and in CONTINUATION frames; HPACK counts the header list while
 * decoding; floods of SETTINGS, PING and empty frames are bounded the same way; input is not read
 * while the peer leaves output unread.
 *
 * <p>This class owns the streams and the connection's life (preface, SETTINGS, GOAWAY, timeouts,
 * linger) and turns frames into calls on its parts: {@link HeaderBlock} gathers header blocks,
 * {@link StreamDispatcher} takes requests to their handlers, {@link StreamWriter} sends the
 * responses, and {@link Http2Guards} bounds what the peer may send.
 */
public final class Http2Connection implements LayeredConnection, FrameListener {
    private static final Logger log = LoggerFactory.getLogger(Http2Connection.class);
    private static final Runnable NO_WAKEUP = () -> { };
    private static final HpackDecoder.Sink DISCARD = (n, no, nl, v, vo, vl) -> { };
    private static final Executor STREAM_THREADS = task -> Thread.ofVirtual().name("spindle-h2-stream").start(task);
    /**
     * How soon a thread-per-connection strategy must tick while handlers or body producers are in
     * flight: its thread sits in a blocking read, so the tick is what notices they finished.
     */
    private static final long BUSY_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long IDLE_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The windows and frame size RFC 9113 starts every connection with, before SETTINGS change them. */
    static final int DEFAULT_WINDOW = 65_535;
    private static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    private static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    private static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    private static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    private static final int SETTINGS_ENABLE_PUSH = 0x2;
    /** Finished streams kept for reuse while the connection is busy, and while it idles. */

    private final ServerConfig config;
    private final Http2Limits limits;
    private final int highWater;
    private final FrameReader reader;
    private final HpackDecoder decoder;
    private final RequestHead head;
    private final HeaderBlock block;
    private final WireBuffer out = new WireBuffer(1024);
    private final Http2Guards guards;
    private final StreamWriter writer;
    private final StreamDispatcher dispatcher;
    private final StreamMap streams = new StreamMap();

    private int lastStreamId;
    private long peerInitialWindow = DEFAULT_WINDOW;

    private boolean inputEnded;
    /** GOAWAY was sent: no new stream is accepted. */
    private boolean goingAway;
    /** No more frames are processed: a connection error, or every stream finished after GOAWAY. */
    private boolean finishing;
    private boolean lingering;
    private boolean aborted;
    private volatile boolean drainRequested;
    /** {@link #closeAfterResponse()}: GOAWAY once the input being received now has opened its streams (or at the next tick). */
    private boolean goAwayAfterInput;
    private boolean inputSeen;
    private boolean outputSeen;
    private long lastInput;
    private long lastOutput;
    /** When bytes were last written: with {@link #lastInput}, what the idle timeout runs from. */
    private long lastWritten;
    private long lingerStarted;
    private final long createdAt = System.nanoTime();
    /** The time of the last tick: what stream activity is stamped with (a read is not worth a clock call). */
    private long clock = createdAt;

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
        this.limits = Http2Limits.of(config);
        Runnable wake = wakeup != null ? wakeup : NO_WAKEUP;
        // without an executor the strategy gives each connection a thread of its own (blocking servers): its
        // streams' blocking handlers then run on a virtual thread each, so one stream never waits for another
        Executor executor = blockingExecutor != null ? blockingExecutor : STREAM_THREADS;
        // a connection's own thread is no event loop: its inline handlers are not watched (a watch per thread)
        long watched = blockingExecutor != null ? config.blockedLoopThreshold().toNanos() : 0;
        this.highWater = config.writeHighWaterMark();
        this.reader = new FrameReader(limits.maxFrameSize());
        this.reader.expectPreface();
        this.decoder = new HpackDecoder(limits.headerTableSize(), limits.maxHeaderListSize());
        boolean webSockets = dev.spindle.core.exchange.ApiAccess.get().webSockets(router);
        this.head = new RequestHead(config.maxHeaderCount(), webSockets);
        this.block = new HeaderBlock(limits);
        this.guards = new Http2Guards(limits, out);
        this.writer = new StreamWriter(this, guards, out, limits.headerTableSize(), executor, wake, highWater);
        this.dispatcher = new StreamDispatcher(this, config, router, limits, new HandlerRunner(executor, wake, watched),
                budget, wake, streams, writer, guards);
        if (before != null) {
            out.put(before, 0, before.length);
        }
        int[] settings = {SETTINGS_MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams(),
            SETTINGS_INITIAL_WINDOW_SIZE, limits.streamWindow(),
            SETTINGS_MAX_FRAME_SIZE, limits.maxFrameSize(),
            SETTINGS_MAX_HEADER_LIST_SIZE, limits.maxHeaderListSize(),
            SETTINGS_ENABLE_PUSH, 0,
            // RFC 8441 3: WebSockets open on streams with an extended CONNECT
            Frames.SETTINGS_ENABLE_CONNECT_PROTOCOL, 1};
        Frames.settings(out, webSockets ? settings : java.util.Arrays.copyOf(settings, settings.length - 2));
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
        Stream s = streams.open(1, limits.streamWindow(), peerInitialWindow, clock);
        s.adopt(request);
        lastStreamId = 1;
        dispatcher.dispatch(s);
        writer.flush();
    }

    @Override
    public void transferFiles(boolean on) {
        // file bodies go out in DATA frames, through the output buffer
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
                    reset(e.streamId(), e.code(), true);
                }
            }
        }
        src.position(src.limit());
        writer.flush();
        if (goAwayAfterInput && !goingAway) {
            // after what the input's streams answered at once: a client reads their answers first
            goAway(ErrorCode.NO_ERROR, null);
        }
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
        writer.flush();
        return next();
    }

    @Override
    public Next resume() {
        dispatcher.resume();
        writer.requeueProducing();
        writer.flush();
        return next();
    }

    @Override
    public Next next() {
        if (aborted) {
            return Next.CLOSE;
        }
        boolean write = out.pending() > 0;
        if (!finishing && !write && (goingAway && streams.size() == 0
                // the peer sends nothing more, so no WINDOW_UPDATE either: what still waits for one never goes
                || inputEnded && !dispatcher.handling() && writer.noProducers())) {
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
        if (dispatcher.webSockets()) {
            // any thread may send on an open WebSocket, while the strategy reads
            return State.DUPLEX;
        }
        if (dispatcher.handling()) {
            return State.HANDLING;
        }
        if (out.pending() > 0 || writer.hasQueued()) {
            return State.SENDING;
        }
        return streams.size() > 0 || block.open() ? State.READING_REQUEST : State.IDLE;
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
        writer.flush();
        return next();
    }

    @Override
    public void closeAfterResponse() {
        // a shedding strategy says so just before it hands over the bytes it read: the streams they
        // open are still served, as HTTP/1.1 answers the request in them (with a close)
        goAwayAfterInput = true;
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
        if ((drainRequested || goAwayAfterInput) && !goingAway) {
            goAway(ErrorCode.NO_ERROR, null);
            if (drainRequested) {
                dispatcher.drain();
            }
        }
        if (inputSeen || lastInput == 0) {
            inputSeen = false;
            lastInput = now;
        }
        if (outputSeen || lastWritten == 0) {
            lastWritten = now;
        }
        // no output pending is no stalled write: the write timeout runs only while bytes wait
        if (outputSeen || out.pending() == 0 || lastOutput == 0) {
            outputSeen = false;
            lastOutput = now;
        }
        clock = now;
        if (lingering) {
            if (lingerStarted == 0) {
                lingerStarted = now;
                out.shed();
                block.shed();
            } else if (Deadlines.lingerOver(now, lingerStarted, lastInput)) {
                aborted = true;
                writer.stop();
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
        dispatcher.tick(now);
        streams.trimPool();
        if (block.open() && now - block.started() >= config.headerTimeout().toNanos()) {
            connectionError(ErrorCode.PROTOCOL_ERROR, "a header block not finished within " + config.headerTimeout());
            return next();
        }
        if (streams.size() == 0 && !block.open() && out.pending() == 0 && !goingAway
                && now - Math.max(lastInput, lastWritten) >= config.idleTimeout().toNanos()) {
            log.debug("idle for {}: GOAWAY", config.idleTimeout());
            goAway(ErrorCode.NO_ERROR, null);
        }
        writer.tickSources(now, goingAway);
        writer.flush();
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        return !dispatcher.handling() && writer.noProducers() ? IDLE_TICK_NANOS : BUSY_TICK_NANOS;
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
        writer.stop();
        streams.forEach(this::close);
    }

    @Override
    public void data(int streamId, ByteBuffer data, int flowControlledLength, boolean endStream) throws Http2Exception {
        guards.receiving(flowControlledLength);
        Stream s = streams.get(streamId);
        if (s == null || s.remoteClosed() || !s.headersDone) {
            guards.consumed(null, flowControlledLength);
            if (s == null && streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "DATA on idle stream " + streamId);
            }
            if (s == null && guards.wasReset(streamId)) {
                return;
            }
            throw Http2Exception.stream(streamId, ErrorCode.STREAM_CLOSED, "DATA on a closed or half-closed stream");
        }
        if (flowControlledLength > s.receiveWindow) {
            guards.consumed(null, flowControlledLength);
            throw Http2Exception.stream(streamId, ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the stream's window");
        }
        s.receiveWindow -= flowControlledLength;
        s.activeAt = clock;
        int n = data.remaining();
        guards.dataFrame(n, endStream);
        // padding is consumed at once
        guards.consumed(s, flowControlledLength - n);
        dispatcher.data(s, data, endStream);
    }

    @Override
    public void headers(int streamId, ByteBuffer fragment, boolean endHeaders, boolean endStream, boolean dependsOnItself)
            throws Http2Exception {
        if ((streamId & 1) == 0) {
            throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on even-numbered stream " + streamId);
        }
        guards.progress();
        Stream s = streams.get(streamId);
        HeaderBlock.Kind kind;
        if (s != null) {
            kind = s.remoteClosed() ? HeaderBlock.Kind.HALF_CLOSED
                    : dependsOnItself ? HeaderBlock.Kind.DEPENDS_ON_ITSELF : HeaderBlock.Kind.TRAILERS;
        } else if (streamId <= lastStreamId) {
            // 5.1.1: a lower id that was never used is unexpected; 5.1: one that was, closed
            kind = guards.wasReset(streamId) ? HeaderBlock.Kind.IGNORED
                    : guards.wasClosed(streamId) ? HeaderBlock.Kind.CLOSED_STREAM : HeaderBlock.Kind.LOWER_ID;
        } else {
            lastStreamId = streamId;
            if (goingAway) {
                kind = HeaderBlock.Kind.IGNORED;
            } else if (dependsOnItself) {
                // a stream error: the stream is never opened, so no handler sees the request
                kind = HeaderBlock.Kind.DEPENDS_ON_ITSELF;
            } else if (streams.size() >= limits.maxConcurrentStreams() || dispatcher.abandonedCount() >= limits.maxAbandonedHandlers()) {
                kind = HeaderBlock.Kind.REFUSED;
            } else {
                s = streams.open(streamId, limits.streamWindow(), peerInitialWindow, clock);
                kind = HeaderBlock.Kind.REQUEST;
            }
        }
        block.begin(kind, s, streamId, endStream, clock, fragment);
        if (endHeaders) {
            endBlock();
        }
    }

    @Override
    public void continuation(int streamId, ByteBuffer fragment, boolean endHeaders) throws Http2Exception {
        block.continuation(fragment);
        if (endHeaders) {
            endBlock();
        }
    }

    private void endBlock() throws Http2Exception {
        HeaderBlock.Kind kind = block.kind();
        Stream s = block.stream();
        int id = block.streamId();
        boolean endStream = block.endStream();
        HpackDecoder.Sink sink = DISCARD;
        if (kind == HeaderBlock.Kind.REQUEST) {
            head.beginRequest(s);
            sink = head;
        } else if (kind == HeaderBlock.Kind.TRAILERS) {
            head.beginTrailers(s);
            sink = head;
        }
        boolean complete = block.decode(decoder, sink);
        switch (kind) {
            case REQUEST -> {
                String malformed = head.end();
                dispatcher.request(s, complete, head.tooManyFields(), malformed, endStream);
            }
            case TRAILERS -> dispatcher.trailers(s, head.end(), endStream);
            case REFUSED -> {
                dispatcher.refused();
                guards.countRefusal();
                Frames.rstStream(out, id, ErrorCode.REFUSED_STREAM);
                guards.resetSent(id);
            }
            case HALF_CLOSED -> throw Http2Exception.stream(id, ErrorCode.STREAM_CLOSED, "HEADERS on a half-closed stream");
            case CLOSED_STREAM -> throw Http2Exception.connection(ErrorCode.STREAM_CLOSED, "HEADERS on closed stream " + id);
            case LOWER_ID -> throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream " + id + ", lower than " + lastStreamId);
            case DEPENDS_ON_ITSELF -> throw Http2Exception.stream(id, ErrorCode.PROTOCOL_ERROR, "stream " + id + " depends on itself"); // 5.3.1
            case IGNORED -> { }
        }
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
        guards.countReset();
        close(s);
    }

    @Override
    public void setting(int id, long value) throws Http2Exception {
        switch (id) {
            case SETTINGS_HEADER_TABLE_SIZE -> writer.peerMaxTableSize(value);
            case SETTINGS_INITIAL_WINDOW_SIZE -> {
                long delta = value - peerInitialWindow;
                peerInitialWindow = value;
                writer.initialWindowChanged(streams, delta);
            }
            case SETTINGS_MAX_FRAME_SIZE -> writer.peerMaxFrameSize((int) value);
            default -> { }
        }
    }

    @Override
    public void settingsEnd() throws Http2Exception {
        guards.countControlFrame();
        Frames.settingsAck(out);
    }

    @Override
    public void settingsAck() {
        // our settings apply from the start; nothing waits for the acknowledgement
    }

    @Override
    public void ping(long payload, boolean ack) throws Http2Exception {
        if (!ack) {
            guards.countControlFrame();
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
        guards.progress();
        if (streamId == 0) {
            writer.connectionWindowUpdate(increment);
            return;
        }
        Stream s = streams.get(streamId);
        if (s == null) {
            if (streamId > lastStreamId) {
                throw Http2Exception.connection(ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE on idle stream " + streamId);
            }
            return;
        }
        writer.streamWindowUpdate(s, increment);
    }

    /**
     * Resets a stream because of a stream error.
     *
     * @param byPeer whether the peer's frames caused it (they count as its resets, MadeYouReset), not the server's own failure
     */
    void reset(int streamId, ErrorCode code, boolean byPeer) {
        Frames.rstStream(out, streamId, code);
        guards.resetSent(streamId);
        Stream s = streams.get(streamId);
        if (s != null) {
            close(s);
        }
        if (!byPeer) {
            return;
        }
        try {
            // a client that makes the server reset streams is limited as one that resets them (MadeYouReset)
            guards.countReset();
        } catch (Http2Exception e) {
            connectionError(e.code(), e.getMessage());
        }
    }

    /** The stream is over on this side: it lets go of its body and handler, and is reused once nothing refers to it. */
    void close(Stream s) {
        if (streams.get(s.id) == s) {
            streams.remove(s.id);
            guards.closed(s.id);
        }
        s.state = Stream.State.CLOSED;
        writer.drop(s);
        if (dispatcher.drop(s)) {
            streams.recycle(s);
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
        writer.clearQueue();
    }

    /** Bytes of memory the connection holds in its buffers and streams, for tests of its bounds. */
    long retainedBytes() {
        long[] total = {block.capacity() + out.capacity() + reader.bufferCapacity() + dispatcher.abandonedBytes()};
        streams.forEach(st -> total[0] += st.bytes.length + (st.pending == null ? 0 : st.pending.length)
                + (st.chunk == null ? 0 : st.chunk.length));
        return total[0];
    }

    @Override
    public String toString() {
        return "Http2Connection[streams=" + streams.size() + ", last=" + lastStreamId + "]";
    }
}
