// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import dev.spindle.conformance.h2.H2Connection;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import javax.net.ssl.SSLContext;

/**
 * What a conformance section ({@link ExchangeEndCases}, {@link CompressionCases}, {@link WebServiceCases},
 * {@link MultipartCases}) needs of the suite that runs it: how to start a server of the suite's
 * strategy, how to reach it, and what it speaks. {@link HttpConformanceSuite#target()} provides
 * one; its answers are asked for when a case needs them, not when the section is constructed
 * (a nested section's instance is made before the suite's {@code @BeforeAll} methods run).
 */
public interface SuiteTarget {
    /** A server of the suite's strategy with {@code config} and {@code router}, started. */
    HttpServer start(ServerConfig config, Router router) throws IOException;

    /** The suite's configuration (TLS when it runs over TLS). */
    ServerConfig config();

    /** A raw connection to the server on {@code port}, over TLS when the suite is. */
    RawConnection connect(int port) throws IOException;

    /** Whether the suite runs these cases (servers that serve the router they are given). */
    boolean runs();

    /** Whether the server speaks HTTP/2 (by prior knowledge, or ALPN over TLS). */
    boolean speaksHttp2();

    /** An HTTP/2 connection to the server on {@code port}, not yet handshaken. */
    H2Connection openH2(int port) throws IOException;

    /** Whether the server keeps a connection open after a response (else each request gets its own). */
    boolean keepsConnectionsOpen();

    /** How many connections the server serves at once (a thread pool's size, one for a single thread). */
    int concurrentConnections();

    /** Whether the suite speaks TLS. */
    boolean overTls();

    /** The address clients reach the server at. */
    String host();

    /** What TLS clients trust: the server's test certificate. */
    SSLContext clientTls();
}
