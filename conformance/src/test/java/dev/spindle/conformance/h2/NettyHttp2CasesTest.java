package dev.spindle.conformance.h2;

import static dev.spindle.conformance.h2.ErrorCode.PROTOCOL_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.STREAM_CLOSED;
import static dev.spindle.conformance.h2.Expectation.CASE_STREAM;
import static dev.spindle.conformance.h2.Expectation.connectionError;
import static dev.spindle.conformance.h2.Expectation.streamError;

import java.io.IOException;
import java.util.Map;
import javax.net.SocketFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The HTTP/2 section against Netty's HTTP/2 server codec ({@link NettyHttp2TestServer}): the cases
 * checked against a real, widely used implementation before Spindle's exists, so a case that fails
 * here is either a Netty deviation (declared below, each with what Netty does instead) or a wrong case.
 */
class NettyHttp2CasesTest extends Http2Cases {
    private static NettyHttp2TestServer server;

    @BeforeAll
    static void startNetty() throws InterruptedException {
        server = NettyHttp2TestServer.start();
    }

    @AfterAll
    static void stopNetty() {
        server.close();
    }

    @Override
    protected H2Connection open() throws IOException {
        return H2Connection.open("127.0.0.1", server.port(), SocketFactory.getDefault(), 3_000);
    }

    /** What Netty 4.2's HTTP/2 codec does otherwise than the cases require, found by running them. */
    @Override
    protected Map<String, Http2Deviation> deviations() {
        String noPseudoHeaderCheck = "Netty's codec does not check that a request has :method, :scheme and :path "
                + "(RFC 9113 8.3.1): the application gets the incomplete request and answers it";
        return Map.of(
                "s5_1_headersOnHalfClosedRemoteIsStreamClosed", Http2Deviation.answers(streamError(CASE_STREAM, PROTOCOL_ERROR),
                        "Netty takes a second HEADERS after END_STREAM for misplaced trailers: PROTOCOL_ERROR, not STREAM_CLOSED (RFC 9113 5.1)"),
                "s5_1_headersOnClosedStreamIsAConnectionError", Http2Deviation.answers(streamError(CASE_STREAM, STREAM_CLOSED),
                        "Netty resets a closed stream reopened by HEADERS (a stream error) instead of failing the connection"),
                "s5_1_1_decreasingStreamIdIsAConnectionError", Http2Deviation.answers(streamError(CASE_STREAM, STREAM_CLOSED),
                        "Netty takes HEADERS on a lower, never-opened stream for one already closed: a stream error "
                                + "STREAM_CLOSED, not the connection error PROTOCOL_ERROR of RFC 9113 5.1.1"),
                "s5_3_1_headersDependingOnItselfIsAStreamError", Http2Deviation.answers(connectionError(PROTOCOL_ERROR),
                        "Netty's frame reader fails the connection on a HEADERS frame whose priority depends on its own "
                                + "stream, where RFC 9113 5.3.1 asks for a stream error"),
                "s5_4_1_goAwayNamesTheLastStreamProcessed", Http2Deviation.skipped(
                        "Netty's GOAWAY on a connection error names stream 2^31-1, not the last stream it processed"),
                "s8_1_2_3_missingMethodIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck),
                "s8_1_2_3_missingSchemeIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck),
                "s8_1_2_3_missingPathIsAStreamError", Http2Deviation.skipped(noPseudoHeaderCheck));
    }
}
