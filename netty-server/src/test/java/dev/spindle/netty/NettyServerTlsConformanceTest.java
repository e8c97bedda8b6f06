package dev.spindle.netty;

/** The conformance suite over TLS (Netty's {@code SslHandler}) on Netty's EPOLL transport; skipped with Netty's reason where unavailable. */
@NettyConformanceSuite.OnTransport(NettyTransport.EPOLL)
class NettyServerTlsConformanceTest extends NettyConformanceSuite {
    @Override
    protected boolean overTls() {
        return true;
    }
}
