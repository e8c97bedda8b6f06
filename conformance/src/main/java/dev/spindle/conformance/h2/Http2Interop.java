// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real HTTP/2 clients against the server under test, the ways users reach it: the JDK's
 * {@link HttpClient} (h2c by {@code Upgrade} on a plain port, h2 by ALPN over TLS), Netty's HTTP/2
 * client (prior knowledge, or ALPN), {@code curl} ({@code --http2-prior-knowledge}, {@code --http2}
 * by Upgrade, {@code --http2} over TLS) and {@code nghttp} (Debian's {@code nghttp2-client}, which
 * {@code scripts/test.sh} installs). Each asserts the protocol the client ended up speaking as
 * well as the answer.
 */
@Timeout(60)
public abstract class Http2Interop {
    private static final String HELLO = "Hello, World!";

    /** @return the server's address */
    protected abstract String host();

    /** @return the server's port */
    protected abstract int port();

    /** @return whether the server speaks TLS on its port */
    protected abstract boolean overTls();

    /** @return a client context trusting the server's certificate */
    protected abstract SSLContext clientTls();

    /** @return whether the server speaks HTTP/2 at all */
    protected abstract boolean runs();

    @BeforeEach
    void onlyOnHttp2() {
        Assumptions.assumeTrue(runs(), "the server does not speak HTTP/2");
    }

    private String url(String path) {
        return (overTls() ? "https" : "http") + "://" + host() + ":" + port() + path;
    }

    /** The JDK client: h2c by Upgrade on the first request (a GET), then HTTP/2 for the rest; h2 by ALPN over TLS. */
    @Test
    void jdkHttpClient() throws Exception {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5));
        try (HttpClient client = (overTls() ? builder.sslContext(clientTls()) : builder).build()) {
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(URI.create(url("/plaintext"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(first.body()).isEqualTo(HELLO);
            List<CompletableFuture<HttpResponse<String>>> many = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                many.add(client.sendAsync(HttpRequest.newBuilder(URI.create(url("/echo")))
                        .POST(HttpRequest.BodyPublishers.ofString("body " + i)).header("content-type", "text/plain").build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < many.size(); i++) {
                HttpResponse<String> r = many.get(i).get(20, TimeUnit.SECONDS);
                assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(r.body()).isEqualTo("body " + i);
            }
        }
    }

    /** Netty's HTTP/2 client: frame codec and multiplex handler, prior knowledge on a plain port, ALPN over TLS. */
    @Test
    void nettyHttp2Client() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            SslContext tls = overTls() ? SslContextBuilder.forClient()
                    .trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_2))
                    .build() : null;
            Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc(), host(), port()));
                            }
                            ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build());
                            ch.pipeline().addLast(new Http2MultiplexHandler(new SimpleChannelInboundHandler<Object>() {
                                @Override
                                protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
                                }
                            }));
                        }
                    }).connect(host(), port()).sync().channel();
            try {
                if (tls != null) {
                    SslHandler ssl = channel.pipeline().get(SslHandler.class);
                    ssl.handshakeFuture().sync();
                    assertThat(ssl.applicationProtocol()).isEqualTo("h2");
                }
                assertThat(nettyRequest(channel, "GET", "/plaintext", null)).isEqualTo("200 " + HELLO);
                assertThat(nettyRequest(channel, "POST", "/echo", "from netty")).isEqualTo("200 from netty");
            } finally {
                channel.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private String nettyRequest(Channel channel, String method, String path, String body) throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        StringBuilder received = new StringBuilder();
        String[] status = new String[1];
        Http2StreamChannel stream = new Http2StreamChannelBootstrap(channel).handler(new SimpleChannelInboundHandler<Http2StreamFrame>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
                boolean end = false;
                if (frame instanceof Http2HeadersFrame headers) {
                    if (status[0] == null) {
                        status[0] = String.valueOf(headers.headers().status());
                    }
                    end = headers.isEndStream();
                } else if (frame instanceof Http2DataFrame data) {
                    received.append(data.content().toString(StandardCharsets.UTF_8));
                    end = data.isEndStream();
                }
                if (end) {
                    answer.complete(status[0] + " " + received);
                }
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                answer.completeExceptionally(cause);
            }
        }).open().sync().getNow();
        Http2Headers headers = new DefaultHttp2Headers().method(method).path(path).scheme(overTls() ? "https" : "http")
                .authority(host() + ":" + port());
        if (body == null) {
            stream.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
        } else {
            headers.add("content-type", "text/plain");
            stream.write(new DefaultHttp2HeadersFrame(headers, false));
            ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
            stream.writeAndFlush(new DefaultHttp2DataFrame(content, true));
        }
        return answer.get(20, TimeUnit.SECONDS);
    }

    /** curl with prior knowledge on a plain port, {@code --http2} (ALPN) over TLS. */
    @Test
    void curlHttp2() throws Exception {
        String out = run("curl", "-sS", "--max-time", "15", overTls() ? "--http2" : "--http2-prior-knowledge", "-k",
                "-w", "\n%{http_version} %{http_code}", url("/plaintext"));
        assertThat(out).isEqualTo(HELLO + "\n2 200");
        String post = run("curl", "-sS", "--max-time", "15", overTls() ? "--http2" : "--http2-prior-knowledge", "-k",
                "-H", "content-type: text/plain", "--data-binary", "posted", "-w", "\n%{http_version}", url("/echo"));
        assertThat(post).isEqualTo("posted\n2");
    }

    /** curl's {@code --http2} on a plain port: the request asks {@code Upgrade: h2c} and is answered on stream 1. */
    @Test
    void curlUpgradesToH2c() throws Exception {
        Assumptions.assumeFalse(overTls(), "Upgrade: h2c is for plain ports");
        String out = run("curl", "-sS", "--max-time", "15", "--http2", "-w", "\n%{http_version} %{http_code}", url("/plaintext"));
        assertThat(out).isEqualTo(HELLO + "\n2 200");
    }

    /** nghttp: prior knowledge on a plain port (and its {@code -u} Upgrade), ALPN over TLS; several streams at once. */
    @Test
    void nghttp() throws Exception {
        String out = run("nghttp", "-t", "15", url("/plaintext"), url("/json"));
        assertThat(out).contains(HELLO).contains("\"message\"");
        if (!overTls()) {
            assertThat(run("nghttp", "-u", "-t", "15", url("/plaintext"))).isEqualTo(HELLO);
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(false).start();
        } catch (IOException e) {
            throw new AssertionError(command[0] + " is not installed: scripts/test.sh installs it (Debian "
                    + (command[0].equals("nghttp") ? "nghttp2-client" : command[0]) + ")", e);
        }
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s finished", command[0]).isTrue();
        assertThat(p.exitValue()).as("%s exit status; stderr: %s", String.join(" ", command), err).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }
}
