// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static dev.spindle.conformance.h2.ErrorCode.PROTOCOL_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.STREAM_CLOSED;
import static dev.spindle.conformance.h2.Expectation.CASE_STREAM;
import static dev.spindle.conformance.h2.Expectation.connectionError;
import static dev.spindle.conformance.h2.Expectation.streamError;

import dev.spindle.conformance.h2.Http2Cases;
import dev.spindle.conformance.h2.Http2Deviation;
import dev.spindle.core.HttpServer;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The suite's HTTP/2 section against Netty's HTTP/2 server codec ({@link NettyHttp2TestServer}),
 * through {@link HttpConformanceSuite}'s nested section exactly as a strategy's subclass runs it: the
 * cases checked against a real, widely used implementation before Spindle's exists. A case failing
 * here is either a Netty deviation (declared below, each with what Netty does instead) or a wrong
 * case. The server speaks only h2c, so the suite's HTTP/1.1 cases are skipped.
 */
@ExtendWith(NettyHttp2ConformanceTest.OnlyTheHttp2Section.class)
class NettyHttp2ConformanceTest extends HttpConformanceSuite {
    @Override
    protected HttpServer newServer(ServerConfig config, Router router) {
        return new Adapter(overTls());
    }

    @Override
    protected boolean speaksHttp2() {
        return true;
    }

    /** What Netty 4.2's HTTP/2 codec does otherwise than the cases require, found by running them. */
    @Override
    protected Map<String, Http2Deviation> http2Deviations() {
        String noPseudoHeaderCheck = "Netty's codec does not check that a request has :method, :scheme and :path "
                + "(RFC 9113 8.3.1): the application gets the incomplete request and answers it";
        Http2Deviation selfDependency = Http2Deviation.answers(connectionError(PROTOCOL_ERROR),
                "Netty's frame reader fails the connection on a HEADERS frame whose priority depends on its own "
                        + "stream, where RFC 9113 5.3.1 asks for a stream error");
        return Map.ofEntries(
                Map.entry("s5_1_headersOnHalfClosedRemoteIsStreamClosed", Http2Deviation.answers(streamError(CASE_STREAM, PROTOCOL_ERROR),
                        "Netty takes a second HEADERS after END_STREAM for misplaced trailers: PROTOCOL_ERROR, not STREAM_CLOSED (RFC 9113 5.1)")),
                Map.entry("s5_1_headersOnClosedStreamIsAConnectionError", Http2Deviation.answers(streamError(CASE_STREAM, STREAM_CLOSED),
                        "Netty resets a closed stream reopened by HEADERS (a stream error) instead of failing the connection")),
                Map.entry("s5_1_1_decreasingStreamIdIsAConnectionError", Http2Deviation.answers(streamError(CASE_STREAM, STREAM_CLOSED),
                        "Netty takes HEADERS on a lower, never-opened stream for one already closed: a stream error "
                                + "STREAM_CLOSED, not the connection error PROTOCOL_ERROR of RFC 9113 5.1.1")),
                Map.entry("s5_3_1_headersDependingOnItselfIsAStreamError", selfDependency),
                Map.entry("s5_3_1_headersDependingOnItselfIsNeverAnswered", selfDependency),
                Map.entry("s5_3_1_headersDependingOnItselfAcrossAContinuationIsAStreamError", selfDependency),
                Map.entry("s5_4_1_goAwayNamesTheLastStreamProcessed", Http2Deviation.skipped(
                        "Netty's GOAWAY on a connection error names stream 2^31-1, not the last stream it processed")),
                Map.entry("s8_1_2_3_missingMethodIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck)),
                Map.entry("s8_1_2_3_missingSchemeIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck)),
                Map.entry("s8_1_2_3_missingPathIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck)),
                Map.entry("s8_1_aStuckHandlerIsAnswered503AtTheHandlerTimeout", Http2Deviation.skipped(
                        "the Netty test server serves its own fixed routes, with no handler timeout")),
                Map.entry("s8_1_2_3_hostUnlikeAuthorityIsAStreamError", Http2Deviation.skipped(
                        "Netty's codec does not compare host with :authority (RFC 9113 8.3.1): the application gets the request and answers it")));
    }

    /** The Netty server as the suite's {@link HttpServer}. */
    private static final class Adapter implements HttpServer {
        private final CountDownLatch over = new CountDownLatch(1);
        private final boolean overTls;
        private NettyHttp2TestServer netty;

        Adapter(boolean overTls) {
            this.overTls = overTls;
        }

        @Override
        public HttpServer start() throws IOException {
            try {
                netty = NettyHttp2TestServer.start(overTls);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while binding", e);
            }
            return this;
        }

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", netty.port());
        }

        @Override
        public void close() {
            if (netty != null) {
                netty.close();
            }
            over.countDown();
        }

        @Override
        public void awaitTermination() throws InterruptedException {
            over.await();
        }
    }

    /** Runs the HTTP/2 section only: the server speaks no HTTP/1.1. */
    static final class OnlyTheHttp2Section implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getTestMethod().filter(m -> !Http2Cases.class.isAssignableFrom(m.getDeclaringClass()))
                    .map(m -> ConditionEvaluationResult.disabled("an HTTP/1.1 case: the Netty test server speaks only h2c"))
                    .orElse(ConditionEvaluationResult.enabled("the HTTP/2 section"));
        }
    }
}
