// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.BenchmarkLimits;
import dev.spindle.references.support.Fixtures;
import dev.spindle.references.support.RemoteDownstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark app's routes, one instance per connection, behind {@code HttpServerCodec} alone.
 * A bodiless request is answered from its {@link HttpRequest} (its empty last content is
 * dropped); {@code /echo} gathers its body itself, {@code /multipart} offers it to Netty's
 * {@link HttpPostRequestDecoder} chunk by chunk ({@link MultipartUploads}). Responses are written, not flushed: the flush
 * comes once per read batch in {@link #channelReadComplete}. While an offloaded or timed answer is
 * pending, later pipelined messages wait in order (and reading pauses), so answers keep the
 * order of the requests. A request for a WebSocket or an event stream ({@link WebSockets},
 * {@link EventStreams}) takes the connection over: this handler hands it to their handlers and
 * leaves the pipeline.
 */
final class BenchmarkHandler extends ChannelInboundHandlerAdapter {
    /** The file {@code /download} serves, written once per process. */
    private static final java.nio.file.Path DOWNLOAD = Fixtures.downloadFile(BenchmarkLimits.DOWNLOAD_BYTES);
    private static final Logger log = LoggerFactory.getLogger(BenchmarkHandler.class);
    /** Headers are built from constants we trust: no per-value validation on the hot path. */
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final AsciiString ZERO = AsciiString.cached("0");
    /** The Allow of the WebSocket and event-stream routes, which take no HEAD. */
    private static final AsciiString GET_ONLY = AsciiString.cached("GET");
    /** How long a closing connection keeps draining what the client still sends. */
    private static final long LINGER_MS = 2000;
    private static final AsciiString DOWNLOAD_LENGTH = AsciiString.cached(Integer.toString(BenchmarkLimits.DOWNLOAD_BYTES));

    private final Executor blocking;
    private final RemoteCalls remote;
    /** The calls of {@code /remote-tls/{ms}}, to the downstream over HTTPS. */
    private final RemoteCalls remoteTls;
    /** Whether {@code /download} may go as a file region (sendfile); not through TLS, which must see the bytes. */
    private final boolean zeroCopy;
    private ChannelHandlerContext ctx;
    /** An answer is pending off the read path; messages meanwhile go to {@link #queued}. */
    private boolean waiting;
    private ArrayDeque<Object> queued;
    /** The body of the {@code /echo} request being read, else null. */
    private CompositeByteBuf echoBody;
    private CharSequence echoType;
    private boolean echoKeepAlive;
    private boolean echoHttp10;
    /** The decoder of the {@code /multipart} upload being read (or hashed), else null; its parts so far. */
    private HttpPostRequestDecoder multipart;
    private List<MultipartUploads.Part> multipartParts;
    private long multipartBytes;
    private boolean closing;
    private boolean inputShutdown;
    /** Netty's compressor, put before this handler once the connection asks for {@code /users-list}; else null. */
    private HttpContentCompressor compressor;
    /** The body being read is a {@code /sse/publish} event's data, not an {@code /echo} body. */
    private boolean publishing;
    /** The largest body the route being read takes. */
    private int bodyLimit;
    private final WebSockets webSockets;
    private final EventStreams eventStreams;

    BenchmarkHandler(Executor blocking, RemoteCalls remote, RemoteCalls remoteTls, WebSockets webSockets, EventStreams eventStreams) {
        this(blocking, remote, remoteTls, webSockets, eventStreams, true);
    }

    BenchmarkHandler(Executor blocking, RemoteCalls remote, RemoteCalls remoteTls, WebSockets webSockets, EventStreams eventStreams,
            boolean zeroCopy) {
        this.blocking = blocking;
        this.remote = remote;
        this.remoteTls = remoteTls;
        this.webSockets = webSockets;
        this.eventStreams = eventStreams;
        this.zeroCopy = zeroCopy;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (waiting) {
            if (queued == null) {
                queued = new ArrayDeque<>();
            }
            queued.add(msg);
            return;
        }
        handle(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    private void handle(Object msg) {
        try {
            if (closing) {
                return;
            }
            if (msg instanceof HttpRequest req) {
                if (req.decoderResult().isFailure()) {
                    fail(req.decoderResult().cause());
                } else {
                    onRequest(req);
                }
            } else if (msg instanceof HttpContent content) {
                if (content.decoderResult().isFailure()) {
                    fail(content.decoderResult().cause());
                } else if (echoBody != null) {
                    onEchoContent(content);
                } else if (multipartParts != null) {
                    onMultipartContent(content);
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(HttpRequest req) {
        HttpVersion version = req.protocolVersion();
        boolean http10 = version == HttpVersion.HTTP_1_0;
        if (version != HttpVersion.HTTP_1_1 && !http10) {
            closeWith(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        HttpMethod method = req.method();
        boolean get = method == HttpMethod.GET || method == HttpMethod.HEAD;
        String uri = req.uri();
        // the benchmark's hot targets first: one string switch, no parsing
        switch (uri) {
            case "/plaintext" -> staticAnswer(get, Wire.HELLO, Wire.TEXT_PLAIN, Wire.HELLO_LENGTH, keepAlive, http10);
            case "/json" -> staticAnswer(get, Wire.HELLO_JSON, Wire.APPLICATION_JSON, Wire.HELLO_JSON_LENGTH, keepAlive, http10);
            case "/health" -> staticAnswer(get, Wire.OK, Wire.TEXT_PLAIN, Wire.OK_LENGTH, keepAlive, http10);
            default -> route(req, uri, method, get, keepAlive, http10);
        }
    }

    private void route(HttpRequest req, String uri, HttpMethod method, boolean get, boolean keepAlive, boolean http10) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                closeWith(HttpResponseStatus.BAD_REQUEST);
                return;
            }
        }
        if (uri.isEmpty() || uri.charAt(0) != '/') {
            // asterisk-form and authority-form are for OPTIONS and CONNECT, which no route takes
            closeWith(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        if ((path.startsWith("/ws/") || path.startsWith("/sse/")) && liveRoute(req, path, method, keepAlive, http10)) {
            return;
        }
        BenchmarkRoutes.Target target = BenchmarkRoutes.match(path, get, method == HttpMethod.POST, remote.configured(), remoteTls.configured());
        switch (target.kind()) {
            case PLAINTEXT -> staticAnswer(true, Wire.HELLO, Wire.TEXT_PLAIN, Wire.HELLO_LENGTH, keepAlive, http10);
            case JSON -> staticAnswer(true, Wire.HELLO_JSON, Wire.APPLICATION_JSON, Wire.HELLO_JSON_LENGTH, keepAlive, http10);
            case HEALTH -> staticAnswer(true, Wire.OK, Wire.TEXT_PLAIN, Wire.OK_LENGTH, keepAlive, http10);
            case USERS_LIST -> {
                if (compressor == null) {
                    addCompressor(req);
                } else {
                    staticAnswer(true, Wire.USERS_LIST, Wire.APPLICATION_JSON, Wire.USERS_LIST_LENGTH, keepAlive, http10);
                }
            }
            case ECHO -> startBody(req, keepAlive, http10, false);
            case MULTIPART -> startMultipart(req, keepAlive, http10);
            case SEARCH -> search(uri, keepAlive, http10);
            case DOWNLOAD -> download(method == HttpMethod.HEAD, keepAlive, http10);
            case USER -> json(BenchmarkRoutes.user(target.value()), keepAlive, http10, false);
            case NOT_FOUND -> empty(HttpResponseStatus.NOT_FOUND, keepAlive, http10);
            case GET_ONLY -> notAllowed(Wire.ALLOW_GET, keepAlive, http10);
            case POST_ONLY -> notAllowed(Wire.ALLOW_POST, keepAlive, http10);
            case MALFORMED -> closeWith(HttpResponseStatus.BAD_REQUEST);
            case BAD_VALUE -> empty(HttpResponseStatus.BAD_REQUEST, keepAlive, http10);
            case NO_DOWNSTREAM -> respond(HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredMessage(), StandardCharsets.UTF_8), keepAlive, http10);
            case NO_TLS_DOWNSTREAM -> respond(HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredTlsMessage(), StandardCharsets.UTF_8), keepAlive, http10);
            case BLOCKING, DELAY, REMOTE, REMOTE_BLOCKING, REMOTE_TLS, REMOTE_H2 -> answerAfter(target.kind(), target.millis(), keepAlive, http10);
        }
    }

    /**
     * The WebSocket and event-stream routes, HTTP/1.1 only (HTTP/2's handler has none of them):
     * true when {@code path} is one of them and the request is answered or handed over.
     */
    private boolean liveRoute(HttpRequest req, String path, HttpMethod method, boolean keepAlive, boolean http10) {
        switch (path) {
            case WebSockets.ECHO, WebSockets.BROADCAST -> {
                HttpHeaders headers = req.headers();
                if (method != HttpMethod.GET) {
                    notAllowed(GET_ONLY, keepAlive, http10);
                } else if (http10) {
                    empty(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, keepAlive, http10);
                } else if (!WebSockets.isUpgrade(headers) || !WebSockets.isVersion13(headers)) {
                    upgradeRequired(keepAlive);
                } else {
                    upgradeToWebSocket(req, path.equals(WebSockets.ECHO));
                }
            }
            case EventStreams.SUBSCRIBE -> {
                if (method != HttpMethod.GET) {
                    notAllowed(GET_ONLY, keepAlive, http10);
                } else if (http10) {
                    // chunked, which HTTP/1.0 does not have
                    empty(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, keepAlive, http10);
                } else {
                    subscribe();
                }
            }
            case EventStreams.PUBLISH -> {
                if (method != HttpMethod.POST) {
                    notAllowed(Wire.ALLOW_POST, keepAlive, http10);
                } else {
                    startBody(req, keepAlive, http10, true);
                }
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /** 426 for a request to a WebSocket route that is no version-13 handshake; the connection stays HTTP. */
    private void upgradeRequired(boolean keepAlive) {
        HttpHeaders headers = HEADERS.newHeaders()
                .set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET)
                .set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, WebSockets.VERSION)
                .set(HttpHeaderNames.CONTENT_LENGTH, ZERO);
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.UPGRADE_REQUIRED, Unpooled.EMPTY_BUFFER, headers,
                EmptyHttpHeaders.INSTANCE), keepAlive, false);
    }

    /**
     * Puts the route's WebSocket handlers behind this one, hands them the handshake, and leaves the
     * pipeline: from here the connection is theirs (the handshaker replaces the HTTP codec once the
     * 101 is written, and removes the compressor if {@code /users-list} put one in).
     */
    private void upgradeToWebSocket(HttpRequest req, boolean echo) {
        webSockets.install(ctx.pipeline(), echo, req instanceof FullHttpRequest);
        // retained: handle() releases what it was given
        ctx.fireChannelRead(ReferenceCountUtil.retain(req));
        // what was read behind it in a pipelined batch (its last content, at least) follows it there
        for (Object msg; queued != null && (msg = queued.poll()) != null; ) {
            ctx.fireChannelRead(msg);
        }
        ctx.pipeline().remove(this);
    }

    /**
     * Opens an event stream: the connection joins the group, its head goes out at once, and a
     * handler that only waits for the close replaces this one. The compressor, if {@code /users-list}
     * put one in, leaves first: it would hold the events back in its deflater.
     */
    private void subscribe() {
        if (compressor != null) {
            ctx.pipeline().remove(compressor);
            compressor = null;
        }
        if (ctx.pipeline().get(HttpServerUpgradeHandler.class) != null) {
            // no h2c upgrade can follow a request that never ends
            ctx.pipeline().remove(HttpServerUpgradeHandler.class);
        }
        HttpResponse head = EventStreams.head();
        addCommon(head.headers(), true, false);
        eventStreams.join(ctx.channel());
        ctx.writeAndFlush(head, ctx.voidPromise());
        for (Object msg; queued != null && (msg = queued.poll()) != null; ) {
            ReferenceCountUtil.release(msg);
        }
        ctx.pipeline().replace(this, ctx.name(), EventStreams.streamHandler());
    }

    /** {@code /sse/publish}'s data, read whole: at most {@link EventStreams#MAX_DATA}, then the event to every stream and 204. */
    private void publish(CompositeByteBuf data, boolean keepAlive, boolean http10) {
        boolean sent;
        try {
            sent = eventStreams.publish(ctx.alloc(), data);
        } finally {
            data.release();
        }
        if (!sent) {
            empty(HttpResponseStatus.BAD_REQUEST, keepAlive, http10);
            return;
        }
        // no Content-Length: a 204 has no body to measure
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT, Unpooled.EMPTY_BUFFER,
                HEADERS.newHeaders(), EmptyHttpHeaders.INSTANCE), keepAlive, http10);
    }

    private void search(String uri, boolean keepAlive, boolean http10) {
        String body;
        try {
            body = BenchmarkRoutes.search(uri);
        } catch (IllegalArgumentException e) {
            closeWith(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (body == null) {
            empty(HttpResponseStatus.BAD_REQUEST, keepAlive, http10);
        } else {
            json(body, keepAlive, http10, false);
        }
    }

    /** The routes that answer later: {@code /blocking/{ms}}, {@code /delay/{ms}}, {@code /remote/{ms}}, {@code /remote-blocking/{ms}}. */
    private void answerAfter(BenchmarkRoutes.Kind kind, int capped, boolean keepAlive, boolean http10) {
        waitFor();
        switch (kind) {
            // a timer on this connection's event loop: no thread waits
            case DELAY -> ctx.executor().schedule(() -> answerLater("{\"delayed\":" + capped + "}", keepAlive, http10),
                    capped, TimeUnit.MILLISECONDS);
            // a client connection on this event loop: the answer comes back on this thread, no thread waits
            case REMOTE -> remote.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> answerLater(status, type, body, keepAlive, http10));
            case REMOTE_TLS -> remoteTls.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> answerLater(status, type, body, keepAlive, http10));
            // the TLS downstream over HTTP/2: a stream on one of this loop's multiplexed connections
            case REMOTE_H2 -> remoteTls.fetchH2(ctx.channel().eventLoop(), capped, (status, type, body) -> answerLater(status, type, body, keepAlive, http10));
            case REMOTE_BLOCKING -> offload(() -> remote.fetchBlocking(capped, (status, type, body) ->
                    ctx.executor().execute(() -> answerLater(status, type, body, keepAlive, http10))));
            default -> offload(() -> {
                try {
                    Thread.sleep(capped);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ctx.executor().execute(() -> answerLater("{\"slept\":" + capped + "}", keepAlive, http10));
            });
        }
    }

    /** Work that blocks, on a virtual thread; it answers through {@link #answerLater} on the event loop. */
    private interface Blocking {
        void run() throws InterruptedException;
    }

    private void offload(Blocking work) {
        try {
            blocking.execute(() -> {
                try {
                    work.run();
                } catch (InterruptedException e) {
                    // interrupted only when the server stops: the connection closes with it
                    Thread.currentThread().interrupt();
                }
            });
        } catch (RejectedExecutionException e) {
            ctx.close();
        }
    }

    /** Stops handling new messages (and reading) until {@link #answerLater} has answered. */
    private void waitFor() {
        waiting = true;
        ctx.channel().config().setAutoRead(false);
    }

    /** On the event loop: the pending answer, then whatever waited behind it, in order. */
    private void answerLater(String body, boolean keepAlive, boolean http10) {
        waiting = false;
        if (!ctx.channel().isActive()) {
            return;
        }
        json(body, keepAlive, http10, false);
        resume();
    }

    /** {@link #answerLater(String, boolean, boolean)} for a remote route's answer; {@code body} is written or released. */
    private void answerLater(HttpResponseStatus status, CharSequence type, ByteBuf body, boolean keepAlive, boolean http10) {
        waiting = false;
        if (!ctx.channel().isActive()) {
            body.release();
            return;
        }
        respond(status, type, body, keepAlive, http10);
        resume();
    }

    /** After a pending answer: the messages that waited behind it, in order, then reading again. */
    private void resume() {
        while (!waiting && queued != null && !queued.isEmpty()) {
            handle(queued.poll());
        }
        ctx.flush();
        if (!waiting && !closing) {
            if (inputShutdown) {
                closeWhenWritten();
            } else {
                ctx.channel().config().setAutoRead(true);
            }
        }
    }

    /**
     * Puts Netty's {@link HttpContentCompressor} before this handler, for the rest of the connection,
     * the first time it asks for {@code /users-list}, and hands it {@code req} (and whatever waits
     * behind it) again, so it records their {@code Accept-Encoding} in order and passes them back here,
     * where {@code req} is answered through it. Not in every pipeline from the start: there its codec
     * would decode every request and encode every response (a queue of their Accept-Encoding values
     * beside), a cost on every other route's figures that no committed run has measured; here a
     * connection that never asks for the route never meets it.
     */
    private void addCompressor(HttpRequest req) {
        compressor = NettyServer.gzip();
        ctx.pipeline().addBefore(ctx.name(), NettyServer.GZIP, compressor);
        ChannelHandlerContext at = ctx.pipeline().context(compressor);
        ArrayDeque<Object> behind = queued;
        queued = null;
        try {
            // retained: the compressor and handle() each release what they are given, and so does our caller
            compressor.channelRead(at, ReferenceCountUtil.retain(req));
            for (Object msg; behind != null && (msg = behind.poll()) != null; ) {
                compressor.channelRead(at, msg);
            }
        } catch (Exception e) {
            log.debug("closing {}: {}", ctx.channel(), e.toString());
            ctx.close();
        }
    }

    /** Starts reading the body of {@code /echo}, or of {@code /sse/publish} when {@code publish}. */
    private void startBody(HttpRequest req, boolean keepAlive, boolean http10, boolean publish) {
        HttpHeaders headers = req.headers();
        String coding = headers.get(HttpHeaderNames.TRANSFER_ENCODING);
        if (coding != null && !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(coding)) {
            closeWith(HttpResponseStatus.NOT_IMPLEMENTED);
            return;
        }
        publishing = publish;
        bodyLimit = publish ? EventStreams.MAX_DATA : Wire.MAX_BODY_SIZE;
        if (HttpUtil.getContentLength(req, -1L) > bodyLimit) {
            closeWith(tooLarge());
            return;
        }
        if (HttpUtil.is100ContinueExpected(req)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER,
                    HEADERS.newEmptyHeaders(), EmptyHttpHeaders.INSTANCE));
        }
        String type = headers.get(HttpHeaderNames.CONTENT_TYPE);
        echoType = type != null ? type : Wire.OCTET_STREAM;
        echoKeepAlive = keepAlive;
        echoHttp10 = http10;
        echoBody = ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE);
    }

    private void startMultipart(HttpRequest req, boolean keepAlive, boolean http10) {
        String coding = req.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
        if (coding != null && !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(coding)) {
            closeWith(HttpResponseStatus.NOT_IMPLEMENTED);
            return;
        }
        if (HttpUtil.getContentLength(req, -1L) > MultipartUploads.MAX_BYTES) {
            closeWith(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        if (!HttpPostRequestDecoder.isMultipart(req)) {
            closeWith(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE);
            return;
        }
        try {
            multipart = MultipartUploads.decoder(req);
        } catch (HttpPostRequestDecoder.ErrorDataDecoderException e) {
            closeWith(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (HttpUtil.is100ContinueExpected(req)) {
            ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER,
                    HEADERS.newEmptyHeaders(), EmptyHttpHeaders.INSTANCE));
        }
        multipartParts = new ArrayList<>();
        multipartBytes = 0;
        echoKeepAlive = keepAlive;
        echoHttp10 = http10;
    }

    /** Each chunk offered as it arrives (file parts go to disk); at the last one, the files hashed off the event loop. */
    private void onMultipartContent(HttpContent content) {
        HttpPostRequestDecoder decoder = multipart;
        List<MultipartUploads.Part> parts = multipartParts;
        multipartBytes += content.content().readableBytes();
        if (multipartBytes > MultipartUploads.MAX_BYTES) {
            // a chunked body past the limit (a declared length over it was refused up front)
            closeWith(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        try {
            decoder.offer(content);
            MultipartUploads.drain(decoder, parts);
        } catch (HttpPostRequestDecoder.ErrorDataDecoderException | IOException e) {
            closeWith(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (!(content instanceof LastHttpContent)) {
            return;
        }
        if (decoder.currentPartialHttpData() != null) {
            // the body ended inside a part: no close delimiter
            closeWith(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        multipartParts = null;   // no more content for it; the decoder stays until its files are hashed
        boolean keepAlive = echoKeepAlive;
        boolean http10 = echoHttp10;
        waitFor();
        offload(() -> {
            String body;
            try {
                body = MultipartUploads.answer(parts);
            } catch (IOException e) {
                body = null;
            }
            String answer = body;
            ctx.executor().execute(() -> {
                if (multipart == decoder) {
                    releaseMultipart();
                }
                if (answer != null) {
                    answerLater(answer, keepAlive, http10);
                } else {
                    waiting = false;
                    closeWith(HttpResponseStatus.INTERNAL_SERVER_ERROR);
                }
            });
        });
    }

    private void releaseMultipart() {
        multipartParts = null;
        if (multipart != null) {
            HttpPostRequestDecoder decoder = multipart;
            multipart = null;
            decoder.destroy();   // releases the parts and deletes their files
        }
    }

    /** The status of a body past its route's limit: 413, but 400 for {@code /sse/publish}, as its contract has it. */
    private HttpResponseStatus tooLarge() {
        return publishing ? HttpResponseStatus.BAD_REQUEST : HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
    }

    private void onEchoContent(HttpContent content) {
        ByteBuf bytes = content.content();
        if (echoBody.readableBytes() + (long) bytes.readableBytes() > bodyLimit) {
            HttpResponseStatus status = tooLarge();
            releaseEcho();
            closeWith(status);
            return;
        }
        if (bytes.isReadable()) {
            echoBody.addComponent(true, bytes.retain());
        }
        if (content instanceof LastHttpContent) {
            CompositeByteBuf body = echoBody;
            echoBody = null;
            if (publishing) {
                publish(body, echoKeepAlive, echoHttp10);
                return;
            }
            HttpHeaders headers = HEADERS.newHeaders()
                    .set(HttpHeaderNames.CONTENT_TYPE, echoType)
                    .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body, headers, EmptyHttpHeaders.INSTANCE),
                    echoKeepAlive, echoHttp10);
        }
    }

    private void staticAnswer(boolean get, ByteBuf body, AsciiString type, AsciiString length, boolean keepAlive, boolean http10) {
        if (!get) {
            notAllowed(Wire.ALLOW_GET, keepAlive, http10);
            return;
        }
        HttpHeaders headers = HEADERS.newHeaders()
                .set(HttpHeaderNames.CONTENT_TYPE, type)
                .set(HttpHeaderNames.CONTENT_LENGTH, length);
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body.duplicate(), headers, EmptyHttpHeaders.INSTANCE),
                keepAlive, http10);
    }

    private void respond(HttpResponseStatus status, CharSequence type, ByteBuf body, boolean keepAlive, boolean http10) {
        HttpHeaders headers = HEADERS.newHeaders()
                .set(HttpHeaderNames.CONTENT_TYPE, type)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body, headers, EmptyHttpHeaders.INSTANCE), keepAlive, http10);
    }

    private void json(String text, boolean keepAlive, boolean http10, boolean flush) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ByteBuf body = ctx.alloc().directBuffer(bytes.length).writeBytes(bytes);
        HttpHeaders headers = HEADERS.newHeaders()
                .set(HttpHeaderNames.CONTENT_TYPE, Wire.APPLICATION_JSON)
                .set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body, headers, EmptyHttpHeaders.INSTANCE),
                keepAlive, http10);
        if (flush) {
            ctx.flush();
        }
    }

    /** {@code /download}: the 1 MiB file, zero-copy where the transport can (sendfile on epoll and NIO), else from memory. */
    private void download(boolean head, boolean keepAlive, boolean http10) {
        HttpHeaders headers = HEADERS.newHeaders()
                .set(HttpHeaderNames.CONTENT_TYPE, Wire.OCTET_STREAM)
                .set(HttpHeaderNames.CONTENT_LENGTH, DOWNLOAD_LENGTH);
        DefaultHttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, headers);
        addCommon(headers, keepAlive, http10);
        ctx.write(response);
        if (!head && zeroCopy) {
            ctx.write(new DefaultFileRegion(DOWNLOAD.toFile(), 0, BenchmarkLimits.DOWNLOAD_BYTES));
        } else if (!head) {
            ctx.write(Wire.downloadBytes().duplicate());
        }
        if (keepAlive) {
            ctx.write(LastHttpContent.EMPTY_LAST_CONTENT);
        } else {
            closeAfter(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    private void notAllowed(AsciiString allow, boolean keepAlive, boolean http10) {
        HttpHeaders headers = HEADERS.newHeaders().set(HttpHeaderNames.ALLOW, allow).set(HttpHeaderNames.CONTENT_LENGTH, ZERO);
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.METHOD_NOT_ALLOWED, Unpooled.EMPTY_BUFFER, headers,
                EmptyHttpHeaders.INSTANCE), keepAlive, http10);
    }

    private void empty(HttpResponseStatus status, boolean keepAlive, boolean http10) {
        HttpHeaders headers = HEADERS.newHeaders().set(HttpHeaderNames.CONTENT_LENGTH, ZERO);
        write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER, headers, EmptyHttpHeaders.INSTANCE),
                keepAlive, http10);
    }

    private static void addCommon(HttpHeaders headers, boolean keepAlive, boolean http10) {
        headers.set(HttpHeaderNames.SERVER, Wire.SERVER).set(HttpHeaderNames.DATE, Wire.date());
        if (!keepAlive) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    /** Writes (the flush comes with the read batch); a response that ends the connection is flushed and closes. */
    private void write(FullHttpResponse response, boolean keepAlive, boolean http10) {
        addCommon(response.headers(), keepAlive, http10);
        if (keepAlive) {
            ctx.write(response, ctx.voidPromise());
        } else {
            closeAfter(response);
        }
    }

    /**
     * Writes the last response, then closes gracefully: our side first, then the read side once the
     * client closes too, or after {@link #LINGER_MS}. Closing at once with unread input (the rest
     * of a rejected request, a pipelined request after {@code Connection: close}) would make the
     * kernel send a reset, which can destroy the response before the client reads it. Off the hot
     * path: only a connection that ends takes it.
     */
    private void closeAfter(Object last) {
        closing = true;
        ctx.writeAndFlush(last).addListener((ChannelFutureListener) written -> {
            if (!written.isSuccess() || !(ctx.channel() instanceof DuplexChannel duplex) || inputShutdown) {
                ctx.close();
                return;
            }
            duplex.shutdownOutput().addListener((ChannelFutureListener) shut -> {
                if (!shut.isSuccess()) {
                    ctx.close();
                    return;
                }
                // keep reading (and dropping: the decoder and handle() discard it) until the client closes
                ctx.channel().config().setAutoRead(true);
                ctx.executor().schedule(() -> {
                    ctx.close();
                }, LINGER_MS, TimeUnit.MILLISECONDS);
            });
        });
    }

    /** A request the codec or the app refuses: its status, {@code Connection: close}, and a close. */
    private void closeWith(HttpResponseStatus status) {
        releaseEcho();
        empty(status, false, false);
    }

    private void fail(Throwable cause) {
        releaseEcho();
        if (cause instanceof PrematureChannelClosureException
                || ctx.channel() instanceof DuplexChannel duplex && duplex.isInputShutdown()) {
            // the client half-closed inside a request: it can never complete, so there is nothing to answer
            closing = true;
            closeWhenWritten();
            return;
        }
        HttpResponseStatus status = HttpResponseStatus.BAD_REQUEST;
        if (cause instanceof TooLongHttpLineException) {
            status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
        } else if (cause instanceof TooLongHttpHeaderException) {
            status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        } else if (cause instanceof TooLongFrameException) {
            status = HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
        }
        closeWith(status);
    }

    /** Closes after what is already written has gone out. */
    private void closeWhenWritten() {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof ChannelInputShutdownEvent) {
            // the client is done sending: answer what it asked, then close
            inputShutdown = true;
            if (closing) {
                // a lingering close: the client is done too
                if (ctx.channel() instanceof DuplexChannel duplex && duplex.isOutputShutdown()) {
                    ctx.close();
                }
            } else if (!waiting) {
                releaseEcho();
                closing = true;
                closeWhenWritten();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseEcho();
        if (queued != null) {
            for (Object msg; (msg = queued.poll()) != null; ) {
                ReferenceCountUtil.release(msg);
            }
        }
        super.channelInactive(ctx);
    }

    private void releaseEcho() {
        releaseMultipart();
        if (echoBody != null) {
            echoBody.release();
            echoBody = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing {}: {}", ctx.channel(), cause.toString());
        ctx.close();
    }
}
