package dev.spindle.netty;

import dev.spindle.core.Request;
import dev.spindle.core.RequestBody;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.BodyBudget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of the pipeline: adapts Netty's {@link HttpRequest} and {@link HttpContent}s to
 * the core {@link Router}, so the Netty server runs the very same app code as every Spindle server,
 * and turns the core {@link Response} into Netty's response messages. One instance per channel;
 * everything here runs on the channel's event loop except the handlers and body producers it
 * starts on virtual threads.
 *
 * <p>Requests, in the order they arrive (one queue of decoded messages, so pipelined answers keep
 * request order):
 * <ul>
 *   <li>Every body is limited as its route says ({@link Router#bodyLimit}: the route's own
 *       limit, else {@code maxBodySize} for a joined body and {@code maxStreamedBodySize} for a
 *       streamed one): a larger announced one is answered 413 at once; a chunked one that grows
 *       beyond it fails (for a streamed body, the handler's failure is answered 413), and the
 *       connection closes. A joined body is reserved in the server's {@code bufferedBodyBudget}
 *       (its announced length at once, a chunked one as its contents arrive) until its handler
 *       has it or the channel ends; one that does not fit is answered 503 with
 *       {@code Retry-After: 1} (413 if larger than the whole budget) and the connection closes.</li>
 *   <li>Inline routes get the whole body: the contents are joined, {@code 100 Continue} is sent
 *       at once when asked for, and the handler runs on the event loop when the last content
 *       arrives.</li>
 *   <li>Blocking and asynchronous routes ({@link Router#streamsBody}) start when the header section
 *       arrives: blocking ones on a virtual thread, asynchronous ones on the event loop through
 *       {@link Router#handleAsync}, whose stage completes later. The body is fed to a
 *       {@link RequestBody} as it arrives; reading stops ({@code autoRead} off) while it has no room
 *       and resumes from its wakeup. {@code 100 Continue} is sent when the handler first asks for
 *       the body. A handler that answers before reading it all: the rest is read and dropped, or
 *       the connection closes after the answer if more than {@code discardLimit} is left (or the
 *       client still waits for {@code 100 Continue}).</li>
 *   <li>While a handler runs or a streamed response is being sent, later requests wait: reading
 *       stops and what was already decoded stays queued.</li>
 * </ul>
 *
 * <p>Responses: whole bodies as one {@link FullHttpResponse}; files as a {@link DefaultFileRegion}
 * (zero-copy) where the transport sends file regions, else {@link ChunkedNioFile}; input streams and
 * body writers through {@link ProducedBody} on a virtual thread, both through
 * {@link ChunkedWriteHandler}, so memory stays bounded by the write high-water mark plus a chunk or
 * two. Unknown length: chunked for HTTP/1.1, delimited by the close for HTTP/1.0. HEAD: the headers
 * of the GET, no body. Keep-alive as in Netty's {@code HttpHelloWorldServerHandler} example, with
 * {@code Connection: keep-alive} echoed to HTTP/1.0 keep-alive requests.
 *
 * <p>What Netty leaves to the application, done here: decoder failures become error responses that
 * close the connection (a too-long request line 414, a too-large header section 431, a final
 * transfer coding other than chunked 501, a {@link RequestChecks} refusal its own status, anything
 * else 400); timeouts (see {@link NettyServer}); half-close (every complete request is still
 * answered, then the connection closes; a request cut short by it gets no answer); and a close
 * that lingers: after the last response the output is shut down and what the peer still sends is
 * read and dropped for a while, so unread input does not turn the close into a reset that destroys
 * the response.
 *
 * <p>Responses are written without a flush while a read is being processed and flushed once in
 * {@link #channelReadComplete}, so a pipelined batch leaves in one write. Every request decoded
 * from a read is answered even when that takes the output past the high-water mark (reading stops
 * then): holding decoded requests back would trip the codec's {@code maxPipelineDepth}, and one
 * read's worth of requests bounds what their answers add.
 */
final class RouterHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RouterHandler.class);

    /** Response headers: the core {@link Response} already validated names and values. */
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final AsciiString SPINDLE = AsciiString.cached("spindle");
    private static final byte[] NO_BODY = new byte[0];
    /** How long a finished connection keeps reading (and dropping) what the peer still sends before closing. */
    private static final long LINGER_MILLIS = 500;
    /** How much it drops at most while lingering. */
    private static final long LINGER_BYTES = 1 << 20;

    private enum Body {
        /** Joined for an inline handler. */
        JOIN,
        /** Fed to the handler's {@link RequestBody}. */
        STREAM,
        /** The handler answered without reading it all: read and dropped, up to the discard limit. */
        DISCARD,
        /** Dropped; the connection ends after the answer. */
        DROP
    }

    /** One request: its body as it arrives, its handler, its answer. */
    private static final class Call {
        final HttpRequest head;
        final Request request;
        final boolean keepAlive;
        final boolean http10;
        final boolean isHead;
        final boolean expectContinue;
        /** {@link #request} has no headers (it was only routed): build the handler's request anew. */
        boolean bodyExpected;
        Body body;
        ByteBuf first;
        ByteBuf joined;
        long received;
        RequestBody stream;
        boolean continueSent;
        long lastInput;
        /** The largest body the request's route accepts ({@link Router#bodyLimit}). */
        long bodyLimit;
        /** Bytes of the joined body reserved in {@link #budget}, given back by {@link #releaseJoined}. */
        long reserved;
        BodyBudget budget;
        /** The status the body broke with on the wire (413, 408, 400), or 0: the connection ends after the answer. */
        int bodyStatus;
        long discarded;
        Response response;
        boolean done;
        boolean abandoned;
        /** Counted by the server as in flight (a graceful close waits for it). */
        boolean counted;
        ScheduledFuture<?> handlerTimer;

        Call(HttpRequest head, Request request, boolean keepAlive, boolean http10, boolean expectContinue) {
            this.head = head;
            this.request = request;
            this.keepAlive = keepAlive;
            this.http10 = http10;
            this.isHead = head.method() == HttpMethod.HEAD;
            this.expectContinue = expectContinue;
        }

        void releaseJoined() {
            if (reserved > 0) {
                budget.release(reserved);
                reserved = 0;
            }
            if (first != null) {
                first.release();
                first = null;
            }
            if (joined != null) {
                joined.release();
                joined = null;
            }
        }
    }

    private final NettyServer server;
    private final Router router;
    private final ServerConfig config;
    private final InputWatch inputWatch = new InputWatch();
    /** Reused for every inline handler; asynchronous and blocking ones get their own. */
    private final Response response = new Response();
    /** Decoded messages not yet handled, in arrival order. */
    private final ArrayDeque<HttpObject> backlog = new ArrayDeque<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    private ChunkedWriteHandler chunkedWriter;

    /** The request whose body is arriving, or null between requests. */
    private Call receiving;
    /** The blocking or asynchronous call whose handler runs, or null. */
    private Call running;
    /** A streamed response body is being written. */
    private boolean sending;
    /** No further request is served: the connection ends once the answers in progress are written. */
    private boolean closing;
    private boolean closeScheduled;
    private boolean lingering;
    private long lingerBytes;
    private boolean inputEnded;
    private boolean dead;
    private boolean inRead;
    private boolean needsFlush;
    private boolean processing;
    private boolean reprocess;
    private ScheduledFuture<?> requestTimer;
    private ScheduledFuture<?> producerTimer;
    private String lastContentType;
    private AsciiString lastContentTypeAscii;

    RouterHandler(NettyServer server) {
        this.server = server;
        this.router = server.router();
        this.config = server.config();
    }

    /** The handler to put before the codec: it sees raw input, for the request read timeout and lingering. */
    ChannelInboundHandlerAdapter inputWatch() {
        return inputWatch;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.chunkedWriter = ctx.pipeline().get(ChunkedWriteHandler.class);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpObject obj)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (lingering || dead) {
            ReferenceCountUtil.release(msg);
            return;
        }
        inRead = true;
        backlog.add(obj);
        process();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        inRead = false;
        flushIfNeeded();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateAutoRead();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputEnded = true;
            if (lingering) {
                ctx.close();
            } else {
                // Netty's decoder emits nothing for a body cut short: mark the end of input in
                // order, so a request still incomplete when it is reached is known to be cut
                backlog.add(inputEnd());
                process();
            }
        } else if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.WRITER_IDLE && pendingOutput() > 0) {
                log.debug("write timeout: {} took no output for {}", ctx.channel(), config.writeTimeout());
                ctx.close();
            } else if (idle.state() == IdleState.ALL_IDLE && isIdle()) {
                log.debug("closing idle connection {}", ctx.channel());
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dead = true;
        cancel(requestTimer);
        cancel(producerTimer);
        HttpObject msg;
        while ((msg = backlog.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
        if (receiving != null) {
            receiving.releaseJoined();
            if (receiving.stream != null) {
                receiving.stream.fail(new IOException("the connection was closed"));
            }
        }
        if (running != null) {
            running.abandoned = true;
            cancel(running.handlerTimer);
            uncount(running);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing {} after {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** Handles what can be handled now; not re-entrant (a nested call makes the running one go round again). */
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
            } while (reprocess && !dead);
        } finally {
            processing = false;
        }
        if (dead) {
            return;
        }
        if (inputEnded && !closing && receiving == null && running == null && !sending && backlog.isEmpty()) {
            closing = true; // every complete request is answered
        }
        if (closing && running == null && !sending && !closeScheduled) {
            closeScheduled = true;
            ChannelFuture written = ctx.writeAndFlush(Unpooled.EMPTY_BUFFER);
            needsFlush = false;
            written.addListener(f -> {
                if (f.isSuccess()) {
                    linger();
                } else {
                    ctx.close();
                }
            });
        }
        updateAutoRead();
        if (!inRead) {
            flushIfNeeded();
        }
    }

    private void step() {
        while (!dead) {
            if (running != null && running.done) {
                finishCall(running);
                continue;
            }
            HttpObject next = backlog.peek();
            if (next == null) {
                return;
            }
            if (next instanceof HttpRequest head) {
                if (closing) {
                    backlog.poll();
                    ReferenceCountUtil.release(head);
                    continue;
                }
                if (receiving != null || running != null || sending) {
                    return;
                }
                backlog.poll();
                try {
                    start(head);
                } finally {
                    ReferenceCountUtil.release(head);
                }
                continue;
            }
            HttpContent content = (HttpContent) next;
            if (!feed(content)) {
                return;
            }
            backlog.poll();
            content.release();
        }
    }

    /** A request's header section has arrived: answer an error, start its handler, or get ready to join its body. */
    private void start(HttpRequest head) {
        armRequestTimer();
        boolean isHead = head.method() == HttpMethod.HEAD;
        DecoderResult result = head.decoderResult();
        if (result.cause() instanceof PrematureChannelClosureException) {
            // the peer ended its input inside this request: there is nothing to answer
            closing = true;
            return;
        }
        int error = rejectionStatus(head, result);
        if (error != 0) {
            writeError(error, result.cause().getMessage(), isHead);
            return;
        }
        long length = HttpUtil.getContentLength(head, -1L);
        boolean chunked = HttpUtil.isTransferEncodingChunked(head);
        String expect = head.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect)) {
            writeError(417, "unsupported expectation", isHead);
            return;
        }
        boolean http10 = head.protocolVersion() == HttpVersion.HTTP_1_0;
        boolean keepAlive = server.keepsAlive() && HttpUtil.isKeepAlive(head);
        boolean hasBody = chunked || length > 0;
        boolean expectContinue = hasBody && HttpUtil.is100ContinueExpected(head);
        // with a body to come, the request is built again with it (joined) or around it (streamed):
        // route one without headers, which is all routing needs
        Request request = hasBody ? routingRequest(head, http10) : toCoreRequest(head, NO_BODY, 0, 0);
        long limit = router.bodyLimit(request, config);
        if (length > limit) {
            writeError(413, "body larger than " + limit + " bytes", isHead);
            return;
        }
        Call call = new Call(head, request, keepAlive, http10, expectContinue);
        call.bodyExpected = hasBody;
        call.bodyLimit = limit;
        if (!router.streamsBody(request)) {
            call.budget = server.bodyBudget();
            if (length > 0 && !reserve(call, length)) {
                return;
            }
            receiving = call;
            call.body = Body.JOIN;
            if (expectContinue) {
                sendContinue(call);
            }
            return;
        }
        receiving = call;
        call.body = Body.STREAM;
        call.lastInput = System.nanoTime();
        call.stream = RequestBody.forAdapter(chunked ? -1 : Math.max(length, 0), this::wakeup);
        boolean async = router.isAsync(request);
        Request streamed = Request.ofStreamed(head.method().name(), originForm(head.uri()), http10, head.headers(), call.stream,
                !async);
        call.response = new Response();
        running = call;
        call.counted = true;
        server.callStarted();
        call.handlerTimer = ctx.executor().schedule(() -> handlerTimedOut(call), config.handlerTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
        if (async) {
            CompletionStage<Void> stage = router.handleAsync(streamed, call.response);
            stage.whenComplete((value, failure) -> callDone(call));
            return;
        }
        try {
            server.blockingExecutor().execute(() -> {
                router.handle(streamed, call.response);
                callDone(call);
            });
        } catch (RejectedExecutionException e) {
            call.response.status(503).text("503 Service Unavailable: the server is shutting down\n");
            call.done = true;
        }
    }

    /**
     * Takes one content of the request being received. False when it could not all be taken (the
     * handler's body has no room): it stays first in the backlog and reading pauses until the wakeup.
     */
    private boolean feed(HttpContent content) {
        Call call = receiving;
        if (call == null) {
            return true; // the rest of a request already answered with an error
        }
        boolean last = content instanceof LastHttpContent;
        DecoderResult result = content.decoderResult();
        if (!result.isSuccess()) {
            bodyFailed(call, result.cause());
            return true;
        }
        ByteBuf data = content.content();
        int n = data.readableBytes();
        switch (call.body) {
            case JOIN -> {
                if (n > 0 && !join(call, data)) {
                    return true;
                }
                if (last) {
                    receiving = null;
                    cancel(requestTimer);
                    requestTimer = null;
                    runInline(call);
                }
            }
            case STREAM -> {
                if (n > 0) {
                    if (call.received + n > call.bodyLimit) {
                        // the handler's failure to read it is answered 413, and the connection ends
                        call.bodyStatus = 413;
                        call.body = Body.DROP;
                        closing = true;
                        call.stream.fail(413, "body larger than " + call.bodyLimit + " bytes");
                        return true;
                    }
                    int taken = call.stream.offer(data.nioBuffer(data.readerIndex(), n));
                    data.skipBytes(taken);
                    call.received += taken;
                    if (taken < n) {
                        return false;
                    }
                }
                if (last) {
                    call.stream.complete();
                    receiving = null;
                    cancel(requestTimer);
                    requestTimer = null;
                }
            }
            case DISCARD -> {
                call.discarded += n;
                if (call.discarded > config.discardLimit()) {
                    call.body = Body.DROP;
                    closing = true;
                } else if (last) {
                    receiving = null;
                    cancel(requestTimer);
                    requestTimer = null;
                }
            }
            case DROP -> {
                if (last) {
                    receiving = null;
                }
            }
        }
        return true;
    }

    /**
     * Reserves {@code bytes} more of a joined body in the server's budget; false, after answering
     * 503 with {@code Retry-After} (413 when the body alone exceeds the whole budget), if they do not fit.
     */
    private boolean reserve(Call call, long bytes) {
        if (call.budget.tryReserve(bytes)) {
            call.reserved += bytes;
            return true;
        }
        boolean never = call.reserved + bytes > call.budget.capacity();
        call.releaseJoined();
        Response refusal = never
                ? errorResponse(413, "body larger than the server's budget for buffered bodies (" + call.budget.capacity() + " bytes)")
                : errorResponse(503, "too many request bodies in flight; try again").header("Retry-After", "1");
        cancel(requestTimer);
        requestTimer = null;
        closing = true;
        needsFlush = true;
        ctx.write(encode(refusal, false, false, call.isHead), ctx.voidPromise());
        return false;
    }

    /** Adds body bytes for an inline handler; false (after answering 413, or 503 when the budget is spent) beyond the limit. */
    private boolean join(Call call, ByteBuf data) {
        int n = data.readableBytes();
        if (call.received + n > call.bodyLimit) {
            call.releaseJoined();
            receiving = null;
            writeError(413, "body larger than " + call.bodyLimit + " bytes", call.isHead);
            return false;
        }
        if (call.received + n > call.reserved && !reserve(call, call.received + n - call.reserved)) {
            receiving = null;
            return false;
        }
        if (call.first == null && call.joined == null) {
            call.first = data.retain();
        } else {
            if (call.joined == null) {
                long announced = HttpUtil.getContentLength(call.head, -1L);
                int capacity = (int) Math.max(call.first.readableBytes() + n, Math.min(announced, call.bodyLimit));
                call.joined = ctx.alloc().heapBuffer(capacity).writeBytes(call.first);
                call.first.release();
                call.first = null;
            }
            call.joined.writeBytes(data);
        }
        call.received += n;
        return true;
    }

    /** Netty could not decode the body (bad chunk framing), or the peer ended its input inside it. */
    private void bodyFailed(Call call, Throwable cause) {
        boolean cut = cause instanceof PrematureChannelClosureException;
        switch (call.body) {
            case JOIN -> {
                call.releaseJoined();
                receiving = null;
                if (cut) {
                    closing = true;
                } else {
                    writeError(contentErrorStatus(cause), cause.getMessage(), call.isHead);
                }
            }
            case STREAM -> {
                if (cut) {
                    // it can never complete and nobody is there to answer: end the connection now
                    call.stream.fail(new IOException("the peer ended its input inside the request body"));
                    receiving = null;
                    closing = true;
                    if (running == call) {
                        running = null;
                        call.abandoned = true;
                        cancel(call.handlerTimer);
                        uncount(call);
                    }
                    return;
                }
                call.bodyStatus = contentErrorStatus(cause);
                call.body = Body.DROP;
                closing = true;
                call.stream.fail(call.bodyStatus, bodyStatusReason(call.bodyStatus));
            }
            case DISCARD, DROP -> {
                receiving = null;
                closing = true;
            }
        }
    }

    private static LastHttpContent inputEnd() {
        LastHttpContent end = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
        end.setDecoderResult(DecoderResult.failure(new PrematureChannelClosureException("the peer ended its input")));
        return end;
    }

    private static int contentErrorStatus(Throwable cause) {
        return cause instanceof TooLongFrameException ? 413 : 400;
    }

    /** The last content of an inline route's request arrived: runs its handler here, on the event loop. */
    private void runInline(Call call) {
        Request request = call.request;
        if (call.received > 0) {
            ByteBuf body = call.joined != null ? call.joined : call.first;
            int length = body.readableBytes();
            if (body.hasArray()) {
                request = toCoreRequest(call.head, body.array(), body.arrayOffset() + body.readerIndex(), length);
            } else {
                request = toCoreRequest(call.head, ByteBufUtil.getBytes(body), 0, length);
            }
            call.releaseJoined();
        } else if (call.bodyExpected) {
            request = toCoreRequest(call.head, NO_BODY, 0, 0);
        }
        call.releaseJoined();
        router.handle(request, response);
        respond(call, response, call.keepAlive);
    }

    /** From any thread: the handler's stage completed or its thread returned. */
    private void callDone(Call call) {
        if (ctx.executor().inEventLoop()) {
            call.done = true;
            process();
            return;
        }
        try {
            ctx.executor().execute(() -> {
                call.done = true;
                process();
            });
        } catch (RejectedExecutionException e) {
            uncount(call);
            log.debug("event loop gone before a response for {}: {}", ctx.channel(), e.toString());
        }
    }

    /** The running handler has answered: decide what happens to the rest of its body, then send the answer. */
    private void finishCall(Call call) {
        running = null;
        cancel(call.handlerTimer);
        if (call.abandoned || dead) {
            uncount(call);
            return;
        }
        Response res = call.response;
        boolean keepAlive = call.keepAlive;
        if (call.bodyStatus != 0) {
            // the framing is lost; if the handler failed because its body did, the router answered what broke it
            keepAlive = false;
        }
        if (receiving == call && call.body == Body.STREAM) {
            RequestBody body = call.stream;
            long rest = body.length() >= 0 ? body.length() - call.received : 0;
            if (rest > config.discardLimit() || call.expectContinue && !call.continueSent) {
                // dropping the rest would cost more than the limit, or the client still waits for 100
                call.body = Body.DROP;
                keepAlive = false;
            } else {
                call.body = Body.DISCARD;
            }
            body.fail(new IOException("the request was already answered"));
        }
        respond(call, res, keepAlive);
    }

    private static String bodyStatusReason(int status) {
        return switch (status) {
            case 408 -> "request body not received in time";
            case 413 -> "body too large";
            default -> "bad request body";
        };
    }

    /** Writes the answer to a call; a streamed one keeps later requests waiting until it is written. */
    private void respond(Call call, Response res, boolean keepAlive) {
        keepAlive = keepAlive && !closing && server.keepsAlive();
        if (!keepAlive) {
            closing = true;
        }
        if (res.isStreamed()) {
            sendStreamed(call, res, keepAlive);
            return;
        }
        FullHttpResponse msg = encode(res, keepAlive, call.http10, call.isHead);
        needsFlush = true;
        if (call.counted) {
            ctx.write(msg).addListener(f -> uncount(call));
        } else {
            ctx.write(msg, ctx.voidPromise());
        }
    }

    private void sendStreamed(Call call, Response res, boolean keepAlive) {
        long length = res.streamedLength();
        int status = res.status();
        boolean noContent = status == 204 || status == 304;
        boolean chunked = length < 0 && !call.http10;
        if (length < 0 && !chunked && !noContent && !call.isHead) {
            // HTTP/1.0 and no length: the close ends the body
            keepAlive = false;
            closing = true;
        }
        HttpHeaders h = headers(res, keepAlive, call.http10);
        if (!noContent) {
            if (length >= 0) {
                h.set(HttpHeaderNames.CONTENT_LENGTH, length);
            } else if (chunked) {
                h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
        }
        ctx.write(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), h), ctx.voidPromise());
        needsFlush = true;
        if (call.isHead || noContent || length == 0) {
            closeSource(res);
            ChannelFuture written = ctx.write(LastHttpContent.EMPTY_LAST_CONTENT);
            if (call.counted) {
                written.addListener(f -> uncount(call));
            }
            return;
        }
        if (!call.counted) {
            call.counted = true;
            server.callStarted();
        }
        sending = true;
        ChannelFuture written;
        FileChannel file = res.bodyFile();
        if (file != null) {
            if (server.sendsFileRegions()) {
                ctx.write(new DefaultFileRegion(file, startOf(file), length), ctx.voidPromise());
                written = ctx.write(LastHttpContent.EMPTY_LAST_CONTENT);
            } else {
                written = writeChunked(new HttpChunkedInput(chunkedFile(file, length)));
            }
        } else {
            InputStream in = res.bodyInputStream();
            ProducedBody body = in != null
                    ? ProducedBody.of(in, length, ctx, chunkedWriter, server.blockingExecutor())
                    : ProducedBody.of(res.bodyWriter(), length, ctx, chunkedWriter, server.blockingExecutor());
            written = writeChunked(new HttpChunkedInput(body));
            watchProducer(body);
        }
        written.addListener(f -> {
            sending = false;
            cancel(producerTimer);
            uncount(call);
            if (!f.isSuccess()) {
                log.debug("streamed response on {} failed: {}", ctx.channel(), String.valueOf(f.cause()));
                // the body is cut short, so the connection ends; what precedes it (the head) may be
                // unflushed still, as this can run inside ChunkedWriteHandler's flush
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            process();
        });
    }

    private ChannelFuture writeChunked(HttpChunkedInput input) {
        return ctx.write(input);
    }

    private static ChunkedNioFile chunkedFile(FileChannel file, long length) {
        try {
            return new ChunkedNioFile(file, file.position(), length, ProducedBody.CHUNK);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Where a file body starts: its channel's position (a byte range starts past 0). */
    private static long startOf(FileChannel file) {
        try {
            return file.position();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A streamed body whose producer yields nothing for the handler timeout ends its connection. */
    private void watchProducer(ProducedBody body) {
        long timeout = config.handlerTimeout().toNanos();
        long starved = body.starvedFor(System.nanoTime());
        producerTimer = ctx.executor().schedule(() -> {
            if (!sending || dead) {
                return;
            }
            if (body.starvedFor(System.nanoTime()) >= timeout) {
                log.warn("a streamed response body produced nothing for {}; closing its connection", config.handlerTimeout());
                ctx.close();
                return;
            }
            watchProducer(body);
        }, Math.max(1, timeout - starved), TimeUnit.NANOSECONDS);
    }

    private static void closeSource(Response res) {
        try {
            InputStream in = res.bodyInputStream();
            if (in != null) {
                in.close();
            }
            FileChannel file = res.bodyFile();
            if (file != null) {
                file.close();
            }
        } catch (IOException e) {
            log.debug("closing a response body that is not sent: {}", e.toString());
        }
    }

    private void sendContinue(Call call) {
        call.continueSent = true;
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER),
                ctx.voidPromise());
    }

    /** From any thread: the request body's consumer made room or asked for more. */
    private void wakeup() {
        if (!wakeupPending.compareAndSet(false, true)) {
            return;
        }
        try {
            ctx.executor().execute(() -> {
                wakeupPending.set(false);
                if (dead) {
                    return;
                }
                Call call = receiving;
                if (call != null && call.body == Body.STREAM && call.expectContinue && !call.continueSent
                        && !call.stream.abandoned()) {
                    sendContinue(call);
                }
                process();
            });
        } catch (RejectedExecutionException e) {
            log.debug("event loop gone before a request body wakeup for {}", ctx.channel());
        }
    }

    private void handlerTimedOut(Call call) {
        if (call != running || call.done || dead) {
            return;
        }
        log.warn("handler for {} did not answer within {}; answering 503", call.request, config.handlerTimeout());
        call.abandoned = true;
        running = null;
        if (receiving == call) {
            call.body = Body.DROP;
            call.stream.fail(new IOException("the handler timed out"));
        }
        writeError(503, "the handler did not answer in time", call.isHead);
        uncount(call);
        process();
    }

    private void uncount(Call call) {
        if (call.counted) {
            call.counted = false;
            server.callFinished();
        }
    }

    /** Starts the request read timeout, unless it runs already. */
    private void armRequestTimer() {
        if (requestTimer == null && !lingering && !dead) {
            requestTimer = ctx.executor().schedule(this::requestTimedOut, config.headerTimeout().toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * The request read timeout ran out: a request begun {@code headerTimeout} ago is not complete
     * (for a streamed body: no bytes for that long while the handler waits for them). 408 and a close.
     */
    private void requestTimedOut() {
        requestTimer = null;
        if (dead || lingering || closing) {
            return;
        }
        Call call = receiving;
        long timeout = config.headerTimeout().toNanos();
        if (call == null) {
            if (running != null || sending) {
                armRequestTimer();
                return;
            }
            log.debug("request not received within {} on {}", config.headerTimeout(), ctx.channel());
            writeError(408, "request not received in time", false);
        } else if (call.body == Body.JOIN) {
            call.releaseJoined();
            receiving = null;
            writeError(408, "request not received in time", call.isHead);
        } else if (call.body == Body.STREAM) {
            long idle = System.nanoTime() - call.lastInput;
            if (!backlog.isEmpty() || !call.stream.hasRoom() || call.expectContinue && !call.continueSent) {
                armRequestTimer(); // the handler is slow to read, or has not asked for the body yet: not the peer's fault
                return;
            }
            if (idle < timeout) {
                requestTimer = ctx.executor().schedule(this::requestTimedOut, timeout - idle, TimeUnit.NANOSECONDS);
                return;
            }
            call.bodyStatus = 408;
            call.body = Body.DROP;
            closing = true;
            call.stream.fail(408, bodyStatusReason(408));
        } else {
            closing = true;
        }
        process();
    }

    /** Everything is answered and written: shut the output down and drop what still comes for a while, then close. */
    private void linger() {
        if (dead || lingering) {
            return;
        }
        cancel(requestTimer);
        requestTimer = null;
        if (inputEnded || !(ctx.channel() instanceof DuplexChannel duplex)) {
            ctx.close();
            return;
        }
        lingering = true;
        HttpObject msg;
        while ((msg = backlog.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
        ChannelFutureListener shutOutput = done -> duplex.shutdownOutput().addListener(f -> {
            if (!f.isSuccess()) {
                ctx.close();
            }
        });
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        if (tls != null) {
            // TLS's end of output first: close_notify tells the client the response was not cut
            tls.closeOutbound().addListener(shutOutput);
        } else {
            ctx.newSucceededFuture().addListener(shutOutput);
        }
        ctx.executor().schedule(() -> {
            ctx.close();
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
        ctx.channel().config().setAutoRead(true);
    }

    /** Whether nothing is in progress, so the idle timeout may close the connection. */
    private boolean isIdle() {
        return receiving == null && running == null && !sending && backlog.isEmpty() && requestTimer == null
                && pendingOutput() == 0;
    }

    private long pendingOutput() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /**
     * Reads only when something can take the bytes: a streamed body with room (or one being
     * discarded) while nothing it could not take is queued, or, when no handler runs and no streamed response is going out, the next request while the
     * peer keeps up with our writes.
     */
    private void updateAutoRead() {
        if (dead || lingering) {
            return;
        }
        boolean read;
        if (inputEnded || !backlog.isEmpty()) {
            read = false;
        } else if (receiving != null && receiving.body == Body.STREAM) {
            read = receiving.stream.hasRoom(); // its wakeup resumes reading once the consumer made room
        } else if (receiving != null && receiving.body == Body.DISCARD) {
            read = true;
        } else if (closing) {
            read = false;
        } else {
            read = running == null && !sending && ctx.channel().isWritable();
        }
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    /**
     * The error status for a request head the server will not run, or 0 for a good one: what
     * {@link RequestChecks} decided, or the status for the reason Netty's decoder failed.
     */
    private static int rejectionStatus(HttpRequest req, DecoderResult result) {
        if (result.isSuccess()) {
            return 0;
        }
        Throwable cause = result.cause();
        if (cause instanceof RequestChecks.Rejected rejected) {
            return rejected.status;
        }
        if (cause instanceof TooLongHttpLineException) {
            return 414;
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return 431;
        }
        if (req.headers().contains(HttpHeaderNames.TRANSFER_ENCODING) && !HttpUtil.isTransferEncodingChunked(req)) {
            return 501;
        }
        return 400;
    }

    private static Request routingRequest(HttpRequest req, boolean http10) {
        return Request.of(req.method().name(), originForm(req.uri()), http10, List.of(), NO_BODY, 0, 0);
    }

    private static Request toCoreRequest(HttpRequest req, byte[] body, int offset, int length) {
        return Request.of(req.method().name(), originForm(req.uri()), req.protocolVersion() == HttpVersion.HTTP_1_0,
                req.headers(), body, offset, length);
    }

    /** The origin-form of a target: {@code http://host/p?q} becomes {@code /p?q}. */
    static String originForm(String uri) {
        if (uri.isEmpty() || uri.charAt(0) == '/') {
            return uri;
        }
        int scheme = uri.indexOf("://");
        if (scheme < 0) {
            return uri;
        }
        int path = uri.indexOf('/', scheme + 3);
        int query = uri.indexOf('?', scheme + 3);
        if (path < 0 || (query >= 0 && query < path)) {
            return query < 0 ? "/" : "/" + uri.substring(query);
        }
        return uri.substring(path);
    }

    private FullHttpResponse encode(Response res, boolean keepAlive, boolean http10, boolean head) {
        java.nio.ByteBuffer body = res.body();
        int length = body.remaining();
        ByteBuf content = head || length == 0 ? Unpooled.EMPTY_BUFFER : ctx.alloc().ioBuffer(length).writeBytes(body);
        HttpHeaders h = headers(res, keepAlive, http10);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(res.status()), content, h,
                EmptyHttpHeaders.INSTANCE);
    }

    private HttpHeaders headers(Response res, boolean keepAlive, boolean http10) {
        HttpHeaders h = HEADERS.newHeaders();
        h.add(HttpHeaderNames.SERVER, SPINDLE);
        h.add(HttpHeaderNames.DATE, HttpDate.now());
        String type = res.contentType();
        if (type != null) {
            h.add(HttpHeaderNames.CONTENT_TYPE, contentType(type));
        }
        for (int i = 0, n = res.headerCount(); i < n; i++) {
            h.add(res.headerName(i), res.headerValue(i));
        }
        if (!keepAlive) {
            h.add(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            h.add(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        return h;
    }

    /** Handlers pass the same few content-type strings again and again: encode the last one once. */
    private AsciiString contentType(String type) {
        if (type != lastContentType) {
            lastContentType = type;
            lastContentTypeAscii = new AsciiString(type);
        }
        return lastContentTypeAscii;
    }

    private static Response errorResponse(int status, String reason) {
        Response res = new Response();
        String phrase = HttpResponseStatus.valueOf(status).reasonPhrase();
        res.status(status).text(status + " " + phrase + (reason == null ? "" : ": " + reason) + "\n");
        return res;
    }

    /** Answers an error with {@code Connection: close}; no request is served after it. */
    private void writeError(int status, String reason, boolean head) {
        cancel(requestTimer);
        requestTimer = null;
        closing = true;
        needsFlush = true;
        ctx.write(encode(errorResponse(status, reason), false, false, head), ctx.voidPromise());
    }

    private void flushIfNeeded() {
        if (needsFlush) {
            needsFlush = false;
            ctx.flush();
        }
    }

    private static void cancel(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /**
     * Sits before the codec and sees the raw input: a request's first bytes start the request read
     * timeout, a streamed body's bytes keep it from running out, and a lingering connection drops
     * what arrives here (up to a limit) instead of decoding it.
     */
    private final class InputWatch extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (lingering) {
                if (msg instanceof ByteBuf buf) {
                    lingerBytes += buf.readableBytes();
                }
                ReferenceCountUtil.release(msg);
                if (lingerBytes > LINGER_BYTES) {
                    ctx.close();
                }
                return;
            }
            if (receiving == null) {
                armRequestTimer();
            } else if (receiving.body == Body.STREAM) {
                receiving.lastInput = System.nanoTime();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
