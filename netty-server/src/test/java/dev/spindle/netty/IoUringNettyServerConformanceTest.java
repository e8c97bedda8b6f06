package dev.spindle.netty;

/** The conformance suite on Netty's IO_URING transport; skipped with Netty's reason where unavailable. */
@NettyConformanceSuite.OnTransport(NettyTransport.IO_URING)
class IoUringNettyServerConformanceTest extends NettyConformanceSuite {
}
