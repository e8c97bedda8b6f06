// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpScheme;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark app on one HTTP/2 connection, in the shape of Netty's own HTTP/2 hello world: an
 * {@link Http2ConnectionHandler} that is its own {@link Http2FrameListener}, one per connection
 * and no channel per stream. A request is answered from its HEADERS (or, for {@code /echo}, from
 * its last DATA frame) with {@code encoder().writeHeaders} and {@code encoder().writeData} on its
 * stream id; {@link Http2ConnectionHandler} flushes once per read batch. The routes are
 * {@link BenchmarkHandler}'s ({@link BenchmarkRoutes}); what only HTTP/1.1 has (keep-alive,
 * pipelining order, lingering closes, the upload and the compressed {@code /users-list}) has no
 * place here.
 *
 * <p>Per-stream state is an {@code /echo} body being gathered, kept by stream id and released
 * when the stream closes however it closes (its answer, a RST_STREAM, the connection's end). The
 * answers that come later ({@code /delay}, {@code /blocking}, {@code /remote*}) run on the
 * connection's event loop and are written only while their stream is still open: a stream the
 * client reset in the meantime gets nothing.
 */
final class Http2BenchmarkConnectionHandler extends Http2ConnectionHandler implements Http2FrameListener {
    private static final Logger log = LoggerFactory.getLogger(Http2BenchmarkConnectionHandler.class);
    private static final AsciiString GET = AsciiString.cached("GET");
    private static final AsciiString HEAD = AsciiString.cached("HEAD");
    private static final AsciiString POST = AsciiString.cached("POST");

    private final Executor blocking;
    private final RemoteCalls remote;
    private final RemoteCalls remoteTls;
    /** The {@code /echo} bodies being read, by stream id. */
    private final IntObjectMap<Echo> echoes = new IntObjectHashMap<>(4);
    /** The id of the last stream whose request was routed: a HEADERS frame on it or an earlier one is trailers. */
    private int lastRequest;

    /** An {@code /echo} body being gathered, and the type it is answered with. */
    private record Echo(CompositeByteBuf body, CharSequence type) {
    }

    /** Builds the handler with the connection's settings; it is its own frame listener. */
    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Http2BenchmarkConnectionHandler, Builder> {
        private final Executor blocking;
        private final RemoteCalls remote;
        private final RemoteCalls remoteTls;

        Builder(Executor blocking, RemoteCalls remote, RemoteCalls remoteTls, long maxConcurrentStreams) {
            this.blocking = blocking;
            this.remote = remote;
            this.remoteTls = remoteTls;
            initialSettings(Http2Settings.defaultSettings().maxConcurrentStreams(maxConcurrentStreams));
            // as Http2FrameCodecBuilder has it: a close does not wait for open streams
            gracefulShutdownTimeoutMillis(0);
        }

        @Override
        public Http2BenchmarkConnectionHandler build() {
            return super.build();
        }

        @Override
        protected Http2BenchmarkConnectionHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                Http2Settings initialSettings) {
            Http2BenchmarkConnectionHandler handler = new Http2BenchmarkConnectionHandler(decoder, encoder, initialSettings,
                    blocking, remote, remoteTls);
            frameListener(handler);
            return handler;
        }
    }

    private Http2BenchmarkConnectionHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
            Http2Settings initialSettings, Executor blocking, RemoteCalls remote, RemoteCalls remoteTls) {
        super(decoder, encoder, initialSettings);
        this.blocking = blocking;
        this.remote = remote;
        this.remoteTls = remoteTls;
        connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamClosed(Http2Stream stream) {
                releaseEcho(stream.id());
            }
        });
    }

    /**
     * {@code Upgrade: h2c}: the upgrading HTTP/1.1 request is stream 1's, already half-closed by
     * the client; it is read here as if its HEADERS (and DATA) had come in on that stream.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent upgrade) {
            FullHttpRequest request = upgrade.upgradeRequest();
            boolean body = request.content().isReadable();
            onHeadersRead(ctx, 1, upgradeHeaders(request), 0, !body);
            if (body) {
                onDataRead(ctx, 1, request.content(), 0, true);
            }
            flush(ctx);
        }
        super.userEventTriggered(ctx, evt);
    }

    /** The upgrading request's headers as HTTP/2 has them: its method, target and Host as pseudo-headers, the rest as they came. */
    private static Http2Headers upgradeHeaders(FullHttpRequest request) {
        Http2Headers headers = new DefaultHttp2Headers(false)
                .method(request.method().asciiName())
                .path(request.uri())
                .scheme(HttpScheme.HTTP.name());
        CharSequence host = request.headers().get(HttpHeaderNames.HOST);
        if (host != null) {
            headers.authority(host);
        }
        HttpConversionUtil.toHttp2Headers(request.headers(), headers);
        return headers;
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding, boolean endOfStream) {
        if (echoes.containsKey(streamId)) {
            // trailers of an /echo body: the body is complete
            if (endOfStream) {
                finishEcho(ctx, streamId);
            }
            return;
        }
        if (streamId <= lastRequest) {
            // a client opens its streams in increasing order: trailers of a request already routed
            return;
        }
        lastRequest = streamId;
        try {
            onRequest(ctx, streamId, headers, endOfStream);
        } catch (RuntimeException e) {
            log.debug("resetting stream {} of {}: {}", streamId, ctx.channel(), e.toString());
            releaseEcho(streamId);
            reset(ctx, streamId, Http2Error.INTERNAL_ERROR);
        }
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
            short weight, boolean exclusive, int padding, boolean endOfStream) {
        onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
        // the bytes go back to the connection's and the stream's windows at once
        int processed = data.readableBytes() + padding;
        Echo echo = echoes.get(streamId);
        if (echo == null) {
            return processed;
        }
        if (echo.body.readableBytes() + (long) data.readableBytes() > Wire.MAX_BODY_SIZE) {
            releaseEcho(streamId);
            empty(ctx, streamId, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return processed;
        }
        if (data.isReadable()) {
            echo.body.addComponent(true, data.retain());
        }
        if (endOfStream) {
            finishEcho(ctx, streamId);
        }
        return processed;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
        // the stream closes with it (onStreamClosed releases its body); a later answer finds it gone
    }

    private void onRequest(ChannelHandlerContext ctx, int streamId, Http2Headers headers, boolean endStream) {
        CharSequence methodName = headers.method();
        CharSequence pathValue = headers.path();
        if (methodName == null || pathValue == null) {
            reset(ctx, streamId, Http2Error.PROTOCOL_ERROR);
            return;
        }
        boolean get = GET.contentEquals(methodName) || HEAD.contentEquals(methodName);
        boolean head = HEAD.contentEquals(methodName);
        String uri = pathValue.toString();
        switch (uri) {
            case "/plaintext" -> staticAnswer(ctx, streamId, get, head, Wire.HELLO, Wire.TEXT_PLAIN);
            case "/json" -> staticAnswer(ctx, streamId, get, head, Wire.HELLO_JSON, Wire.APPLICATION_JSON);
            case "/health" -> staticAnswer(ctx, streamId, get, head, Wire.OK, Wire.TEXT_PLAIN);
            default -> route(ctx, streamId, headers, uri, methodName, get, head, endStream);
        }
    }

    private void route(ChannelHandlerContext ctx, int id, Http2Headers headers, String uri, CharSequence methodName,
            boolean get, boolean head, boolean endStream) {
        if (uri.isEmpty() || uri.charAt(0) != '/') {
            empty(ctx, id, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        BenchmarkRoutes.Target target = BenchmarkRoutes.match(path, get, POST.contentEquals(methodName), remote.configured(), remoteTls.configured());
        switch (target.kind()) {
            case PLAINTEXT -> staticAnswer(ctx, id, true, head, Wire.HELLO, Wire.TEXT_PLAIN);
            case JSON -> staticAnswer(ctx, id, true, head, Wire.HELLO_JSON, Wire.APPLICATION_JSON);
            case HEALTH -> staticAnswer(ctx, id, true, head, Wire.OK, Wire.TEXT_PLAIN);
            // uncompressed: HttpContentCompressor is HTTP/1.1's, and no h2 scenario asks for this route
            case USERS_LIST -> staticAnswer(ctx, id, true, head, Wire.USERS_LIST, Wire.APPLICATION_JSON);
            case ECHO -> {
                CharSequence type = headers.get(HttpHeaderNames.CONTENT_TYPE);
                Echo echo = new Echo(ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE), type != null ? type : Wire.OCTET_STREAM);
                echoes.put(id, echo);
                if (endStream) {
                    finishEcho(ctx, id);
                }
            }
            case SEARCH -> search(ctx, id, uri);
            // in memory: the DATA frames are cut by the flow controller to the peer's windows
            case DOWNLOAD -> respond(ctx, id, HttpResponseStatus.OK, Wire.OCTET_STREAM, Wire.downloadBytes().duplicate(), head);
            case USER -> json(ctx, id, BenchmarkRoutes.user(target.value()));
            // the uploads are an HTTP/1.1 scenario: over h2 the route is not served
            case NOT_FOUND, MULTIPART -> empty(ctx, id, HttpResponseStatus.NOT_FOUND);
            case GET_ONLY -> notAllowed(ctx, id, Wire.ALLOW_GET);
            case POST_ONLY -> notAllowed(ctx, id, Wire.ALLOW_POST);
            case MALFORMED, BAD_VALUE -> empty(ctx, id, HttpResponseStatus.BAD_REQUEST);
            case NO_DOWNSTREAM -> respond(ctx, id, HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredMessage(), StandardCharsets.UTF_8), false);
            case NO_TLS_DOWNSTREAM -> respond(ctx, id, HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredTlsMessage(), StandardCharsets.UTF_8), false);
            case BLOCKING, DELAY, REMOTE, REMOTE_BLOCKING, REMOTE_TLS, REMOTE_H2 -> answerAfter(ctx, id, target.kind(), target.millis());
        }
    }

    private void search(ChannelHandlerContext ctx, int id, String uri) {
        String body;
        try {
            body = BenchmarkRoutes.search(uri);
        } catch (IllegalArgumentException e) {
            empty(ctx, id, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (body == null) {
            empty(ctx, id, HttpResponseStatus.BAD_REQUEST);
        } else {
            json(ctx, id, body);
        }
    }

    /**
     * The routes that answer later: {@code /blocking/{ms}}, {@code /delay/{ms}}, {@code /remote/{ms}},
     * {@code /remote-blocking/{ms}}, {@code /remote-tls/{ms}}, {@code /remote-h2/{ms}}; every answer
     * is written on the connection's event loop.
     */
    private void answerAfter(ChannelHandlerContext ctx, int id, BenchmarkRoutes.Kind kind, int capped) {
        switch (kind) {
            // a timer on the connection's event loop: no thread waits
            case DELAY -> ctx.executor().schedule(() -> later(ctx, id, "{\"delayed\":" + capped + "}"), capped, TimeUnit.MILLISECONDS);
            case REMOTE -> remote.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> later(ctx, id, status, type, body));
            case REMOTE_TLS -> remoteTls.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> later(ctx, id, status, type, body));
            // the TLS downstream over HTTP/2: a stream on one of this loop's multiplexed connections
            case REMOTE_H2 -> remoteTls.fetchH2(ctx.channel().eventLoop(), capped, (status, type, body) -> later(ctx, id, status, type, body));
            case REMOTE_BLOCKING -> offload(ctx, id, () -> remote.fetchBlocking(capped, (status, type, body) ->
                    ctx.executor().execute(() -> later(ctx, id, status, type, body))));
            default -> offload(ctx, id, () -> {
                Thread.sleep(capped);
                ctx.executor().execute(() -> later(ctx, id, "{\"slept\":" + capped + "}"));
            });
        }
    }

    private interface Blocking {
        void run() throws InterruptedException;
    }

    /** Work that blocks, on a virtual thread; it answers through {@code later} on the event loop. */
    private void offload(ChannelHandlerContext ctx, int id, Blocking work) {
        try {
            blocking.execute(() -> {
                try {
                    work.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        } catch (RejectedExecutionException e) {
            reset(ctx, id, Http2Error.REFUSED_STREAM);
        }
    }

    /** Whether stream {@code id} can still be answered: the connection is up and the stream neither reset nor answered. */
    private boolean open(ChannelHandlerContext ctx, int id) {
        if (!ctx.channel().isActive()) {
            return false;
        }
        Http2Stream stream = connection().stream(id);
        return stream != null && stream.state().localSideOpen();
    }

    private void later(ChannelHandlerContext ctx, int id, String body) {
        if (open(ctx, id)) {
            json(ctx, id, body);
            flush(ctx);
        }
    }

    private void later(ChannelHandlerContext ctx, int id, HttpResponseStatus status, CharSequence type, ByteBuf body) {
        if (!open(ctx, id)) {
            body.release();
            return;
        }
        respond(ctx, id, status, type, body, false);
        // this handler's flush: the flow controller's pending DATA, then the channel
        flush(ctx);
    }

    private void finishEcho(ChannelHandlerContext ctx, int id) {
        Echo echo = echoes.remove(id);
        respond(ctx, id, HttpResponseStatus.OK, echo.type, echo.body, false);
    }

    private void releaseEcho(int id) {
        Echo echo = echoes.remove(id);
        if (echo != null) {
            echo.body.release();
        }
    }

    private void staticAnswer(ChannelHandlerContext ctx, int id, boolean get, boolean head, ByteBuf body, AsciiString type) {
        if (!get) {
            notAllowed(ctx, id, Wire.ALLOW_GET);
            return;
        }
        respond(ctx, id, HttpResponseStatus.OK, type, body.duplicate(), head);
    }

    private void json(ChannelHandlerContext ctx, int id, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        respond(ctx, id, HttpResponseStatus.OK, Wire.APPLICATION_JSON, ctx.alloc().directBuffer(bytes.length).writeBytes(bytes), false);
    }

    private void notAllowed(ChannelHandlerContext ctx, int id, AsciiString allow) {
        write(ctx, id, headers(HttpResponseStatus.METHOD_NOT_ALLOWED).set(HttpHeaderNames.ALLOW, allow)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, 0), null);
    }

    private void empty(ChannelHandlerContext ctx, int id, HttpResponseStatus status) {
        write(ctx, id, headers(status).setInt(HttpHeaderNames.CONTENT_LENGTH, 0), null);
    }

    /** A status, a type and a body ({@code head}: its length only; the body is released). */
    private void respond(ChannelHandlerContext ctx, int id, HttpResponseStatus status, CharSequence type, ByteBuf body, boolean head) {
        Http2Headers headers = headers(status).set(HttpHeaderNames.CONTENT_TYPE, type)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (head || !body.isReadable()) {
            body.release();
            write(ctx, id, headers, null);
        } else {
            write(ctx, id, headers, body);
        }
    }

    private static Http2Headers headers(HttpResponseStatus status) {
        return new DefaultHttp2Headers(false).status(status.codeAsText())
                .set(HttpHeaderNames.SERVER, Wire.SERVER).set(HttpHeaderNames.DATE, Wire.date());
    }

    /**
     * The response's HEADERS and DATA on stream {@code id}, through the encoder (DATA waits in the
     * flow controller for the peer's windows); the flush comes with the read batch or the later answer.
     */
    private void write(ChannelHandlerContext ctx, int id, Http2Headers headers, ByteBuf body) {
        if (body == null) {
            encoder().writeHeaders(ctx, id, headers, 0, true, ctx.newPromise());
        } else {
            encoder().writeHeaders(ctx, id, headers, 0, false, ctx.newPromise());
            encoder().writeData(ctx, id, body, 0, true, ctx.newPromise());
        }
    }

    private void reset(ChannelHandlerContext ctx, int id, Http2Error error) {
        resetStream(ctx, id, error.code(), ctx.newPromise());
        flush(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        try {
            super.channelInactive(ctx);
        } finally {
            // closing the connection closed its streams; whatever is left goes now
            echoes.values().forEach(echo -> echo.body.release());
            echoes.clear();
        }
    }

    @Override
    public void onPriorityRead(ChannelHandlerContext ctx, int streamId, int streamDependency, short weight, boolean exclusive) {
    }

    @Override
    public void onSettingsAckRead(ChannelHandlerContext ctx) {
    }

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
    }

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
    }

    @Override
    public void onPushPromiseRead(ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers, int padding) {
    }

    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    }

    @Override
    public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
    }

    @Override
    public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags, ByteBuf payload) {
    }
}
