// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

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
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's {@link Connection} for plain HTTP/1.1: parsing, routing, handlers, encoding and
 * timeouts ({@link Deadlines}). TLS is a layer around it ({@code tls.TlsConnection}), which it
 * knows only as a {@link LayeredConnection}.
 */
public final class HttpConnection implements LayeredConnection, Deadlines.Waits {
    private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);
    /** How long a finished connection keeps reading (and dropping) what the peer still sends before closing. */
    static final long LINGER_NANOS = Deadlines.LINGER_NANOS;
    private static final Runnable NO_WAKEUP = () -> { };
    /** Where a connection with a wakeup and no blocking executor (a blocking server's) runs its blocking handlers. */
    private static final Executor HANDLER_THREADS = task -> Thread.ofVirtual().name("spindle-blocking-handler").start(task);
    /**
     * The input buffer a connection starts with. A strategy reading into a heap buffer or lending
     * memory has its requests parsed where they arrived, and only an unfinished tail is kept here,
     * so most connections never need more; it grows (doubling) for those that do. With thousands
     * of connections opened and closed (no keep-alive), memory held per connection is what counts.
     */
    static final int INPUT_INITIAL_BYTES = 2048;
    static final int OUTPUT_INITIAL_BYTES = 4096;
    /**
     * How long a connection has nothing to do before it lets go of its input and output arrays
     * (6 KiB), so that idle keep-alive connections and open event streams hold none; the next
     * request or event makes them again.
     */
    static final long QUIET_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    private final ServerConfig config;
    /** Replaced by an empty one once the connection only drops input ({@link #shedBuffers()}). */
    private InputBuffer in;
    private final ResponseWriter writer;
    private final Deadlines deadlines;
    private final Lifecycle life = new Lifecycle();
    private final RequestProcessor requests;

    private byte[] lentKey;
    private MemorySegment lentMemory;

    /**
     * A connection whose blocking handlers run inline, for tests. No handler completes on another
     * thread, so it needs no wakeup; its handlers get their request bodies buffered. A
     * handler running inline cannot be answered for: the handler timeout does not apply to it.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits and timeouts it applies
     */
    public HttpConnection(Router router, ServerConfig config) {
        this(router, config, null, null);
    }

    /**
     * A connection whose blocking handlers run on {@code blockingExecutor}, for event-loop strategies.
     * It holds no socket: the strategy feeds it and writes for it, on the connection's thread.
     *
     * @param router the routes requests are dispatched to
     * @param config the limits and timeouts it applies
     * @param blockingExecutor where blocking handlers and blocking body sources run; null (a
     *        thread-per-connection strategy) runs body sources inline on the connection's thread and
     *        each blocking handler on a virtual thread of its own, or inline too when there is no
     *        {@code wakeup}
     * @param wakeup called from any thread when the connection has work for its thread, which then
     *        calls {@link #resume()}; may be null only if no handler completes on another thread
     */
    public HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup) {
        this(router, config, blockingExecutor, wakeup, null);
    }

    /**
     * As {@link #HttpConnection(Router, ServerConfig, Executor, Runnable)}, holding buffered request
     * bodies within the server's {@code budget}.
     *
     * @param budget shared by the server's connections; null for none
     */
    public HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget) {
        this(router, config, blockingExecutor, wakeup, budget, INPUT_INITIAL_BYTES, OUTPUT_INITIAL_BYTES);
    }

    /**
     * The limits, timeouts and TLS this connection applies.
     *
     * @return the configuration
     */
    public ServerConfig config() {
        return config;
    }

    private HttpConnection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup, BodyBudget budget,
            int inputCapacity, int outputCapacity) {
        Runnable wake = wakeup != null ? wakeup : NO_WAKEUP;
        this.config = config;
        this.in = new InputBuffer(inputCapacity, budget);
        this.deadlines = new Deadlines(config, DRAIN_IDLE_GRACE_MILLIS);
        this.writer = new ResponseWriter(outputCapacity, config.writeHighWaterMark(), blockingExecutor, wake, deadlines);
        // A blocking executor means an event loop, whose inline handlers are watched. Without one (a blocking
        // server, whose thread is its connection's own) blocking handlers still run on a virtual thread each, as
        // HTTP/2 streams' do, while that thread moves bytes and ticks: run inline, a stuck one could never be
        // answered 503 at the handler timeout. Inline handlers stay inline, so the common path gains no hop.
        Executor handlerThreads = blockingExecutor != null ? blockingExecutor : wakeup != null ? HANDLER_THREADS : null;
        long watched = blockingExecutor != null ? config.blockedLoopThreshold().toNanos() : 0;
        HandlerRunner handlers = new HandlerRunner(handlerThreads, wake, watched);
        this.requests = new RequestProcessor(router, config, in, writer, life, deadlines, handlers, wake);
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
    public static HttpConnection rejecting(ServerConfig config, int status, String message) {
        // it parses nothing and answers a short error: the smallest buffers (grown if ever needed)
        HttpConnection c = new HttpConnection(null, config, null, null, null, 0, 0);
        c.requests.refuse(status, message);
        return c;
    }

    @Override
    public void transferFiles(boolean on) {
        writer.transferFiles(on);
    }

    /** A request may switch this connection to h2c ({@code Upgrade: h2c}): on plain ports that speak h2c. */
    public void allowH2cUpgrade() {
        requests.allowH2cUpgrade();
    }

    /**
     * The request that switched this connection to h2c, answered 101 (which is still in
     * {@link #outbound()}): nothing more is parsed here, and the connection that speaks HTTP/2 from
     * now on takes the rest of the input ({@link #takeInput()}) and output ({@link #takeOutput()}).
     *
     * @return the request, detached from the input; null when no request asked
     */
    public RequestState h2cUpgrade() {
        return requests.upgrade();
    }

    /** The SETTINGS payload of the upgrading request's {@code HTTP2-Settings}. */
    public byte[] h2cSettings() {
        return requests.upgradeSettings();
    }

    /**
     * What a WebSocket handshake agreed, answered 101 (which is still in {@link #outbound()}): as
     * for {@link #h2cUpgrade()}, the WebSocket connection takes the rest of the input and output.
     *
     * @return the agreement, or null when no handshake switched this connection
     */
    public dev.spindle.core.websocket.WebSocketAccept webSocketUpgrade() {
        return requests.webSocket();
    }

    /** The handshake request of {@link #webSocketUpgrade()}, detached from the input. */
    public RequestState webSocketRequest() {
        return requests.webSocketRequest();
    }

    /** Takes the bytes received and not parsed. */
    public byte[] takeInput() {
        return in.take();
    }

    /** Takes the bytes encoded and not written (the 101, and any answer pipelined before it). */
    public byte[] takeOutput() {
        ByteBuffer pending = writer.outbound();
        byte[] bytes = new byte[pending.remaining()];
        pending.get(pending.position(), bytes);
        writer.written(bytes.length);
        return bytes;
    }

    @Override
    public void refuse(int status, String message) {
        requests.refuse(status, message);
    }

    @Override
    public Next received(ByteBuffer src) {
        int length = src.remaining();
        if (length == 0) {
            return next();
        }
        deadlines.inputActivity();
        if (life.over()) {
            src.position(src.limit());
            life.dropped(length);
            return next();
        }
        MemorySegment memory = in.available() == 0 && !requests.processing() ? lendable(src) : null;
        if (memory == null) {
            if (append(src)) {
                requests.process();
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
        if (life.over()) {
            life.dropped(length);
            return next();
        }
        if (in.available() > 0 || memory.isReadOnly() || requests.processing()) {
            if (append(memory, offset, length)) {
                requests.process();
            }
            return next();
        }
        receivedInPlace(memory, null, offset, length);
        return next();
    }

    @Override
    public void inputActivity() {
        deadlines.inputActivity();
    }

    @Override
    public void outputActivity() {
        deadlines.outputActivity();
    }

    /** Buffers input; false if the budget for buffered bodies refused the room (the request is then refused). */
    private boolean append(ByteBuffer src) {
        try {
            in.append(src);
            return true;
        } catch (InputBuffer.OverBudget e) {
            src.position(src.limit());
            requests.overBudget(e);
            return false;
        }
    }

    /** As {@link #append(ByteBuffer)} for {@code memory[offset, offset + length)}. */
    private boolean append(MemorySegment memory, long offset, int length) {
        try {
            in.append(memory, offset, length);
            return true;
        } catch (InputBuffer.OverBudget e) {
            requests.overBudget(e);
            return false;
        }
    }

    @Override
    public void inputFailed() {
        requests.release();
        life.stopReading();
        life.endInput();
    }


    private void receivedInPlace(MemorySegment memory, byte[] array, long offset, int length) {
        in.lend(memory, array, offset, length);
        try {
            requests.process();
        } finally {
            try {
                in.keepTail();
            } catch (InputBuffer.OverBudget e) {
                requests.overBudget(e);
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
        if (!life.inputEnded()) {
            life.endInput();
            requests.process();
        }
        return next();
    }

    @Override
    public Next resume() {
        requests.process();
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

    @Override
    public boolean hasOutbound() {
        return writer.hasOutbound();
    }

    @Override
    public Next written(int bytes) {
        if (bytes == 0) {
            return next();
        }
        writer.written(bytes);
        requests.outputTaken();
        return next();
    }

    @Override
    public Next next() {
        return life.next(requests.flushed(), requests.wantsInput(), hasOutbound(), requests.watchesInput());
    }

    @Override
    public State state() {
        return life.state(requests.flushed(), requests.busy());
    }

    @Override
    public boolean outputFinished() {
        return life.closing() && !life.aborted() && requests.flushed();
    }

    @Override
    public boolean aborted() {
        return life.aborted();
    }

    @Override
    public boolean outputPending() {
        return hasOutbound();
    }

    @Override
    public boolean closing() {
        return life.closing();
    }

    @Override
    public boolean lingering() {
        return life.lingering(requests.flushed());
    }

    @Override
    public boolean bodyAwaited() {
        return requests.bodyAwaited();
    }

    @Override
    public boolean bodyStreaming() {
        return requests.bodyStreaming();
    }

    @Override
    public boolean handling() {
        return requests.handling();
    }

    @Override
    public boolean handlerDone() {
        return requests.handlerDone();
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
        return requests.requestInProgress();
    }

    @Override
    public boolean draining() {
        return life.draining();
    }

    @Override
    public void closeAfterResponse() {
        life.closeAfterResponse();
    }

    @Override
    public void drain() {
        life.drain();
    }

    @Override
    public Next tick(long now) {
        if (life.aborted()) {
            return Next.CLOSE;
        }
        switch (deadlines.expired(now, this)) {
            case WRITE -> {
                log.debug("write timeout: the peer took no output for {}", config.writeTimeout());
                requests.abort();
            }
            case LINGER_STARTED -> shedBuffers();
            case LINGER -> life.lingerOver();
            case BODY -> requests.bodyTimedOut();
            case HANDLER -> requests.handlerTimedOut();
            case PRODUCER -> {
                log.warn("a streamed response body produced nothing for {}; closing its connection", config.handlerTimeout());
                requests.abort();
            }
            case REQUEST -> requests.requestTimedOut();
            case DRAIN_IDLE -> life.stopReading();
            case IDLE -> requests.abort();
            case NONE -> { }
        }
        requests.tickSource(now);
        if (holdsBuffers() && quiet() && now - deadlines.lastActivity() >= QUIET_NANOS) {
            in.release();
            writer.releaseBuffer();
            requests.releaseRequest();
        }
        return next();
    }

    @Override
    public long nanosToTick(long now) {
        long nanos = deadlines.nanosToTick(now, this);
        long due = writer.sourceDue();
        if (holdsBuffers() && quiet()) {
            long last = deadlines.lastActivity();
            due = Math.min(due, (last != 0 ? last : now) + QUIET_NANOS);
        }
        return due == Long.MAX_VALUE ? nanos : Math.clamp(due - now, 1, nanos);
    }

    private boolean holdsBuffers() {
        return in.capacity() > 0 || writer.capacity() > 0;
    }

    /** Nothing to read, write or run: idle between requests, or an event stream waiting for its next event. */
    private boolean quiet() {
        State s = requests.busy();
        return (s == State.IDLE || s == State.DUPLEX) && !life.closing() && !hasOutbound() && in.available() == 0;
    }

    /**
     * A lingering connection only drops what still arrives: it lets go of its buffers, and of the
     * strategy's read buffer it was lent last, so the connections a busy server is closing hold
     * almost nothing.
     */
    private void shedBuffers() {
        InputBuffer empty = new InputBuffer(0);
        if (requests.shed(empty)) {
            in = empty;
            lentKey = null;
            lentMemory = null;
        }
    }

    @Override
    public void closed() {
        if (!life.aborted()) {
            requests.abort();
        }
        in.releaseAll();
    }

    @Override
    public void abort() {
        requests.abort();
    }

    /** This connection speaks HTTP/1.1 only, which is all the TLS layer offers it: whatever was agreed is HTTP/1.1. */
    @Override
    public void applicationProtocol(String protocol) {
    }



    /** Bytes of buffer memory the connection holds, for tests of its memory bound. */
    public int bufferCapacity() {
        return in.capacity() + writer.capacity();
    }

    /** Bytes of output buffer memory, for tests that a body is not copied into it. */
    public int outputCapacity() {
        return writer.capacity();
    }
}
