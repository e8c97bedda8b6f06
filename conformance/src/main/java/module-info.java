// SPDX-License-Identifier: Apache-2.0
/**
 * Spindle's conformance suite: the HTTP/1.1 contract every server strategy and reference is held
 * to, as JUnit tests ({@link dev.spindle.conformance.HttpConformanceSuite}) and their helpers. Test
 * support, not a library: the server modules' tests use it. Like any client of core it reads only
 * core's API package, never the strategy contract.
 */
module dev.spindle.conformance {
    // the suite serves the benchmark app's routes (and speaks core's API, which it brings)
    requires dev.spindle.benchmark;
    // core's test-jar: the raw-wire and TLS helpers core's own tests share with the suite
    requires dev.spindle.core.testing;
    requires java.net.http;
    requires java.management;
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    requires org.junit.platform.launcher;
    requires org.opentest4j;
    requires org.assertj.core;
    // the HTTP/2 client decodes the server's header blocks with Netty's HPACK decoder, not the server's own
    requires io.netty.codec.http2;
    requires io.netty.buffer;
    // the interop cases drive Netty's own HTTP/2 client
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.common;

    exports dev.spindle.conformance;
    exports dev.spindle.conformance.h2;
    // its classes are JUnit tests: JUnit instantiates them and calls their (package-private) methods
    opens dev.spindle.conformance to org.junit.platform.commons;
    opens dev.spindle.conformance.h2 to org.junit.platform.commons;
}
