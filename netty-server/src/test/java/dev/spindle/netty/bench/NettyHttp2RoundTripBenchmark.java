// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty.bench;

import dev.spindle.core.bench.H2Requests;
import dev.spindle.netty.bench.NettyRoundTripBenchmark.HttpDate;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * The anchor for {@code dev.spindle.core.bench.Http2RoundTripBenchmark}: the same frame bytes
 * ({@link H2Requests}: the same HPACK blocks, the same stream ids, the same WINDOW_UPDATE every
 * 2^20 requests) through Netty's {@code Http2FrameCodec} in an {@link EmbeddedChannel}, answered
 * by a handler written as an experienced Netty user writes it for the frame API: HEADERS then
 * DATA with END_STREAM on the request's stream, constant bodies in unreleasable read-only
 * buffers, header names and values pre-built as {@link AsciiString}, the {@code Date} value
 * formatted at most once a second, no validation of the response's own constant headers, and one
 * flush per read. Writes take the channel's own promises, as Netty's HTTP/2 examples do: with
 * {@code ctx.voidPromise()} the codec allocated about 200 B more per request and ran slower. The codec keeps its defaults (request headers validated, as the core validates
 * them). In {@code @Setup} the request blocks are decoded with Netty's own HPACK decoder and the
 * answers checked, so the shared bytes are known good to both sides.
 *
 * <p>Input is a pooled direct buffer, as a socket read leaves it; every output buffer is read
 * from the channel and released.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NettyHttp2RoundTripBenchmark {
    private static final int WINDOW_UPDATE_EVERY = 1 << 20;

    @Param({"plaintext", "json"})
    public String route;

    private EmbeddedChannel channel;
    private ByteBuf request;
    private ByteBuf windowUpdate;
    private int streamId;
    private int untilWindowUpdate;

    @Setup
    public void setup() throws Http2Exception {
        String path = "/" + route;
        checkBlocksDecode(path);
        open();
    }

    private void open() {
        String path = "/" + route;
        H2Requests.Reader client = new H2Requests.Reader();
        channel = new EmbeddedChannel(Http2FrameCodecBuilder.forServer().build(), new BenchmarkHandler());
        byte[] serverPreface = take();
        channel.writeInbound(Unpooled.wrappedBuffer(H2Requests.clientStart()));
        byte[] settingsAck = take();
        List<H2Requests.Frame> opening = new ArrayList<>(H2Requests.Reader.frames(serverPreface));
        opening.addAll(H2Requests.Reader.frames(settingsAck));
        if (opening.stream().noneMatch(f -> f.type() == H2Requests.SETTINGS && !f.has(H2Requests.FLAG_ACK))
                || opening.stream().noneMatch(f -> f.type() == H2Requests.SETTINGS && f.has(H2Requests.FLAG_ACK))) {
            throw new IllegalStateException("no SETTINGS and SETTINGS ACK from the server: " + opening);
        }
        channel.writeInbound(Unpooled.wrappedBuffer(H2Requests.settingsAck()));
        channel.writeInbound(Unpooled.wrappedBuffer(H2Requests.firstGet(path, 1)));
        H2Requests.check(client.response(take()), 1, route);

        byte[] next = H2Requests.nextGet(path, 3);
        request = ByteBufAllocator.DEFAULT.directBuffer(next.length).writeBytes(next);
        byte[] update = H2Requests.windowUpdate(0, WINDOW_UPDATE_EVERY * H2Requests.body(route).length());
        windowUpdate = ByteBufAllocator.DEFAULT.directBuffer(update.length).writeBytes(update);
        channel.writeInbound(request.retain().readerIndex(0));
        H2Requests.check(client.response(take()), 3, route);
        if (!channel.isOpen() || request.refCnt() != 1) {
            throw new IllegalStateException("the channel closed, or the codec kept the input");
        }
        streamId = 5;
        untilWindowUpdate = WINDOW_UPDATE_EVERY;
    }

    /** Netty's own HPACK decoder reads the shared blocks as the fields they are meant to be. */
    private static void checkBlocksDecode(String path) throws Http2Exception {
        DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true);
        for (byte[] frame : List.of(H2Requests.firstGet(path, 1), H2Requests.nextGet(path, 3))) {
            ByteBuf block = Unpooled.wrappedBuffer(frame, 9, frame.length - 9);
            Http2Headers headers = decoder.decodeHeaders(1, block);
            List<Map.Entry<String, String>> fields = new ArrayList<>();
            headers.forEach(e -> fields.add(Map.entry(e.getKey().toString(), e.getValue().toString())));
            if (!fields.equals(H2Requests.fields(path))) {
                throw new IllegalStateException("Netty decodes the request block as " + fields);
            }
        }
    }

    @TearDown
    public void tearDown() {
        channel.finishAndReleaseAll();
        request.release();
        windowUpdate.release();
    }

    @Benchmark
    public int roundTrip() {
        request.setInt(H2Requests.STREAM_ID_OFFSET, streamId);
        streamId += 2;
        // The decoder releases the input once it has read it all; retain so the next call can reuse it.
        channel.writeInbound(request.retain().readerIndex(0));
        if (--untilWindowUpdate == 0) {
            untilWindowUpdate = WINDOW_UPDATE_EVERY;
            channel.writeInbound(windowUpdate.retain().readerIndex(0));
        }
        int n = 0;
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            n += b.readableBytes();
            b.release();
        }
        if (streamId < 0) {
            // past 2^31-1: a client opens a new connection
            channel.finishAndReleaseAll();
            request.release();
            windowUpdate.release();
            open();
        }
        return n;
    }

    private byte[] take() {
        List<byte[]> parts = new ArrayList<>();
        int length = 0;
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            byte[] part = new byte[b.readableBytes()];
            b.readBytes(part);
            b.release();
            parts.add(part);
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /** The benchmark app's GET routes over HTTP/2, in idiomatic Netty frame API. */
    static final class BenchmarkHandler extends ChannelInboundHandlerAdapter {
        private static final ByteBuf PLAINTEXT = constant("Hello, World!");
        private static final ByteBuf JSON = constant("{\"message\":\"Hello, World!\"}");
        private static final AsciiString PLAINTEXT_PATH = AsciiString.cached("/plaintext");
        private static final AsciiString JSON_PATH = AsciiString.cached("/json");
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
                if (msg instanceof Http2HeadersFrame frame && frame.isEndStream()) {
                    handle(ctx, frame.headers().path(), frame.stream());
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private static void handle(ChannelHandlerContext ctx, CharSequence path, Http2FrameStream stream) {
            if (PLAINTEXT_PATH.contentEquals(path)) {
                respond(ctx, stream, PLAINTEXT.duplicate(), TEXT_PLAIN, PLAINTEXT_LENGTH);
            } else if (JSON_PATH.contentEquals(path)) {
                respond(ctx, stream, JSON.duplicate(), APPLICATION_JSON, JSON_LENGTH);
            } else {
                Http2Headers headers = new DefaultHttp2Headers(false)
                        .status(HttpResponseStatus.NOT_FOUND.codeAsText())
                        .set(HttpHeaderNames.SERVER, SERVER)
                        .set(HttpHeaderNames.DATE, HttpDate.now())
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                ctx.write(new DefaultHttp2HeadersFrame(headers, true).stream(stream));
            }
        }

        private static void respond(ChannelHandlerContext ctx, Http2FrameStream stream, ByteBuf body, CharSequence type,
                CharSequence length) {
            Http2Headers headers = new DefaultHttp2Headers(false)
                    .status(HttpResponseStatus.OK.codeAsText())
                    .set(HttpHeaderNames.CONTENT_TYPE, type)
                    .set(HttpHeaderNames.CONTENT_LENGTH, length)
                    .set(HttpHeaderNames.SERVER, SERVER)
                    .set(HttpHeaderNames.DATE, HttpDate.now());
            ctx.write(new DefaultHttp2HeadersFrame(headers, false).stream(stream));
            ctx.write(new DefaultHttp2DataFrame(body, true).stream(stream));
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
