package dev.spindle.core;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection without any I/O: the strategy feeds it received bytes, writes what
 * {@link #outbound()} holds, and closes the socket when {@link #shouldClose()} says so. It parses,
 * routes, runs handlers and encodes responses; answers pipelined requests in order; decides
 * keep-alive; sends {@code 100 Continue}; and answers bad input with an error and a close.
 *
 * <p>Not thread-safe: one thread (a connection loop, an event loop, a ring thread) drives it. With
 * a blocking executor, a route marked {@link Handler#blocking} runs on that executor; when it
 * finishes the connection calls {@code wakeup} from that thread, and the driving thread must then
 * call {@link #resume()}. Without one, blocking handlers run inline on the driving thread.
 *
 * <p>Back-pressure: while more than {@link ServerConfig#writeHighWaterMark()} bytes are
 * pending, or a blocking handler is running, the connection processes no further requests and
 * {@link #wantsInput()} is false; after writing, call {@link #resume()}.
 */
public final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

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

    private boolean closing;
    private boolean closeAfterResponse;
    private boolean inputEnded;
    private boolean continueSent;
    private Offloaded offloaded;
    private byte[] lentKey;
    private MemorySegment lentMemory;

    /** A connection whose blocking handlers run inline, for thread-per-connection strategies. */
    public Connection(Router router, ServerConfig config) {
        this(router, config, null, null);
    }

    public Connection(Router router, ServerConfig config, Executor blockingExecutor, Runnable wakeup) {
        this.router = router;
        this.config = config;
        this.blockingExecutor = blockingExecutor;
        this.wakeup = wakeup;
        this.in = new InputBuffer(Math.min(config.readBufferSize(), 64 * 1024));
        this.out = new OutputBuffer(4096);
        this.parser = new RequestParser(config);
        this.highWater = config.writeHighWaterMark();
    }

    /**
     * A complete response that closes its connection, for answering a socket the server will not
     * serve (too many connections, no free worker, a request that timed out).
     */
    public static byte[] rejection(int status, String message) {
        return ResponseEncoder.standalone(status, message);
    }

    /**
     * Consumes all of {@code src} and processes every complete request in it. When nothing is
     * buffered, a heap buffer is parsed in place and only the bytes of an
     * unfinished request (or a chunked body, which is joined by moving bytes) are copied. Its bytes
     * are never written, and nothing refers to them once this returns, so the caller may reuse
     * it at once.
     */
    public void received(ByteBuffer src) {
        int length = src.remaining();
        if (closing || length == 0) {
            src.position(src.limit());
            return;
        }
        MemorySegment memory = in.available() == 0 ? lendable(src) : null;
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
     */
    public void received(MemorySegment memory, long offset, int length) {
        if (closing || length == 0) {
            return;
        }
        if (in.available() > 0 || memory.isReadOnly()) {
            in.append(memory.asSlice(offset, length).asByteBuffer());
            process();
            return;
        }
        receivedInPlace(memory, null, offset, length);
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
        inputEnded = true;
        process();
    }

    /** Continues after output was written or a blocking handler finished. */
    public void resume() {
        process();
    }

    /**
     * Bytes to write, as a buffer positioned at the first pending byte. It stays valid until the
     * next call to {@link #received}, {@link #resume} or {@link #written}; report what was
     * written with {@link #written}.
     */
    public ByteBuffer outbound() {
        return out.view();
    }

    public boolean hasOutbound() {
        return out.pending() > 0;
    }

    public int outboundBytes() {
        return out.pending();
    }

    public void written(int bytes) {
        out.written(bytes);
    }

    /** Whether the strategy should read from the socket now. */
    public boolean wantsInput() {
        return !closing && offloaded == null && out.pending() < highWater;
    }

    /** True once the connection is finished and everything has been handed out for writing. */
    public boolean shouldClose() {
        return closing && offloaded == null && out.pending() == 0;
    }

    /** No request in progress and nothing to write: safe to close for idleness or shutdown. */
    public boolean isIdle() {
        return offloaded == null && out.pending() == 0 && !parser.inProgress(in);
    }

    /** Bytes of a request have arrived but not the whole request (header timeout applies). */
    public boolean hasPartialRequest() {
        return parser.inProgress(in);
    }

    public boolean isAwaitingHandler() {
        return offloaded != null;
    }

    /**
     * The next response says {@code Connection: close} and ends the connection (shutdown,
     * shedding). A connection that is idle is the strategy's to close.
     */
    public void closeAfterResponse() {
        closeAfterResponse = true;
    }

    private void process() {
        if (offloaded != null) {
            if (!offloaded.done) {
                return;
            }
            Offloaded job = offloaded;
            offloaded = null;
            finish(job.request, job.response, job.failure, job.keepAlive && !closeAfterResponse);
        }
        while (!closing && offloaded == null) {
            if (out.pending() >= highWater) {
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
            in.consume(parser.consumed());
            continueSent = false;
            dispatch(request);
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

    private void dispatch(Request req) {
        boolean keepAlive = config.keepAlive() && !closeAfterResponse && req.isKeepAliveRequested();
        Route route;
        try {
            route = router.route(req);
        } catch (HttpException e) {
            response.reset();
            finish(req, response, e, keepAlive);
            return;
        }
        if (route.blocking && blockingExecutor != null) {
            offload(route, req.detach(), keepAlive);
            return;
        }
        response.reset();
        Throwable failure = null;
        try {
            route.handler.handle(req, response);
        } catch (Throwable t) {
            failure = t;
        }
        finish(req, response, failure, keepAlive);
    }

    private void offload(Route route, Request copy, boolean keepAlive) {
        Offloaded job = new Offloaded(copy, keepAlive);
        offloaded = job;
        try {
            blockingExecutor.execute(() -> {
                try {
                    route.handler.handle(job.request, job.response);
                } catch (Throwable t) {
                    job.failure = t;
                }
                job.done = true;
                wakeup.run();
            });
        } catch (RejectedExecutionException e) {
            job.failure = new HttpException(503, "server is shutting down");
            job.keepAlive = false;
            job.done = true;
            process();
        }
    }

    private void finish(Request req, Response res, Throwable failure, boolean keepAlive) {
        int connection = !keepAlive ? ResponseEncoder.CONNECTION_CLOSE
                : req.version == Request.HTTP_1_0 ? ResponseEncoder.CONNECTION_KEEP_ALIVE
                : ResponseEncoder.CONNECTION_DEFAULT;
        if (!keepAlive) {
            closing = true;
        }
        if (failure == null) {
            ResponseEncoder.encode(out, res, req.method == Method.HEAD, connection);
            return;
        }
        boolean head = req.method == Method.HEAD;
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

    /** A blocking handler's run: written by the executor thread, read by the driving thread after {@link #done}. */
    private static final class Offloaded {
        final Request request;
        final Response response = new Response();
        boolean keepAlive;
        Throwable failure;
        volatile boolean done;

        Offloaded(Request request, boolean keepAlive) {
            this.request = request;
            this.keepAlive = keepAlive;
        }
    }
}
