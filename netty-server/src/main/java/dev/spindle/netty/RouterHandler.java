package dev.spindle.netty;

import dev.spindle.core.Request;
import dev.spindle.core.Response;
import dev.spindle.core.Router;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of the pipeline: adapts Netty's {@link FullHttpRequest} to the core
 * {@link Router}, so the Netty server runs the very same app code as every Spindle server, and
 * turns the core {@link Response} into a {@link FullHttpResponse}. One instance per channel.
 *
 * <p>What it adds on top of Netty's codec (Netty leaves these to the application):
 * <ul>
 *   <li>Decoder failures become error responses that close the connection: a too-long request
 *       line 414, a too-large header section 431, a final transfer coding other than chunked 501,
 *       a {@link RequestChecks} refusal its own status, anything else 400 (Netty only marks the
 *       message's {@link DecoderResult} as failed).</li>
 *   <li>Keep-alive as in Netty's own {@code HttpHelloWorldServerHandler} example: {@code Connection:
 *       close} and a close after the write when the request (or the configuration, or a draining
 *       server) does not keep the connection; {@code Connection: keep-alive} echoed to HTTP/1.0
 *       keep-alive requests. Requests after a closing one are dropped.</li>
 *   <li>Blocking routes ({@link Router#isBlocking}) run on a virtual thread. Until their response is
 *       written, reading stops ({@code autoRead} off) and requests already decoded from the same read
 *       wait in a per-channel queue, so pipelined responses keep request order.</li>
 *   <li>Half-close (the channel allows it): when the peer shuts its sending side, every complete
 *       request is still answered, then the connection closes. A request cut short by it gets no
 *       answer (Netty's decoder reports one cut inside its headers as a
 *       {@link PrematureChannelClosureException}; it is dropped, not answered 400).</li>
 *   <li>Write timeout: a connection that stays unwritable (more than the high-water mark of output
 *       the peer does not read) for {@code writeTimeout} is closed.</li>
 * </ul>
 * Responses are written without a flush while a read is being processed and flushed once in
 * {@link #channelReadComplete}, so a pipelined batch leaves in one write.
 */
final class RouterHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RouterHandler.class);

    /** Response headers: the core {@link Response} already validated names and values. */
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final AsciiString SPINDLE = AsciiString.cached("spindle");
    private static final byte[] NO_BODY = new byte[0];

    private final NettyServer server;
    private final Router router;
    /** Reused for every handler that runs on the event loop; blocking handlers get their own. */
    private final Response response = new Response();
    /** Requests decoded while a blocking one is in flight, in arrival order. */
    private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
    private boolean blockingInFlight;
    /** A response that closes the connection was written: whatever follows is dropped. */
    private boolean closing;
    private boolean needsFlush;
    /** The peer shut its sending side: close once everything received is answered. */
    private boolean inputEnded;
    /** Closes the connection if it is still unwritable when it fires; null while writable. */
    private ScheduledFuture<?> writeTimeout;
    private String lastContentType;
    private AsciiString lastContentTypeAscii;

    RouterHandler(NettyServer server) {
        this.server = server;
        this.router = server.router();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (closing) {
            req.release();
        } else if (blockingInFlight) {
            waiting.add(req);
        } else {
            serve(ctx, req);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushIfNeeded(ctx);
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateAutoRead(ctx.channel());
        if (!ctx.channel().isWritable()) {
            if (writeTimeout == null) {
                writeTimeout = ctx.executor().schedule(() -> {
                    log.debug("write timeout on {}", ctx.channel());
                    ctx.close();
                }, server.config().writeTimeout().toNanos(), TimeUnit.NANOSECONDS);
            }
        } else {
            cancelWriteTimeout();
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void cancelWriteTimeout() {
        if (writeTimeout != null) {
            writeTimeout.cancel(false);
            writeTimeout = null;
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputEnded = true;
            closeIfAllAnswered(ctx);
        }
        if (evt instanceof IdleStateEvent) {
            if (!blockingInFlight) {
                log.debug("closing idle connection {}", ctx.channel());
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelWriteTimeout();
        releaseWaiting();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing {} after {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** Answers one request (or starts its blocking handler) and releases it. */
    private void serve(ChannelHandlerContext ctx, FullHttpRequest req) {
        try {
            if (req.decoderResult().cause() instanceof PrematureChannelClosureException) {
                // the peer ended its input inside this request: the input-shutdown event that
                // follows closes the connection; there is nothing to answer
                return;
            }
            int error = rejectionStatus(req);
            if (error != 0) {
                writeError(ctx, error, req.decoderResult().cause().getMessage());
                return;
            }
            boolean keepAlive = server.keepsAlive() && HttpUtil.isKeepAlive(req);
            boolean http10 = req.protocolVersion() == HttpVersion.HTTP_1_0;
            boolean head = req.method() == HttpMethod.HEAD;
            Request request = toCoreRequest(req);
            if (router.isBlocking(request)) {
                startBlocking(ctx, request, keepAlive, http10, head);
                return;
            }
            router.handle(request, response);
            write(ctx, encode(ctx, response, keepAlive, http10, head), keepAlive);
        } finally {
            req.release();
        }
    }

    /**
     * The error status for a request the server will not run, or 0 for a good one: what
     * {@link RequestChecks} decided, or the status for the reason Netty's decoder failed.
     */
    private static int rejectionStatus(FullHttpRequest req) {
        DecoderResult result = req.decoderResult();
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

    private static Request toCoreRequest(FullHttpRequest req) {
        ByteBuf content = req.content();
        int length = content.readableBytes();
        byte[] body;
        int offset;
        if (length == 0) {
            body = NO_BODY;
            offset = 0;
        } else if (content.hasArray()) {
            body = content.array();
            offset = content.arrayOffset() + content.readerIndex();
        } else {
            body = ByteBufUtil.getBytes(content);
            offset = 0;
        }
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

    private void startBlocking(ChannelHandlerContext ctx, Request request, boolean keepAlive, boolean http10, boolean head) {
        blockingInFlight = true;
        updateAutoRead(ctx.channel());
        // Responses already written for earlier pipelined requests leave now, not after the sleep.
        flushIfNeeded(ctx);
        server.blockingStarted();
        try {
            server.blockingExecutor().execute(() -> runBlocking(ctx, request, keepAlive, http10, head));
        } catch (RejectedExecutionException e) {
            server.blockingFinished();
            blockingInFlight = false;
            writeError(ctx, 503, "the server is shutting down");
        }
    }

    /** On a virtual thread: runs the handler, then hands the answer back to the channel's event loop. */
    private void runBlocking(ChannelHandlerContext ctx, Request request, boolean keepAlive, boolean http10, boolean head) {
        Response res = new Response();
        router.handle(request, res);
        try {
            ctx.executor().execute(() -> finishBlocking(ctx, res, keepAlive, http10, head));
        } catch (RejectedExecutionException e) {
            server.blockingFinished();
            log.debug("event loop gone before a blocking response for {}: {}", ctx.channel(), e.toString());
        }
    }

    /**
     * On the event loop: writes the blocking route's response, then serves what waited behind it.
     * The server counts the request as in flight until the response has left (a graceful close
     * waits for that), so the count drops in the write's listener.
     */
    private void finishBlocking(ChannelHandlerContext ctx, Response res, boolean keepAlive, boolean http10, boolean head) {
        blockingInFlight = false;
        if (!ctx.channel().isActive()) {
            server.blockingFinished();
            releaseWaiting();
            return;
        }
        boolean keep = keepAlive && server.keepsAlive();
        ChannelFuture written = ctx.writeAndFlush(encode(ctx, res, keep, http10, head));
        written.addListener(f -> server.blockingFinished());
        if (!keep) {
            closing = true;
            written.addListener(ChannelFutureListener.CLOSE);
        }
        FullHttpRequest next;
        while (!blockingInFlight && !closing && (next = waiting.poll()) != null) {
            serve(ctx, next);
        }
        if (closing) {
            releaseWaiting();
        }
        flushIfNeeded(ctx);
        updateAutoRead(ctx.channel());
        closeIfAllAnswered(ctx);
    }

    /**
     * After the peer half-closed: once no request is left to answer, closes the connection behind
     * the responses already written.
     */
    private void closeIfAllAnswered(ChannelHandlerContext ctx) {
        if (!inputEnded || closing || blockingInFlight || !waiting.isEmpty()) {
            return;
        }
        closing = true;
        needsFlush = false;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private FullHttpResponse encode(ChannelHandlerContext ctx, Response res, boolean keepAlive, boolean http10, boolean head) {
        ByteBuffer body = res.body();
        int length = body.remaining();
        ByteBuf content = head || length == 0 ? Unpooled.EMPTY_BUFFER : ctx.alloc().ioBuffer(length).writeBytes(body);
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
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
        if (!keepAlive) {
            h.add(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            h.add(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(res.status()), content, h,
                EmptyHttpHeaders.INSTANCE);
    }

    /** Handlers pass the same few content-type strings again and again: encode the last one once. */
    private AsciiString contentType(String type) {
        if (type != lastContentType) {
            lastContentType = type;
            lastContentTypeAscii = new AsciiString(type);
        }
        return lastContentTypeAscii;
    }

    private void write(ChannelHandlerContext ctx, FullHttpResponse res, boolean keepAlive) {
        if (keepAlive) {
            ctx.write(res, ctx.voidPromise());
            needsFlush = true;
        } else {
            closing = true;
            needsFlush = false;
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void writeError(ChannelHandlerContext ctx, int status, String reason) {
        Response res = new Response();
        String phrase = HttpResponseStatus.valueOf(status).reasonPhrase();
        res.status(status).text(status + " " + phrase + (reason == null ? "" : ": " + reason) + "\n");
        write(ctx, encode(ctx, res, false, false, false), false);
    }

    private void flushIfNeeded(ChannelHandlerContext ctx) {
        if (needsFlush) {
            needsFlush = false;
            ctx.flush();
        }
    }

    /** Reads only while no blocking response is pending and the peer keeps up with our writes. */
    private void updateAutoRead(Channel channel) {
        boolean read = !blockingInFlight && !closing && channel.isWritable();
        if (channel.config().isAutoRead() != read) {
            channel.config().setAutoRead(read);
        }
    }

    private void releaseWaiting() {
        FullHttpRequest req;
        while ((req = waiting.poll()) != null) {
            req.release();
        }
    }
}
