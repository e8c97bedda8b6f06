// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty.bench;

import dev.spindle.core.Json;
import dev.spindle.core.bench.Requests;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The anchor for {@code dev.spindle.core.bench.CoreRoundTripBenchmark}: the same request bytes
 * through Netty's {@link HttpServerCodec} in an {@link EmbeddedChannel}, answered by a handler
 * written the way an experienced Netty user writes a benchmark server (the TechEmpower Netty
 * entry's style): constant bodies in unreleasable read-only buffers, pre-built header values as
 * {@link AsciiString}, the {@code Date} value formatted at most once a second, header validation
 * off on the response, {@code write} per request and one {@code flush} per read, and no
 * {@link HttpObjectAggregator} since GET requests carry no body. The {@code codec+aggregator}
 * pipeline is what a general-purpose Netty app would run instead (the core also buffers bodies);
 * it is reported for reference, while ratios are taken against the faster plain codec.
 *
 * <p>Input is a pooled direct buffer, as a socket read leaves it; every output buffer is read
 * from the channel and released.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NettyRoundTripBenchmark {
    @Param({"plaintext", "json", "users"})
    public String route;

    @Param({"codec", "codec+aggregator"})
    public String pipeline;

    private EmbeddedChannel channel;
    private ByteBuf request;

    @Setup
    public void setup() {
        String target = switch (route) {
            case "plaintext" -> "/plaintext";
            case "json" -> "/json";
            case "users" -> "/users/12345";
            default -> throw new IllegalArgumentException(route);
        };
        String expectedBody = switch (route) {
            case "plaintext" -> "Hello, World!";
            case "json" -> "{\"message\":\"Hello, World!\"}";
            default -> "{\"id\":\"12345\"}";
        };
        channel = switch (pipeline) {
            case "codec" -> new EmbeddedChannel(new HttpServerCodec(), new BenchmarkHandler());
            case "codec+aggregator" -> new EmbeddedChannel(new HttpServerCodec(), new HttpObjectAggregator(1024 * 1024),
                    new BenchmarkHandler());
            default -> throw new IllegalArgumentException(pipeline);
        };
        byte[] raw = Requests.wrkGet(target).getBytes(StandardCharsets.ISO_8859_1);
        request = ByteBufAllocator.DEFAULT.directBuffer(raw.length).writeBytes(raw);

        channel.writeInbound(request.retain().readerIndex(0));
        StringBuilder response = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            response.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        String s = response.toString();
        if (!s.startsWith("HTTP/1.1 200 OK\r\n") || !s.endsWith("\r\n\r\n" + expectedBody) || !channel.isOpen()
                || request.refCnt() != 1) {
            throw new IllegalStateException("unexpected response: " + s);
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
        request.release();
    }

    @Benchmark
    public int roundTrip() {
        // The decoder releases the input once it has read it all; retain so the next call can reuse it.
        channel.writeInbound(request.retain().readerIndex(0));
        int n = 0;
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            n += b.readableBytes();
            b.release();
        }
        return n;
    }

    /** The benchmark app's GET routes, in idiomatic high-performance Netty. */
    static final class BenchmarkHandler extends ChannelInboundHandlerAdapter {
        private static final ByteBuf PLAINTEXT = constant("Hello, World!");
        private static final ByteBuf JSON = constant("{\"message\":\"Hello, World!\"}");
        private static final CharSequence PLAINTEXT_LENGTH = AsciiString.cached(String.valueOf(PLAINTEXT.readableBytes()));
        private static final CharSequence JSON_LENGTH = AsciiString.cached(String.valueOf(JSON.readableBytes()));
        private static final CharSequence TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");
        private static final CharSequence APPLICATION_JSON = AsciiString.cached("application/json");
        private static final CharSequence SERVER = AsciiString.cached("spindle");

        private static ByteBuf constant(String s) {
            return Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(s.getBytes(StandardCharsets.UTF_8)))
                    .asReadOnly();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest req) {
                    handle(ctx, req);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void handle(ChannelHandlerContext ctx, HttpRequest req) {
            String uri = req.uri();
            FullHttpResponse res = switch (uri) {
                case "/plaintext" -> response(PLAINTEXT.duplicate(), TEXT_PLAIN, PLAINTEXT_LENGTH);
                case "/json" -> response(JSON.duplicate(), APPLICATION_JSON, JSON_LENGTH);
                default -> other(ctx, uri);
            };
            if (HttpUtil.isKeepAlive(req)) {
                ctx.write(res, ctx.voidPromise());
            } else {
                res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.write(res).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static FullHttpResponse other(ChannelHandlerContext ctx, String uri) {
            int q = uri.indexOf('?');
            String path = q < 0 ? uri : uri.substring(0, q);
            if (path.startsWith("/users/") && path.length() > 7 && path.indexOf('/', 7) < 0) {
                String id = QueryStringDecoder.decodeComponent(path.substring(7));
                ByteBuf body = ByteBufUtil.writeUtf8(ctx.alloc(), "{\"id\":" + Json.quote(id) + "}");
                return response(body, APPLICATION_JSON, null);
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND,
                    Unpooled.EMPTY_BUFFER, false);
            res.headers().set(HttpHeaderNames.SERVER, SERVER).set(HttpHeaderNames.DATE, HttpDate.now())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
            return res;
        }

        private static FullHttpResponse response(ByteBuf body, CharSequence type, CharSequence length) {
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body, false);
            HttpHeaders h = res.headers();
            h.set(HttpHeaderNames.CONTENT_TYPE, type);
            h.set(HttpHeaderNames.SERVER, SERVER);
            h.set(HttpHeaderNames.DATE, HttpDate.now());
            if (length != null) {
                h.set(HttpHeaderNames.CONTENT_LENGTH, length);
            } else {
                h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
            }
            return res;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** The {@code Date} value, formatted at most once a second and shared. */
    static final class HttpDate {
        private record Value(long second, AsciiString text) {
        }

        private static volatile Value current = format(System.currentTimeMillis() / 1000);

        static AsciiString now() {
            long second = System.currentTimeMillis() / 1000;
            Value v = current;
            if (v.second != second) {
                v = format(second);
                current = v;
            }
            return v.text;
        }

        private static Value format(long second) {
            return new Value(second, new AsciiString(DateFormatter.format(new Date(second * 1000))));
        }
    }

}
