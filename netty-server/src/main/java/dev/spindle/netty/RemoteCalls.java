// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import dev.spindle.references.support.RemoteDownstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of the remote routes to the downstream's {@code /delay/{ms}}, answered as
 * {@link RemoteDownstream} tabulates (its body and content type, 502, 504).
 *
 * <p>{@link #fetch} is a Netty client on the calling connection's own event loop: its connections
 * are registered on that loop, so the call, its answer and the timer that bounds it run on the
 * thread that serves the connection, with no hand-off and no lock. Each event loop keeps its own
 * stack of idle keep-alive connections (the most recently used first); a call takes one or opens
 * one, and gives it back when the answer allows. {@link #fetchBlocking} is the JDK's
 * {@code HttpClient.send}, for a virtual thread.
 */
final class RemoteCalls implements AutoCloseable {
    /** Idle connections an event loop keeps; one finished beyond that is closed. The matrix's 1,000 concurrent calls fit. */
    private static final int MAX_IDLE_PER_LOOP = 1024;
    private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");
    private static final Logger log = LoggerFactory.getLogger(RemoteCalls.class);

    /** What a call answers, on the thread the call completes on; {@code body} is the receiver's to write or release. */
    interface Answer {
        void answer(HttpResponseStatus status, CharSequence contentType, ByteBuf body);
    }

    private final RemoteDownstream downstream;
    private final Class<? extends Channel> channelType;
    private final InetSocketAddress address;
    private final String host;
    private final SslContext tls;
    private final FastThreadLocal<Loop> loops = new FastThreadLocal<>();
    private final HttpClient jdk;
    /** The same downstream over HTTP/2 ({@code /remote-h2/{ms}}), for an https one; else null. */
    private final Http2RemoteCalls h2;

    /**
     * Calls to {@code downstream}, its address resolved now.
     *
     * @param downstream the downstream, perhaps unconfigured (then no call may be made)
     * @param channelType the socket channel of the server's transport, so client connections share its event loops
     * @throws SSLException if an https downstream's client context cannot be built
     */
    RemoteCalls(RemoteDownstream downstream, Class<? extends Channel> channelType) throws SSLException {
        this.downstream = downstream;
        this.channelType = channelType;
        URI base = downstream.base();
        boolean https = base != null && "https".equals(base.getScheme());
        int port = base == null ? -1 : base.getPort() != -1 ? base.getPort() : https ? 443 : 80;
        this.address = base == null ? null : new InetSocketAddress(base.getHost(), port);
        this.host = base == null ? null : base.getPort() == -1 ? base.getHost() : base.getHost() + ":" + port;
        // the JDK's default trust unless -Dspindle.client.trustStore names the downstream's certificate
        TrustManagerFactory trust = https ? RemoteDownstream.trustFromSystemProperties() : null;
        this.tls = https ? SslContextBuilder.forClient().trustManager(trust).build() : null;
        this.h2 = https ? new Http2RemoteCalls(downstream, channelType, trust) : null;
        this.jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    /**
     * Calls the downstream over HTTP/2 from {@code loop}'s own thread ({@link Http2RemoteCalls}, h2 by
     * ALPN); an {@code http://} downstream has none: 502.
     *
     * @param loop the calling connection's event loop (the current thread)
     * @param ms the delay to ask for
     * @param answer told the outcome
     */
    void fetchH2(EventLoop loop, int ms, Answer answer) {
        if (h2 == null) {
            fail(answer, HttpResponseStatus.BAD_GATEWAY, "HTTP/2 to the downstream needs an https:// address (h2 by ALPN): "
                    + downstream.base(), null);
            return;
        }
        h2.fetch(loop, ms, answer);
    }

    /** {@return whether a downstream is configured (else the routes answer 503)} */
    boolean configured() {
        return downstream.configured();
    }

    /**
     * Calls the downstream from {@code loop}'s own thread; {@code answer} is called once, on it.
     *
     * @param loop the calling connection's event loop (the current thread)
     * @param ms the delay to ask for
     * @param answer told the outcome
     */
    void fetch(EventLoop loop, int ms, Answer answer) {
        Loop state = loops.get();
        if (state == null) {
            state = new Loop(loop);
            loops.set(state);
        }
        Call call = new Call(answer, ms);
        call.timer = loop.schedule(call::timedOut, downstream.timeout(ms).toMillis(), TimeUnit.MILLISECONDS);
        Channel idle = state.take();
        if (idle != null) {
            call.send(idle);
            return;
        }
        state.bootstrap.connect(address).addListener((ChannelFutureListener) connected -> {
            if (!connected.isSuccess()) {
                call.failed(connected.cause());
            } else if (call.done) {
                connected.channel().close();
            } else {
                call.send(connected.channel());
            }
        });
    }

    /**
     * Calls the downstream with the JDK client, blocking the calling (virtual) thread.
     *
     * @param ms the delay to ask for
     * @param answer told the outcome, on the calling thread
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void fetchBlocking(int ms, Answer answer) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(downstream.delayUri(ms)).timeout(downstream.timeout(ms)).GET().build();
        HttpResponse<byte[]> response;
        try {
            response = jdk.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpConnectTimeoutException e) {
            // no answer was ever coming: a bad gateway, not a slow one
            fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream call failed: " + e, e);
            return;
        } catch (HttpTimeoutException e) {
            fail(answer, HttpResponseStatus.GATEWAY_TIMEOUT, timeoutMessage(ms), e);
            return;
        } catch (IOException e) {
            fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream call failed: " + e, e);
            return;
        }
        if (response.statusCode() != 200) {
            fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream answered " + response.statusCode(), null);
            return;
        }
        answer.answer(HttpResponseStatus.OK, response.headers().firstValue("content-type").orElse(Wire.APPLICATION_JSON.toString()),
                Unpooled.wrappedBuffer(response.body()));
    }

    private String timeoutMessage(int ms) {
        return "downstream did not answer within " + downstream.timeout(ms).toMillis() + " ms";
    }

    private static void fail(Answer answer, HttpResponseStatus status, String message, Throwable cause) {
        log.debug("{}", message, cause);
        answer.answer(status, TEXT_PLAIN, Unpooled.copiedBuffer(message, StandardCharsets.UTF_8));
    }

    /** Closes the JDK client; the Netty connections close with their event loops. */
    @Override
    public void close() {
        jdk.close();
    }

    /** One event loop's client: its bootstrap and its idle connections, touched by that loop's thread only. */
    private final class Loop {
        final Bootstrap bootstrap;
        final ArrayDeque<Channel> idle = new ArrayDeque<>();

        Loop(EventLoop loop) {
            bootstrap = new Bootstrap()
                    .group(loop)
                    .channel(channelType)
                    .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc(), address.getHostString(), address.getPort()));
                            }
                            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(Wire.MAX_BODY_SIZE), new Exchange(Loop.this));
                        }
                    });
        }

        /** The most recently used idle connection still open, or null. */
        Channel take() {
            for (Channel ch; (ch = idle.pollFirst()) != null; ) {
                if (ch.isActive()) {
                    return ch;
                }
            }
            return null;
        }

        void giveBack(Channel ch) {
            if (idle.size() < MAX_IDLE_PER_LOOP) {
                idle.addFirst(ch);
            } else {
                ch.close();
            }
        }
    }

    /** One call: answered once, by the downstream's answer, a failure, or its timer. */
    private final class Call {
        final Answer answer;
        final int ms;
        ScheduledFuture<?> timer;
        Channel channel;
        boolean done;

        Call(Answer answer, int ms) {
            this.answer = answer;
            this.ms = ms;
        }

        void send(Channel ch) {
            channel = ch;
            ch.pipeline().get(Exchange.class).call = this;
            DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, downstream.delayPath(ms),
                    Unpooled.EMPTY_BUFFER);
            request.headers().set(HttpHeaderNames.HOST, host);
            ch.writeAndFlush(request).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }

        /** The answer arrived: passed through if 200, else 502. */
        void answered(FullHttpResponse response) {
            if (finish()) {
                if (response.status().code() == 200) {
                    CharSequence type = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
                    answer.answer(HttpResponseStatus.OK, type != null ? type : Wire.APPLICATION_JSON, response.content().retain());
                } else {
                    fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream answered " + response.status().code(), null);
                }
            }
        }

        void failed(Throwable cause) {
            if (finish()) {
                fail(answer, HttpResponseStatus.BAD_GATEWAY, "downstream call failed: " + cause, cause);
            }
        }

        /** Its connection may yet answer: it cannot be reused, so it is closed. */
        void timedOut() {
            if (finish()) {
                if (channel != null) {
                    channel.close();
                }
                fail(answer, HttpResponseStatus.GATEWAY_TIMEOUT, timeoutMessage(ms), null);
            }
        }

        private boolean finish() {
            if (done) {
                return false;
            }
            done = true;
            timer.cancel(false);
            return true;
        }
    }

    /** The handler of a client connection: hands its answer to the call in progress, then frees the connection. */
    private static final class Exchange extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final Loop loop;
        Call call;

        Exchange(Loop loop) {
            this.loop = loop;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            Call c = call;
            call = null;
            if (c == null || c.done) {
                // nobody waits for it any more (a timed-out call closes its connection)
                ctx.close();
                return;
            }
            boolean reusable = HttpUtil.isKeepAlive(response) && response.decoderResult().isSuccess();
            if (!response.decoderResult().isSuccess()) {
                c.failed(response.decoderResult().cause());
            } else {
                c.answered(response);
            }
            if (reusable) {
                loop.giveBack(ctx.channel());
            } else {
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Call c = call;
            call = null;
            if (c != null) {
                c.failed(new IOException("downstream closed the connection"));
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Call c = call;
            call = null;
            if (c != null) {
                c.failed(cause);
            }
            ctx.close();
        }
    }
}
