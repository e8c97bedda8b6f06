// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark app's routes on one HTTP/2 stream: a child channel of {@code Http2MultiplexHandler},
 * one instance per stream, reading {@link Http2HeadersFrame}s and {@link Http2DataFrame}s and
 * answering with a headers frame and a data frame, the way Netty's HTTP/2 examples do. The same
 * routes as {@link BenchmarkHandler}; what only HTTP/1.1 has (keep-alive, pipelining order,
 * lingering closes) has no place here: each stream is its own request.
 */
final class Http2BenchmarkHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Http2BenchmarkHandler.class);
    private static final AsciiString GET = AsciiString.cached("GET");
    private static final AsciiString HEAD = AsciiString.cached("HEAD");
    private static final AsciiString POST = AsciiString.cached("POST");

    private final Executor blocking;
    private final RemoteCalls remote;
    private final RemoteCalls remoteTls;
    private ChannelHandlerContext ctx;
    /** The body of an {@code /echo} request being read, else null. */
    private CompositeByteBuf echoBody;
    private CharSequence echoType;
    private boolean answered;

    Http2BenchmarkHandler(Executor blocking, RemoteCalls remote, RemoteCalls remoteTls) {
        this.blocking = blocking;
        this.remote = remote;
        this.remoteTls = remoteTls;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame headers) {
                if (echoBody != null) {
                    // trailers of an /echo body: the body is complete
                    if (headers.isEndStream()) {
                        finishEcho();
                    }
                } else {
                    onRequest(headers.headers(), headers.isEndStream());
                }
            } else if (msg instanceof Http2DataFrame data) {
                onData(data);
            } else if (msg instanceof Http2ResetFrame) {
                releaseEcho();
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    private void onRequest(Http2Headers headers, boolean endStream) {
        CharSequence methodName = headers.method();
        CharSequence pathValue = headers.path();
        if (methodName == null || pathValue == null) {
            reset(Http2Error.PROTOCOL_ERROR);
            return;
        }
        boolean get = GET.contentEquals(methodName) || HEAD.contentEquals(methodName);
        boolean head = HEAD.contentEquals(methodName);
        String uri = pathValue.toString();
        switch (uri) {
            case "/plaintext" -> staticAnswer(get, head, Wire.HELLO, Wire.TEXT_PLAIN);
            case "/json" -> staticAnswer(get, head, Wire.HELLO_JSON, Wire.APPLICATION_JSON);
            case "/health" -> staticAnswer(get, head, Wire.OK, Wire.TEXT_PLAIN);
            default -> route(headers, uri, methodName, get, head, endStream);
        }
    }

    private void route(Http2Headers headers, String uri, CharSequence methodName, boolean get, boolean head, boolean endStream) {
        if (uri.isEmpty() || uri.charAt(0) != '/') {
            empty(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        BenchmarkRoutes.Target target = BenchmarkRoutes.match(path, get, POST.contentEquals(methodName), remote.configured(), remoteTls.configured());
        switch (target.kind()) {
            case PLAINTEXT -> staticAnswer(true, head, Wire.HELLO, Wire.TEXT_PLAIN);
            case JSON -> staticAnswer(true, head, Wire.HELLO_JSON, Wire.APPLICATION_JSON);
            case HEALTH -> staticAnswer(true, head, Wire.OK, Wire.TEXT_PLAIN);
            // uncompressed: HttpContentCompressor is HTTP/1.1's, and no h2 scenario asks for this route
            case USERS_LIST -> staticAnswer(true, head, Wire.USERS_LIST, Wire.APPLICATION_JSON);
            case ECHO -> {
                CharSequence type = headers.get(HttpHeaderNames.CONTENT_TYPE);
                echoType = type != null ? type : Wire.OCTET_STREAM;
                echoBody = ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE);
                if (endStream) {
                    finishEcho();
                }
            }
            case SEARCH -> search(uri);
            // in memory: the DATA frames are cut by the codec to the peer's windows
            case DOWNLOAD -> respond(HttpResponseStatus.OK, Wire.OCTET_STREAM, Wire.downloadBytes().duplicate(), head);
            case USER -> json(BenchmarkRoutes.user(target.value()));
            // the uploads are an HTTP/1.1 scenario: over h2 the route is not served
            case NOT_FOUND, MULTIPART -> empty(HttpResponseStatus.NOT_FOUND);
            case GET_ONLY -> notAllowed(Wire.ALLOW_GET);
            case POST_ONLY -> notAllowed(Wire.ALLOW_POST);
            case MALFORMED, BAD_VALUE -> empty(HttpResponseStatus.BAD_REQUEST);
            case NO_DOWNSTREAM -> respond(HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredMessage(), StandardCharsets.UTF_8), false);
            case NO_TLS_DOWNSTREAM -> respond(HttpResponseStatus.SERVICE_UNAVAILABLE, Wire.TEXT_PLAIN,
                    Unpooled.copiedBuffer(RemoteDownstream.unconfiguredTlsMessage(), StandardCharsets.UTF_8), false);
            case BLOCKING, DELAY, REMOTE, REMOTE_BLOCKING, REMOTE_TLS, REMOTE_H2 -> answerAfter(target.kind(), target.millis());
        }
    }

    private void search(String uri) {
        String body;
        try {
            body = BenchmarkRoutes.search(uri);
        } catch (IllegalArgumentException e) {
            empty(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (body == null) {
            empty(HttpResponseStatus.BAD_REQUEST);
        } else {
            json(body);
        }
    }

    /** The routes that answer later: {@code /blocking/{ms}}, {@code /delay/{ms}}, {@code /remote/{ms}}, {@code /remote-blocking/{ms}}. */
    private void answerAfter(BenchmarkRoutes.Kind kind, int capped) {
        switch (kind) {
            // a timer on the connection's event loop (the stream channel's): no thread waits
            case DELAY -> ctx.executor().schedule(() -> later("{\"delayed\":" + capped + "}"), capped, TimeUnit.MILLISECONDS);
            case REMOTE -> remote.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> later(status, type, body));
            case REMOTE_TLS -> remoteTls.fetch(ctx.channel().eventLoop(), capped, (status, type, body) -> later(status, type, body));
            // the TLS downstream over HTTP/2: a stream on one of this loop's multiplexed connections
            case REMOTE_H2 -> remoteTls.fetchH2(ctx.channel().eventLoop(), capped, (status, type, body) -> later(status, type, body));
            case REMOTE_BLOCKING -> offload(() -> remote.fetchBlocking(capped, (status, type, body) ->
                    ctx.executor().execute(() -> later(status, type, body))));
            default -> offload(() -> {
                Thread.sleep(capped);
                ctx.executor().execute(() -> later("{\"slept\":" + capped + "}"));
            });
        }
    }

    private interface Blocking {
        void run() throws InterruptedException;
    }

    /** Work that blocks, on a virtual thread; it answers through {@link #later} on the event loop. */
    private void offload(Blocking work) {
        try {
            blocking.execute(() -> {
                try {
                    work.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        } catch (RejectedExecutionException e) {
            reset(Http2Error.REFUSED_STREAM);
        }
    }

    private void later(String body) {
        if (ctx.channel().isActive()) {
            json(body);
            ctx.flush();
        }
    }

    private void later(HttpResponseStatus status, CharSequence type, ByteBuf body) {
        if (!ctx.channel().isActive()) {
            body.release();
            return;
        }
        respond(status, type, body, false);
        ctx.flush();
    }

    private void onData(Http2DataFrame data) {
        if (echoBody == null) {
            return;
        }
        ByteBuf bytes = data.content();
        if (echoBody.readableBytes() + (long) bytes.readableBytes() > Wire.MAX_BODY_SIZE) {
            releaseEcho();
            empty(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        if (bytes.isReadable()) {
            echoBody.addComponent(true, bytes.retain());
        }
        if (data.isEndStream()) {
            finishEcho();
        }
    }

    private void finishEcho() {
        CompositeByteBuf body = echoBody;
        echoBody = null;
        respond(HttpResponseStatus.OK, echoType, body, false);
    }

    private void staticAnswer(boolean get, boolean head, ByteBuf body, AsciiString type) {
        if (!get) {
            notAllowed(Wire.ALLOW_GET);
            return;
        }
        respond(HttpResponseStatus.OK, type, body.duplicate(), head);
    }

    private void json(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        respond(HttpResponseStatus.OK, Wire.APPLICATION_JSON, ctx.alloc().directBuffer(bytes.length).writeBytes(bytes), false);
    }

    private void notAllowed(AsciiString allow) {
        Http2Headers headers = headers(HttpResponseStatus.METHOD_NOT_ALLOWED).set(HttpHeaderNames.ALLOW, allow)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        write(headers, null);
    }

    private void empty(HttpResponseStatus status) {
        write(headers(status).setInt(HttpHeaderNames.CONTENT_LENGTH, 0), null);
    }

    /** A status, a type and a body ({@code head}: its length only; the body is released). */
    private void respond(HttpResponseStatus status, CharSequence type, ByteBuf body, boolean head) {
        Http2Headers headers = headers(status).set(HttpHeaderNames.CONTENT_TYPE, type)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (head || !body.isReadable()) {
            body.release();
            write(headers, null);
        } else {
            write(headers, body);
        }
    }

    private static Http2Headers headers(HttpResponseStatus status) {
        return new DefaultHttp2Headers(false).status(status.codeAsText())
                .set(HttpHeaderNames.SERVER, Wire.SERVER).set(HttpHeaderNames.DATE, Wire.date());
    }

    /** The response's frames, written; the flush comes with the read batch or the timed answer. */
    private void write(Http2Headers headers, ByteBuf body) {
        if (answered) {
            if (body != null) {
                body.release();
            }
            return;
        }
        answered = true;
        if (body == null) {
            ctx.write(new DefaultHttp2HeadersFrame(headers, true), ctx.voidPromise());
        } else {
            ctx.write(new DefaultHttp2HeadersFrame(headers, false), ctx.voidPromise());
            ctx.write(new DefaultHttp2DataFrame(body, true), ctx.voidPromise());
        }
    }

    private void reset(Http2Error error) {
        answered = true;
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(error));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        releaseEcho();
        super.channelInactive(ctx);
    }

    private void releaseEcho() {
        if (echoBody != null) {
            echoBody.release();
            echoBody = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("resetting {}: {}", ctx.channel(), cause.toString());
        releaseEcho();
        ctx.close();
    }
}
