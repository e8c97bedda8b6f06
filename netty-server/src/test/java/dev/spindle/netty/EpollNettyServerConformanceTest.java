package dev.spindle.netty;

/** The conformance suite on Netty's EPOLL transport; skipped with Netty's reason where unavailable. */
@NettyConformanceSuite.OnTransport(NettyTransport.EPOLL)
class EpollNettyServerConformanceTest extends NettyConformanceSuite {
}
