package dev.spindle.netty;

/** The conformance suite on Netty's NIO transport (always available). */
@NettyConformanceSuite.OnTransport(NettyTransport.NIO)
class NioNettyServerConformanceTest extends NettyConformanceSuite {
}
