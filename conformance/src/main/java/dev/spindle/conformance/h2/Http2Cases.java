// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import static dev.spindle.conformance.h2.ErrorCode.COMPRESSION_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.FLOW_CONTROL_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.FRAME_SIZE_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.PROTOCOL_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.REFUSED_STREAM;
import static dev.spindle.conformance.h2.ErrorCode.STREAM_CLOSED;
import static dev.spindle.conformance.h2.Expectation.connectionError;
import static dev.spindle.conformance.h2.Expectation.streamError;
import static dev.spindle.conformance.h2.Expectation.streamOrConnectionError;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP/2 section of the conformance suite: RFC 9113 and RFC 7541 case by case, grouped and
 * named by section as the h2spec tool groups its cases (its numbering, RFC 7540's: 3.5 is RFC 9113's
 * 3.4, 8.1.2.x its 8.2 and 8.3), each bad input held to the exact error code and to whether it is a
 * stream error (RST_STREAM, the connection goes on) or a connection error (GOAWAY, then the close).
 * Where the RFCs allow either, or two codes, the case says so and accepts exactly those; it is
 * stricter than h2spec in one respect: a connection error must send its GOAWAY (RFC 9113 5.4.1's
 * SHOULD), a bare close passes only where the server cannot yet know it speaks HTTP/2.
 *
 * <p>A subclass says how to reach the server ({@link #open()}: h2c with prior knowledge on a plain
 * port, or h2 by ALPN over TLS) and whether it runs at all ({@link #runs()}). The server serves the
 * benchmark app's {@code GET /plaintext} ({@code Hello, World!}), {@code POST /echo} (the body back,
 * with its content type) and {@code GET /delay/{ms}}. A server that knowingly departs from a case
 * declares it in {@link #deviations()}: it is then held to what it declares instead, or the case is
 * skipped, with the reason.
 */
@Timeout(60)
public abstract class Http2Cases {
    private static final String HELLO = "Hello, World!";
    /** A request still in progress long enough for frames to reach it in the half-closed (remote) state. */
    private static final String SLOW = "/delay/500";

    private Http2Deviation deviation;
    private boolean deviationApplied;

    /**
     * A new connection to the server under test, nothing sent yet.
     *
     * @return the connection
     * @throws IOException if it cannot connect
     */
    protected abstract H2Connection open() throws IOException;

    /**
     * Whether the server under test speaks HTTP/2; when not, every case is skipped with {@link #whyNotRun()}.
     *
     * @return true by default
     */
    protected boolean runs() {
        return true;
    }

    /**
     * Why the cases do not run when {@link #runs()} is false.
     *
     * @return the reason
     */
    protected String whyNotRun() {
        return "the server does not speak HTTP/2";
    }

    /**
     * The cases, by test method name, where the server under test knowingly deviates.
     *
     * @return case name to deviation, none by default
     */
    protected Map<String, Http2Deviation> deviations() {
        return Map.of();
    }

    /**
     * Starts a server like the one under test whose handler timeout is {@code handlerTimeout},
     * serving {@code GET /plaintext} and {@code GET /stuck}: a blocking handler that does not return
     * until {@code release} is counted down.
     *
     * @param handlerTimeout the handler timeout
     * @param release what the stuck handler waits for
     * @return the server, started; null if the server's routes or timeouts cannot be set (the case is skipped)
     * @throws IOException if it cannot start
     */
    protected Http2Defences.OwnServer withStuckHandler(Duration handlerTimeout, CountDownLatch release) throws IOException {
        return null;
    }

    @BeforeEach
    void runOnlyOnHttp2(TestInfo info) {
        String name = info.getTestMethod().map(Method::getName).orElse("");
        deviation = name.equals("declaredDeviationsNameRealCases") ? null : deviations().get(name);
        deviationApplied = false;
        if (!name.equals("declaredDeviationsNameRealCases")) {
            Assumptions.assumeTrue(runs(), this::whyNotRun);
        }
        Assumptions.assumeTrue(deviation == null || deviation.instead() != null,
                () -> "declared deviation: " + deviation.reason());
    }

    @AfterEach
    void declaredDeviationWasApplied() {
        if (deviation != null && deviation.instead() != null) {
            assertThat(deviationApplied).as("the deviation declared for this case (%s) names an expectation, but the case "
                    + "checks no error; declare it skipped instead", deviation.reason()).isTrue();
        }
    }

    /** Every declared deviation names a case of this class. */
    @Test
    void declaredDeviationsNameRealCases() {
        List<String> cases = new ArrayList<>();
        for (Method m : Http2Cases.class.getDeclaredMethods()) {
            if (m.isAnnotationPresent(Test.class)) {
                cases.add(m.getName());
            }
        }
        assertThat(cases).containsAll(deviations().keySet());
    }

    // ---- helpers

    /** Opens a connection and completes the handshake with {@code settings} (identifier, value...). */
    private H2Connection connect(long... settings) throws IOException {
        H2Connection c = open();
        try {
            return c.handshake(settings);
        } catch (IOException | RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    /** Expects {@code expected}, or what the server declares instead for this case, about {@code stream}. */
    private void expect(H2Connection c, int stream, Expectation expected) throws IOException {
        Expectation e = expected;
        if (deviation != null) {
            e = deviation.instead();
            deviationApplied = true;
        }
        c.expect(e.on(stream));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    private static void assertHello(H2Response r) {
        assertThat(r.status()).as("status of %s", r.headers()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo(HELLO);
    }

    /** Fields a header block of more than one frame (16,384 bytes) needs: five of 4,000 bytes. */
    private static List<Header> bulky(int count) {
        List<Header> fields = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            fields.add(new Header("x-dummy" + i, "x".repeat(4000)));
        }
        return fields;
    }

    /** A POST whose body is followed by a trailer section {@code trailers}; the ending flags as given. */
    private void postWithTrailers(H2Connection c, List<Header> trailers, boolean endStream) throws IOException {
        c.request(1, "POST", "/echo", false);
        c.data(1, ascii("test"), false);
        c.headers(1, endStream, trailers);
    }

    // ---- 3.5 HTTP/2 Connection Preface (RFC 9113 3.4)

    /** 3.5/1: the preface and a SETTINGS frame; the server's first frame is SETTINGS without ACK. */
    @Test
    void s3_5_prefaceIsAnsweredWithSettings() throws IOException {
        try (H2Connection c = connect()) {
            assertThat(c.firstFrame().type()).as("first frame: %s", c.firstFrame()).isEqualTo(Frame.SETTINGS);
            assertThat(c.firstFrame().has(Frame.ACK)).isFalse();
            assertThat(c.firstFrame().streamId()).isZero();
        }
    }

    /**
     * 3.5/2: {@code INVALID CONNECTION PREFACE}; the connection closes, after an HTTP/1.1 error or a
     * GOAWAY with PROTOCOL_ERROR or nothing, never an HTTP/2 exchange.
     */
    @Test
    void s3_5_invalidPrefaceIsAConnectionError() throws IOException {
        assertBadPrefaceCloses(ascii("INVALID CONNECTION PREFACE\r\n\r\n"));
    }

    /** 3.5/2: a preface whose first line is right and whose end is wrong; closed as in the case above. */
    @Test
    void s3_5_corruptPrefaceIsAConnectionError() throws IOException {
        assertBadPrefaceCloses(ascii("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"));
    }

    private void assertBadPrefaceCloses(byte[] preface) throws IOException {
        try (H2Connection c = open()) {
            c.writeRaw(preface);
            byte[] answer = c.readUntilClose();
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            if (text.startsWith("HTTP/1.")) {
                assertThat(text.substring(9, 10)).as("an HTTP/1.1 answer must be an error: %s", text).isIn("4", "5");
                return;
            }
            // frames: the server's preface at most (SETTINGS, and a WINDOW_UPDATE raising the
            // connection's window), then a GOAWAY with PROTOCOL_ERROR, if anything
            int at = 0;
            while (at + 9 <= answer.length) {
                int length = ((answer[at] & 0xff) << 16) | ((answer[at + 1] & 0xff) << 8) | (answer[at + 2] & 0xff);
                int type = answer[at + 3] & 0xff;
                assertThat(type).as("frame type answering a bad preface: %s", text).isIn(Frame.SETTINGS, Frame.WINDOW_UPDATE, Frame.GOAWAY);
                if (type == Frame.GOAWAY && at + 9 + 8 <= answer.length) {
                    long code = java.nio.ByteBuffer.wrap(answer, at + 13, 4).getInt() & 0xffffffffL;
                    assertThat(ErrorCode.nameOf(code)).isEqualTo(PROTOCOL_ERROR.name());
                }
                at += 9 + length;
            }
        }
    }

    // ---- 4.1 Frame Format

    /** 4.1/1: a frame of unknown type 0x16 on stream 0; ignored: a PING is answered. */
    @Test
    void s4_1_unknownFrameTypeIsIgnored() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(0x16, 0, 0, new byte[8]);
            expect(c, 0, Expectation.ignored());
        }
    }

    /** 4.1/2: a PING with undefined flags (0x16, ACK clear); answered with an ACK as any PING. */
    @Test
    void s4_1_undefinedFlagsAreIgnored() throws IOException {
        try (H2Connection c = connect()) {
            byte[] opaque = ascii("flags!!!");
            c.writeFrame(Frame.PING, 0x16, 0, opaque);
            assertPingAck(c, opaque);
        }
    }

    /** 4.1/3: a PING with the reserved bit of the stream field set; answered with an ACK as any PING. */
    @Test
    void s4_1_reservedBitIsIgnored() throws IOException {
        try (H2Connection c = connect()) {
            byte[] opaque = ascii("reserved");
            c.writeFrame(Frame.PING, 0, 0x80000000, opaque);
            assertPingAck(c, opaque);
        }
    }

    private static void assertPingAck(H2Connection c, byte[] opaque) {
        while (true) {
            Frame f = c.readFrame();
            assertThat(f).as("PING ACK expected; received %s", c.recent()).isNotNull();
            assertThat(f.type()).as("received %s", c.recent()).isNotEqualTo(Frame.GOAWAY);
            if (f.type() == Frame.PING) {
                assertThat(f.has(Frame.ACK)).as("%s", f).isTrue();
                assertThat(f.payload()).isEqualTo(opaque);
                return;
            }
        }
    }

    // ---- 4.2 Frame Size

    /** 4.2/1: POST /echo with a DATA frame of exactly 2^14 bytes; echoed whole. */
    @Test
    void s4_2_dataOfMaxFrameSizeIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            byte[] body = new byte[H2Connection.MAX_FRAME_SIZE];
            Arrays.fill(body, (byte) 'x');
            c.request(1, "POST", "/echo", false, new Header("content-type", "application/octet-stream"));
            c.data(1, body, true);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(body);
        }
    }

    /** 4.2/2: a DATA frame of 2^14 + 1 bytes; FRAME_SIZE_ERROR, as a stream or a connection error. */
    @Test
    void s4_2_dataLargerThanMaxFrameSizeIsFrameSizeError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.writeFrame(Frame.DATA, Frame.END_STREAM, 1, new byte[H2Connection.MAX_FRAME_SIZE + 1]);
            expect(c, 1, streamOrConnectionError(1, FRAME_SIZE_ERROR));
        }
    }

    /** 4.2/3: a HEADERS frame of more than 2^14 bytes (a header block can alter the connection): connection error FRAME_SIZE_ERROR. */
    @Test
    void s4_2_headersLargerThanMaxFrameSizeIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            fields.addAll(bulky(5));
            c.headers(1, true, fields);
            expect(c, 1, connectionError(FRAME_SIZE_ERROR));
        }
    }

    // ---- 4.3 Header Compression and Decompression

    /** 4.3/1: a header block of one byte 0x40 (a literal with no name); connection error COMPRESSION_ERROR. */
    @Test
    void s4_3_invalidHeaderBlockIsACompressionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS, new byte[] {0x40});
            expect(c, 1, connectionError(COMPRESSION_ERROR));
        }
    }

    /** 4.3/2: HEADERS without END_HEADERS, then a PRIORITY frame; connection error PROTOCOL_ERROR. */
    @Test
    void s4_3_priorityInsideAHeaderBlockIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.priority(1, 0, false, 255);
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 4.3/3: HEADERS without END_HEADERS, then HEADERS on another stream; connection error PROTOCOL_ERROR. */
    @Test
    void s4_3_headersOfAnotherStreamInsideAHeaderBlockIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.headers(3, true, c.requestFields("GET", "/plaintext"));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    // ---- 5.1 Stream States

    /**
     * 5.1/1: DATA on idle stream 1: connection error PROTOCOL_ERROR (5.1), or stream error
     * STREAM_CLOSED (6.1 says so of DATA on any stream not open).
     */
    @Test
    void s5_1_dataOnIdleStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.data(1, ascii("test"), true);
            expect(c, 1, connectionError(PROTOCOL_ERROR).or(streamError(1, STREAM_CLOSED)));
        }
    }

    /** 5.1/2: RST_STREAM on idle stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s5_1_rstStreamOnIdleStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.rstStream(1, ErrorCode.CANCEL);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 5.1/3: WINDOW_UPDATE on idle stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s5_1_windowUpdateOnIdleStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.windowUpdate(1, 100);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 5.1/4: CONTINUATION on idle stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s5_1_continuationOnIdleStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.continuation(1, true, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 5.1/5: GET {@value #SLOW} ending the stream, then DATA on it (half-closed remote); stream error STREAM_CLOSED. */
    @Test
    void s5_1_dataOnHalfClosedRemoteIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.data(1, ascii("test"), true);
            expect(c, 1, streamError(1, STREAM_CLOSED));
        }
    }

    /** 5.1/6: GET {@value #SLOW} ending the stream, then a second HEADERS on it; stream error STREAM_CLOSED. */
    @Test
    void s5_1_headersOnHalfClosedRemoteIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.request(1, "GET", SLOW, true);
            expect(c, 1, streamError(1, STREAM_CLOSED));
        }
    }

    /**
     * 5.1/7: a complete HEADERS ending the stream, then CONTINUATION on it; a CONTINUATION outside a
     * header block is a connection error PROTOCOL_ERROR (6.10), or the stream's state says STREAM_CLOSED.
     */
    @Test
    void s5_1_continuationOnHalfClosedRemoteIsAnError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR, STREAM_CLOSED).or(streamError(1, STREAM_CLOSED)));
        }
    }

    /** 5.1/8: POST without END_STREAM, RST_STREAM from the client, then DATA; STREAM_CLOSED, stream or connection error. */
    @Test
    void s5_1_dataAfterRstStreamIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.rstStream(1, ErrorCode.CANCEL);
            c.data(1, ascii("test"), true);
            expect(c, 1, streamOrConnectionError(1, STREAM_CLOSED));
        }
    }

    /** 5.1/9: POST without END_STREAM, RST_STREAM, then HEADERS on it; STREAM_CLOSED, stream or connection error. */
    @Test
    void s5_1_headersAfterRstStreamIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.rstStream(1, ErrorCode.CANCEL);
            c.request(1, "GET", "/plaintext", true);
            expect(c, 1, streamOrConnectionError(1, STREAM_CLOSED));
        }
    }

    /** 5.1/10: POST, RST_STREAM, then CONTINUATION; STREAM_CLOSED or PROTOCOL_ERROR, stream or connection error. */
    @Test
    void s5_1_continuationAfterRstStreamIsAnError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.rstStream(1, ErrorCode.CANCEL);
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, streamOrConnectionError(1, STREAM_CLOSED, PROTOCOL_ERROR));
        }
    }

    /** 5.1/11: a GET answered to its END_STREAM (closed), then DATA on it; STREAM_CLOSED, stream or connection error. */
    @Test
    void s5_1_dataOnClosedStreamIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
            c.data(1, ascii("test"), true);
            expect(c, 1, streamOrConnectionError(1, STREAM_CLOSED));
        }
    }

    /** 5.1/12: a GET answered to its END_STREAM, then HEADERS on it again; connection error STREAM_CLOSED (or PROTOCOL_ERROR, 5.1.1). */
    @Test
    void s5_1_headersOnClosedStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
            c.request(1, "GET", "/plaintext", true);
            expect(c, 1, connectionError(STREAM_CLOSED, PROTOCOL_ERROR));
        }
    }

    /** 5.1/13: a GET answered to its END_STREAM, then CONTINUATION on it; connection error STREAM_CLOSED or PROTOCOL_ERROR. */
    @Test
    void s5_1_continuationOnClosedStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(STREAM_CLOSED, PROTOCOL_ERROR));
        }
    }

    /** 5.1 (generic): GET {@value #SLOW} ending the stream, then RST_STREAM on it; accepted: a PING is answered, or the connection closes cleanly. */
    @Test
    void s5_1_rstStreamOnHalfClosedRemoteIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.rstStream(1, ErrorCode.CANCEL);
            expect(c, 1, Expectation.ignored().or(Expectation.close()));
        }
    }

    /** 5.1 (generic): GET /plaintext ending the stream, then WINDOW_UPDATE and PRIORITY on it; answered as usual. */
    @Test
    void s5_1_windowUpdateAndPriorityOnHalfClosedRemoteAreAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            c.windowUpdate(1, 1);
            c.priority(1, 0, false, 15);
            assertHello(c.response(1));
            c.expectPingAnswered();
        }
    }

    /** 5.1 (generic): PRIORITY on idle stream 3, then on closed stream 1; both accepted, a PING answered. */
    @Test
    void s5_1_priorityOnIdleAndClosedStreamsIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(3, 0, false, 15);
            c.request(5, "GET", "/plaintext", true);
            assertHello(c.response(5));
            c.priority(5, 0, false, 15);
            c.expectPingAnswered();
        }
    }

    // ---- 5.1.1 Stream Identifiers

    /** 5.1.1/1: HEADERS on even stream 2; connection error PROTOCOL_ERROR. */
    @Test
    void s5_1_1_evenStreamIdIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(2, "GET", "/plaintext", true);
            expect(c, 2, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 5.1.1/2: HEADERS on stream 5, then on stream 3; connection error PROTOCOL_ERROR. */
    @Test
    void s5_1_1_decreasingStreamIdIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(5, "GET", "/plaintext", true);
            c.request(3, "GET", "/plaintext", true);
            expect(c, 3, connectionError(PROTOCOL_ERROR));
        }
    }

    // ---- 5.1.2 Stream Concurrency

    /**
     * 5.1.2/1: with SETTINGS_INITIAL_WINDOW_SIZE 0 (no response can finish), one GET more than the
     * server's SETTINGS_MAX_CONCURRENT_STREAMS; the last is a stream error REFUSED_STREAM or PROTOCOL_ERROR.
     */
    @Test
    void s5_1_2_streamsBeyondMaxConcurrentAreRefused() throws IOException {
        try (H2Connection c = connect(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
            Long max = c.serverSetting(Frame.SETTINGS_MAX_CONCURRENT_STREAMS);
            assertThat(max).as("SETTINGS_MAX_CONCURRENT_STREAMS announced").isNotNull();
            Assumptions.assumeTrue(max <= 1000, () -> "a limit of " + max + " streams is too many to exceed in a test");
            c.replenishWindows(false);
            int stream = 1;
            for (long i = 0; i <= max; i++, stream += 2) {
                c.request(stream, "GET", "/plaintext", true);
            }
            expect(c, stream - 2, streamError(stream - 2, REFUSED_STREAM, PROTOCOL_ERROR));
        }
    }

    /** 5.1.2 (positive): as many GETs at once as the server allows (at most 100) on one connection; every one answered. */
    @Test
    void s5_1_2_concurrentStreamsAreAllAnswered() throws IOException {
        try (H2Connection c = connect()) {
            long max = Math.min(100, c.serverSetting(Frame.SETTINGS_MAX_CONCURRENT_STREAMS) == null ? 100
                    : c.serverSetting(Frame.SETTINGS_MAX_CONCURRENT_STREAMS));
            List<Integer> streams = new ArrayList<>();
            for (int i = 0; i < max; i++) {
                streams.add(2 * i + 1);
                c.request(2 * i + 1, "GET", "/plaintext", true);
            }
            Map<Integer, H2Response> responses = c.responses(streams);
            assertThat(responses).hasSize(streams.size());
            responses.values().forEach(Http2Cases::assertHello);
        }
    }

    // ---- 5.3.1 Stream Dependencies

    /** 5.3.1/1: HEADERS with a priority making stream 1 depend on itself; stream error PROTOCOL_ERROR. */
    @Test
    void s5_3_1_headersDependingOnItselfIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            byte[] block = HpackLiterals.encode(c.requestFields("GET", "/plaintext"));
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS | Frame.PRIORITY_FLAG,
                    concat(H2Connection.prioritySpec(1, false, 255), block));
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 5.3.1/2: PRIORITY making stream 1 depend on itself; stream error PROTOCOL_ERROR. */
    @Test
    void s5_3_1_priorityDependingOnItselfIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(1, 1, false, 255);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /**
     * 5.3.1 (generic): a GET whose one HEADERS frame depends on its own stream; a stream error
     * PROTOCOL_ERROR instead of an answer (no handler sees a request in error), and the connection
     * serves the next stream.
     */
    @Test
    void s5_3_1_headersDependingOnItselfIsNeverAnswered() throws IOException {
        try (H2Connection c = connect()) {
            byte[] block = HpackLiterals.encode(c.requestFields("GET", "/plaintext"));
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS | Frame.PRIORITY_FLAG,
                    concat(H2Connection.prioritySpec(1, false, 255), block));
            expectNeverAnswered(c, 1);
        }
    }

    /** 5.3.1 (generic): as above, the header block ending in a CONTINUATION; the same stream error, then the next stream served. */
    @Test
    void s5_3_1_headersDependingOnItselfAcrossAContinuationIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            c.headersBlock(1, Frame.END_STREAM | Frame.PRIORITY_FLAG,
                    concat(H2Connection.prioritySpec(1, false, 255), HpackLiterals.encode(fields.subList(0, 2))));
            c.continuation(1, true, HpackLiterals.encode(fields.subList(2, fields.size())));
            expectNeverAnswered(c, 1);
        }
    }

    /** 5.3.1 (generic): PRIORITY making idle stream 1 depend on itself; the stream error, then the next stream served. */
    @Test
    void s5_3_1_priorityDependingOnItselfLeavesTheConnectionUsable() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(1, 1, false, 255);
            expectNeverAnswered(c, 1);
        }
    }

    /**
     * The stream error PROTOCOL_ERROR on {@code stream} (or what the server declares instead), with
     * no answer on it before; unless the connection ended, the next stream is answered.
     */
    private void expectNeverAnswered(H2Connection c, int stream) throws IOException {
        expect(c, stream, streamError(stream, PROTOCOL_ERROR));
        assertThat(c.recent()).as("what stream %d got, its request in error", stream)
                .noneMatch(f -> f.streamId() == stream && (f.type() == Frame.HEADERS || f.type() == Frame.DATA));
        if (c.lastGoAway() == null) {
            c.request(stream + 2, "GET", "/plaintext", true);
            assertHello(c.response(stream + 2));
        }
    }

    // ---- 5.4.1 Connection Error Handling

    /** 5.4.1/1-2: a PING on stream 3 (a connection error); GOAWAY with PROTOCOL_ERROR, then the close. */
    @Test
    void s5_4_1_connectionErrorSendsGoAwayThenCloses() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.PING, 0, 3, new byte[8]);
            expect(c, 3, connectionError(PROTOCOL_ERROR));
        }
    }

    /**
     * 5.4.1 (RFC 9113 6.8): after a GET answered on stream 1, a PING on stream 3; the GOAWAY names
     * stream 1, the last one processed (stream 3 was never opened).
     */
    @Test
    void s5_4_1_goAwayNamesTheLastStreamProcessed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
            c.writeFrame(Frame.PING, 0, 3, new byte[8]);
            c.expect(connectionError(PROTOCOL_ERROR));
            assertThat(c.lastGoAway().lastStreamId()).as("GOAWAY's last stream").isEqualTo(1);
        }
    }

    // ---- 5.5 Extending HTTP/2

    /** 5.5/1: an unknown extension frame (type 0x16) between requests; ignored: the next request is answered. */
    @Test
    void s5_5_unknownExtensionFrameIsIgnored() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(0x16, 0xff, 0, ascii("extension"));
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
        }
    }

    /** 5.5/2: an unknown extension frame in the middle of a header block; connection error PROTOCOL_ERROR. */
    @Test
    void s5_5_unknownExtensionFrameInsideAHeaderBlockIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.writeFrame(0x16, 0, 0, new byte[8]);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    // ---- 6.1 DATA

    /** 6.1/1: DATA on stream 0; connection error PROTOCOL_ERROR. */
    @Test
    void s6_1_dataOnStreamZeroIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.DATA, Frame.END_STREAM, 0, ascii("test"));
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.1/2: a POST ending the stream in its HEADERS, then DATA; STREAM_CLOSED, as a stream or connection error (5.1 allows the latter once closed). */
    @Test
    void s6_1_dataOnAStreamNotOpenIsStreamClosed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", true);
            c.data(1, ascii("test"), true);
            expect(c, 1, streamOrConnectionError(1, STREAM_CLOSED));
        }
    }

    /** 6.1/3: DATA whose pad length (6) is not less than its payload (5); connection error PROTOCOL_ERROR. */
    @Test
    void s6_1_dataWithInvalidPadLengthIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-length", "4"));
            c.writeFrame(Frame.DATA, Frame.END_STREAM | Frame.PADDED, 1, new byte[] {6, 'T', 'e', 's', 't'});
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.1 (generic): POST /echo with padded DATA frames; the body comes back without the padding. */
    @Test
    void s6_1_paddedDataIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-type", "text/plain"));
            c.writeFrame(Frame.DATA, Frame.PADDED, 1, concat(new byte[] {3}, ascii("hello "), new byte[3]));
            c.writeFrame(Frame.DATA, Frame.PADDED | Frame.END_STREAM, 1, concat(new byte[] {0}, ascii("padding")));
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("hello padding");
        }
    }

    // ---- 6.2 HEADERS

    /** 6.2/1: HEADERS without END_HEADERS, then PRIORITY on the stream; connection error PROTOCOL_ERROR. */
    @Test
    void s6_2_priorityAfterHeadersWithoutEndHeadersIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.priority(1, 0, false, 255);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.2/2: HEADERS without END_HEADERS, then HEADERS on stream 3; connection error PROTOCOL_ERROR. */
    @Test
    void s6_2_headersToAnotherStreamDuringAHeaderBlockIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.headers(3, true, c.requestFields("GET", "/plaintext"));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.2/3: HEADERS on stream 0; connection error PROTOCOL_ERROR. */
    @Test
    void s6_2_headersOnStreamZeroIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headers(0, true, c.requestFields("GET", "/plaintext"));
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.2/4: HEADERS whose pad length exceeds its payload; connection error PROTOCOL_ERROR (RFC 9113 6.2). */
    @Test
    void s6_2_headersWithInvalidPadLengthIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            byte[] block = HpackLiterals.encode(c.requestFields("GET", "/plaintext"));
            c.writeFrame(Frame.HEADERS, Frame.END_STREAM | Frame.END_HEADERS | Frame.PADDED, 1,
                    concat(new byte[] {(byte) (block.length + 2)}, block));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.2 (generic): HEADERS with padding and a priority; answered as usual. */
    @Test
    void s6_2_paddedHeadersWithPriorityAreAccepted() throws IOException {
        try (H2Connection c = connect()) {
            byte[] block = HpackLiterals.encode(c.requestFields("GET", "/plaintext"));
            c.writeFrame(Frame.HEADERS, Frame.END_STREAM | Frame.END_HEADERS | Frame.PADDED | Frame.PRIORITY_FLAG, 1,
                    concat(new byte[] {4}, H2Connection.prioritySpec(0, true, 200), block, new byte[4]));
            assertHello(c.response(1));
        }
    }

    // ---- 6.3 PRIORITY

    /** 6.3/1: PRIORITY on stream 0; connection error PROTOCOL_ERROR. */
    @Test
    void s6_3_priorityOnStreamZeroIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(0, 0, false, 255);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.3/2: PRIORITY of 4 bytes on a stream in progress; stream error FRAME_SIZE_ERROR. */
    @Test
    void s6_3_priorityOfWrongLengthIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.writeFrame(Frame.PRIORITY, 0, 1, new byte[] {(byte) 0x80, 0, 0, 1});
            expect(c, 1, streamError(1, FRAME_SIZE_ERROR));
        }
    }

    /** 6.3 (generic): PRIORITY for idle stream 9, then HEADERS on the lower stream 1; answered as usual. */
    @Test
    void s6_3_priorityForAnIdleStreamThenALowerStreamIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(9, 0, false, 15);
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
        }
    }

    /**
     * 6.3 (generic): PRIORITY frames of weight 1 and 256, with a dependency and exclusive, on idle
     * streams 1 and 3, then GETs on both; both answered.
     */
    @Test
    void s6_3_priorityVariantsAreAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.priority(1, 0, false, 0);
            c.priority(1, 0, false, 255);
            c.priority(3, 1, false, 100);
            c.priority(3, 1, true, 100);
            c.request(1, "GET", "/plaintext", true);
            c.request(3, "GET", "/plaintext", true);
            c.responses(List.of(1, 3)).values().forEach(Http2Cases::assertHello);
        }
    }

    // ---- 6.4 RST_STREAM

    /** 6.4/1: RST_STREAM on stream 0; connection error PROTOCOL_ERROR. */
    @Test
    void s6_4_rstStreamOnStreamZeroIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.rstStream(0, ErrorCode.CANCEL);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.4/2: RST_STREAM on idle stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s6_4_rstStreamOnIdleStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.rstStream(1, ErrorCode.CANCEL);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.4/3: RST_STREAM of 3 bytes on a stream in progress; connection error FRAME_SIZE_ERROR (RFC 9113 6.4). */
    @Test
    void s6_4_rstStreamOfWrongLengthIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", SLOW, true);
            c.writeFrame(Frame.RST_STREAM, 0, 1, new byte[3]);
            expect(c, 1, connectionError(FRAME_SIZE_ERROR));
        }
    }

    // ---- 6.5 SETTINGS

    /** 6.5/1: SETTINGS with ACK and a one-byte payload; connection error FRAME_SIZE_ERROR. */
    @Test
    void s6_5_settingsAckWithPayloadIsAFrameSizeError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.SETTINGS, Frame.ACK, 0, new byte[1]);
            expect(c, 0, connectionError(FRAME_SIZE_ERROR));
        }
    }

    /** 6.5/2: SETTINGS on stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s6_5_settingsOnAStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.SETTINGS, 0, 1, new byte[] {0, 3, 0, 0, 0, 100});
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.5/3: SETTINGS of 3 bytes (not a multiple of 6); connection error FRAME_SIZE_ERROR. */
    @Test
    void s6_5_settingsLengthNotAMultipleOf6IsAFrameSizeError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.SETTINGS, 0, 0, new byte[] {0, 3, 0});
            expect(c, 0, connectionError(FRAME_SIZE_ERROR));
        }
    }

    /** 6.5.3/2: SETTINGS (SETTINGS_ENABLE_PUSH 0); acknowledged with an empty SETTINGS ACK. */
    @Test
    void s6_5_3_settingsAreAcknowledged() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(Frame.SETTINGS_ENABLE_PUSH, 0);
            while (true) {
                Frame f = c.readFrame();
                assertThat(f).as("SETTINGS ACK expected; received %s", c.recent()).isNotNull();
                assertThat(f.type()).isNotEqualTo(Frame.GOAWAY);
                if (f.type() == Frame.SETTINGS) {
                    assertThat(f.has(Frame.ACK)).as("%s", f).isTrue();
                    assertThat(f.payload()).isEmpty();
                    return;
                }
            }
        }
    }

    /**
     * 6.5.3/1: SETTINGS_INITIAL_WINDOW_SIZE 100 then 1 in one frame, processed in order; a GET's
     * first DATA frame is 1 byte.
     */
    @Test
    void s6_5_3_settingsValuesApplyInOrder() throws IOException {
        try (H2Connection c = connect(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 100, Frame.SETTINGS_INITIAL_WINDOW_SIZE, 1)) {
            c.replenishWindows(false);
            c.request(1, "GET", "/plaintext", true);
            assertThat(c.nextData(1).payload()).hasSize(1);
        }
    }

    // ---- 6.5.2 Defined SETTINGS Parameters

    /** 6.5.2/1: SETTINGS_ENABLE_PUSH 2; connection error PROTOCOL_ERROR. */
    @Test
    void s6_5_2_enablePushOtherThan0Or1IsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(Frame.SETTINGS_ENABLE_PUSH, 2);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.5.2/2: SETTINGS_INITIAL_WINDOW_SIZE 2^31; connection error FLOW_CONTROL_ERROR. */
    @Test
    void s6_5_2_initialWindowSizeAboveTheMaximumIsAFlowControlError() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 1L << 31);
            expect(c, 0, connectionError(FLOW_CONTROL_ERROR));
        }
    }

    /** 6.5.2/3: SETTINGS_MAX_FRAME_SIZE 16,383; connection error PROTOCOL_ERROR. */
    @Test
    void s6_5_2_maxFrameSizeBelowTheInitialValueIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(Frame.SETTINGS_MAX_FRAME_SIZE, 16_383);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.5.2/4: SETTINGS_MAX_FRAME_SIZE 2^24; connection error PROTOCOL_ERROR. */
    @Test
    void s6_5_2_maxFrameSizeAboveTheMaximumIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(Frame.SETTINGS_MAX_FRAME_SIZE, 1 << 24);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.5.2/5: a setting of unknown identifier 0xff; ignored: a PING is answered. */
    @Test
    void s6_5_2_unknownSettingIsIgnored() throws IOException {
        try (H2Connection c = connect()) {
            c.settings(0xff, 1);
            expect(c, 0, Expectation.ignored());
        }
    }

    // ---- 6.7 PING

    /** 6.7/1: PING; answered with ACK and the same 8 bytes. */
    @Test
    void s6_7_pingIsAnsweredWithTheSamePayload() throws IOException {
        try (H2Connection c = connect()) {
            byte[] opaque = ascii("h2spec\0\0");
            c.ping(false, opaque);
            assertPingAck(c, opaque);
        }
    }

    /** 6.7/2: a PING with ACK (nothing to answer), then a PING; the only PING received answers the second. */
    @Test
    void s6_7_pingAckIsNotAnswered() throws IOException {
        try (H2Connection c = connect()) {
            c.ping(true, ascii("invalid\0"));
            byte[] opaque = ascii("expected");
            c.ping(false, opaque);
            assertPingAck(c, opaque);
        }
    }

    /** 6.7/3: PING on stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s6_7_pingOnAStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.PING, 0, 1, new byte[8]);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.7/4: PING of 6 bytes; connection error FRAME_SIZE_ERROR. */
    @Test
    void s6_7_pingOfWrongLengthIsAFrameSizeError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.PING, 0, 0, new byte[6]);
            expect(c, 0, connectionError(FRAME_SIZE_ERROR));
        }
    }

    // ---- 6.8 GOAWAY

    /** 6.8/1: GOAWAY on stream 1; connection error PROTOCOL_ERROR. */
    @Test
    void s6_8_goAwayOnAStreamIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.GOAWAY, 0, 1, new byte[8]);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.8 (generic): after a GET answered, the client's GOAWAY (NO_ERROR); a PING still answered, or a clean close. */
    @Test
    void s6_8_clientGoAwayIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            assertHello(c.response(1));
            c.goAway(0, ErrorCode.NO_ERROR);
            expect(c, 0, Expectation.ignored().or(Expectation.close()));
        }
    }

    // ---- 6.9 WINDOW_UPDATE

    /** 6.9/1: WINDOW_UPDATE of 0 on the connection; connection error PROTOCOL_ERROR. */
    @Test
    void s6_9_zeroIncrementOnTheConnectionIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.windowUpdate(0, 0);
            expect(c, 0, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.9/2: WINDOW_UPDATE of 0 on an open stream; stream error PROTOCOL_ERROR. */
    @Test
    void s6_9_zeroIncrementOnAStreamIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.windowUpdate(1, 0);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 6.9 (generic): WINDOW_UPDATE on the connection, then a GET and a WINDOW_UPDATE on its stream; answered as usual. */
    @Test
    void s6_9_windowUpdatesAreAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.windowUpdate(0, 1);
            c.request(1, "GET", SLOW, true);
            c.windowUpdate(1, 1);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("{\"delayed\":500}");
        }
    }

    /** 6.9/3: WINDOW_UPDATE of 3 bytes; connection error FRAME_SIZE_ERROR. */
    @Test
    void s6_9_windowUpdateOfWrongLengthIsAFrameSizeError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.WINDOW_UPDATE, 0, 0, new byte[] {0, 0, 1});
            expect(c, 0, connectionError(FRAME_SIZE_ERROR));
        }
    }

    // ---- 6.9.1 The Flow-Control Window

    /**
     * 6.9.1/1: SETTINGS_INITIAL_WINDOW_SIZE 5, then GET /plaintext (13 bytes); exactly 5 bytes of
     * DATA, nothing more for 500 ms, then the rest once a WINDOW_UPDATE opens the stream's window.
     */
    @Test
    void s6_9_1_serverSendsNoMoreThanTheWindowUntilAWindowUpdate() throws IOException {
        try (H2Connection c = connect(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 5)) {
            c.replenishWindows(false);
            c.request(1, "GET", "/plaintext", true);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (body.size() < 5) {
                Frame f = c.nextData(1);
                assertThat(f.has(Frame.END_STREAM)).as("the body ended within a window of 5: %s", f).isFalse();
                body.writeBytes(f.data());
                assertThat(body.size()).as("DATA bytes within a window of 5").isLessThanOrEqualTo(5);
            }
            c.expectNoDataFor(1, 500, "the stream's window of 5 bytes is spent");
            c.windowUpdate(1, 100);
            Frame f;
            do {
                f = c.nextData(1);
                body.writeBytes(f.data());
            } while (!f.has(Frame.END_STREAM));
            assertThat(body.toString(StandardCharsets.UTF_8)).isEqualTo(HELLO);
        }
    }

    /** 6.9.1/2: two WINDOW_UPDATEs of 2^31-1 on the connection; connection error FLOW_CONTROL_ERROR. */
    @Test
    void s6_9_1_connectionWindowPast2To31Minus1IsAFlowControlError() throws IOException {
        try (H2Connection c = connect()) {
            c.windowUpdate(0, Integer.MAX_VALUE);
            c.windowUpdate(0, Integer.MAX_VALUE);
            expect(c, 0, connectionError(FLOW_CONTROL_ERROR));
        }
    }

    /** 6.9.1/3: two WINDOW_UPDATEs of 2^31-1 on an open stream; stream error FLOW_CONTROL_ERROR. */
    @Test
    void s6_9_1_streamWindowPast2To31Minus1IsAFlowControlError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.windowUpdate(1, Integer.MAX_VALUE);
            c.windowUpdate(1, Integer.MAX_VALUE);
            expect(c, 1, streamError(1, FLOW_CONTROL_ERROR));
        }
    }

    /**
     * 6.9.1 (positive): POST /echo of 256 KiB, four times the initial window, sent as the server's
     * WINDOW_UPDATEs allow; echoed whole.
     */
    @Test
    void s6_9_1_requestBodyLargerThanTheWindowIsSentWithWindowUpdates() throws IOException {
        try (H2Connection c = connect()) {
            byte[] body = new byte[256 * 1024];
            new Random(27).nextBytes(body);
            c.request(1, "POST", "/echo", false, new Header("content-type", "application/octet-stream"),
                    new Header("content-length", Integer.toString(body.length)));
            c.body(1, body, true);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(body);
        }
    }

    // ---- 6.9.2 Initial Flow-Control Window Size

    /** 6.9.2/1: SETTINGS_INITIAL_WINDOW_SIZE 0, a GET (no DATA may come), then the setting raised to 1; a DATA frame of 1 byte. */
    @Test
    void s6_9_2_initialWindowSizeChangeAppliesToOpenStreams() throws IOException {
        try (H2Connection c = connect(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 0)) {
            c.replenishWindows(false);
            c.request(1, "GET", "/plaintext", true);
            c.expectNoDataFor(1, 300, "the window is 0");
            c.settings(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 1);
            assertThat(c.nextData(1).payload()).hasSize(1);
        }
    }

    /**
     * 6.9.2/2: window 3, a GET (3 bytes arrive), the setting lowered to 2 (the window goes to -1),
     * then WINDOW_UPDATE 2; exactly 1 more byte.
     */
    @Test
    void s6_9_2_settingsCanMakeTheWindowNegative() throws IOException {
        try (H2Connection c = connect(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 3)) {
            c.replenishWindows(false);
            c.request(1, "GET", "/plaintext", true);
            int received = 0;
            while (received < 3) {
                received += c.nextData(1).data().length;
            }
            c.settings(Frame.SETTINGS_INITIAL_WINDOW_SIZE, 2);
            c.awaitSettingsAck();
            c.windowUpdate(1, 2);
            assertThat(c.nextData(1).payload()).hasSize(1);
            c.expectNoDataFor(1, 300, "the window is spent again");
        }
    }

    /** 6.9.2/3: SETTINGS_INITIAL_WINDOW_SIZE 0x80000000 as raw bytes; connection error FLOW_CONTROL_ERROR. */
    @Test
    void s6_9_2_initialWindowSizeAboveTheMaximumIsAFlowControlError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.SETTINGS, 0, 0, new byte[] {0, 4, (byte) 0x80, 0, 0, 0});
            expect(c, 0, connectionError(FLOW_CONTROL_ERROR));
        }
    }

    // ---- 6.10 CONTINUATION

    /** 6.10/1: HEADERS without END_HEADERS, then two CONTINUATIONs, the second ending the block; answered as usual. */
    @Test
    void s6_10_continuationsCompleteAHeaderBlock() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.continuation(1, false, HpackLiterals.encode(List.of(new Header("x-dummy1", "x".repeat(100)))));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy2", "x".repeat(100)))));
            assertHello(c.response(1));
        }
    }

    /** 6.10/2: HEADERS and a CONTINUATION without END_HEADERS, then DATA; connection error PROTOCOL_ERROR. */
    @Test
    void s6_10_otherFrameAfterAnUnendedContinuationIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("POST", "/echo")));
            c.continuation(1, false, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            c.data(1, ascii("test"), true);
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.10/3: HEADERS without END_HEADERS, then CONTINUATION on stream 0; connection error PROTOCOL_ERROR. */
    @Test
    void s6_10_continuationOnStreamZeroIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM, HpackLiterals.encode(c.requestFields("GET", "/plaintext")));
            c.continuation(0, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.10/4: a complete HEADERS (END_HEADERS), then CONTINUATION; connection error PROTOCOL_ERROR. */
    @Test
    void s6_10_continuationAfterEndHeadersIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_HEADERS, HpackLiterals.encode(c.requestFields("POST", "/echo")));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.10/5: HEADERS, a CONTINUATION ending the block, then another CONTINUATION; connection error PROTOCOL_ERROR. */
    @Test
    void s6_10_continuationAfterAnEndedContinuationIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, 0, HpackLiterals.encode(c.requestFields("POST", "/echo")));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy1", "x"))));
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy2", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    /** 6.10/6: a POST's HEADERS and DATA, then CONTINUATION; connection error PROTOCOL_ERROR. */
    @Test
    void s6_10_continuationAfterDataIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false);
            c.data(1, ascii("test"), false);
            c.continuation(1, true, HpackLiterals.encode(List.of(new Header("x-dummy", "x"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    // ---- 8.1 HTTP Request/Response Exchange

    /** 8.1 (positive): GET /plaintext; 200, a content type, {@code Hello, World!}. */
    @Test
    void s8_1_getIsAnswered() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true);
            H2Response r = c.response(1);
            assertHello(r);
            assertThat(r.header("content-type")).startsWith("text/plain");
        }
    }

    /** 8.1 (generic): HEAD /plaintext; 200 ending the stream with no DATA, a content-length (if any) of the GET's body. */
    @Test
    void s8_1_headIsAnsweredWithoutABody() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "HEAD", "/plaintext", true);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEmpty();
            if (r.header("content-length") != null) {
                assertThat(r.header("content-length")).isEqualTo(Integer.toString(HELLO.length()));
            }
        }
    }

    /** 8.1 (positive): POST /echo with a text body; 200 with the same body and content type. */
    @Test
    void s8_1_postIsEchoed() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-type", "text/plain"), new Header("content-length", "11"));
            c.data(1, ascii("hello, h2c!"), true);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("hello, h2c!");
            assertThat(r.header("content-type")).startsWith("text/plain");
        }
    }

    /** 8.1 (positive): several requests one after the other on one connection, streams 1, 3, 5...; each answered. */
    @Test
    void s8_1_requestsFollowOneAnotherOnOneConnection() throws IOException {
        try (H2Connection c = connect()) {
            for (int stream = 1; stream <= 9; stream += 2) {
                c.request(stream, "GET", "/plaintext", true);
                assertHello(c.response(stream));
            }
        }
    }

    /** 8.1/1: a POST's HEADERS, DATA, then a second HEADERS without END_STREAM; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_secondHeadersWithoutEndStreamIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            postWithTrailers(c, List.of(new Header("x-test", "ok")), false);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 8.1 (generic): POST /echo with a body, then a trailer section ending the stream; echoed. */
    @Test
    void s8_1_trailersAreAccepted() throws IOException {
        try (H2Connection c = connect()) {
            postWithTrailers(c, List.of(new Header("x-trailer", "ok")), true);
            H2Response r = c.response(1);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyText()).isEqualTo("test");
        }
    }

    /**
     * 8.1 (Spindle's contract, as on HTTP/1.1): a stream whose blocking handler does not answer is
     * answered 503 at the handler timeout, while the handler still runs; the connection serves on.
     */
    @Test
    void s8_1_aStuckHandlerIsAnswered503AtTheHandlerTimeout() throws IOException {
        Duration timeout = Duration.ofMillis(500);
        CountDownLatch release = new CountDownLatch(1);
        try (Http2Defences.OwnServer own = withStuckHandler(timeout, release)) {
            Assumptions.assumeTrue(own != null, "the server's routes and handler timeout cannot be set");
            try (H2Connection c = own.open().handshake()) {
                long sent = System.nanoTime();
                c.request(1, "GET", "/stuck", true);
                H2Response r = c.response(1);
                Duration took = Duration.ofNanos(System.nanoTime() - sent);
                assertThat(r.status()).isEqualTo(503);
                assertThat(took).as("answered at the handler timeout").isBetween(timeout, timeout.plusMillis(2500));
                assertThat(release.getCount()).as("the handler still runs").isOne();
                c.request(3, "GET", "/plaintext", true);
                assertHello(c.response(3));
            }
        } finally {
            release.countDown();
        }
    }

    // ---- 8.1.2 HTTP Header Fields (RFC 9113 8.2)

    /** 8.1.2/1: a field name with upper-case letters ({@code X-TEST}); stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_uppercaseHeaderNameIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            fields.add(new Header("X-TEST", "ok"));
            c.headers(1, true, fields);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    // ---- 8.1.2.1 Pseudo-Header Fields (RFC 9113 8.3)

    /** 8.1.2.1/1: an unknown pseudo-header {@code :test}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_1_unknownPseudoHeaderIsAStreamError() throws IOException {
        malformedWith(new Header(":test", "ok"));
    }

    /** 8.1.2.1/2: the response pseudo-header {@code :status} in a request; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_1_responsePseudoHeaderInARequestIsAStreamError() throws IOException {
        malformedWith(new Header(":status", "200"));
    }

    /** 8.1.2.1/3: a trailer section with a pseudo-header ({@code :method}); stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_1_pseudoHeaderInTrailersIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            postWithTrailers(c, List.of(new Header(":method", "POST")), true);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 8.1.2.1/4: a regular field before the pseudo-headers; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_1_pseudoHeaderAfterARegularFieldIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = new ArrayList<>(List.of(new Header("x-test", "ok")));
            fields.addAll(c.requestFields("GET", "/plaintext"));
            c.headers(1, true, fields);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** A GET /plaintext with {@code extra} after its pseudo-headers: a stream error PROTOCOL_ERROR. */
    private void malformedWith(Header extra) throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            fields.add(extra);
            c.headers(1, true, fields);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    // ---- 8.1.2.2 Connection-Specific Header Fields (RFC 9113 8.2.2)

    /** 8.1.2.2/1: {@code connection: keep-alive}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_2_connectionSpecificFieldIsAStreamError() throws IOException {
        malformedWith(new Header("connection", "keep-alive"));
    }

    /** 8.1.2.2/2: {@code te: trailers, deflate}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_2_teOtherThanTrailersIsAStreamError() throws IOException {
        malformedWith(new Header("te", "trailers, deflate"));
    }

    /** 8.1.2.2 (positive): {@code te: trailers}, the one TE allowed; answered as usual. */
    @Test
    void s8_1_2_2_teTrailersIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "GET", "/plaintext", true, new Header("te", "trailers"));
            assertHello(c.response(1));
        }
    }

    // ---- 8.1.2.3 Request Pseudo-Header Fields (RFC 9113 8.3.1)

    /** 8.1.2.3/1: an empty {@code :path}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_emptyPathIsAStreamError() throws IOException {
        requestWithout(":path", new Header(":path", ""));
    }

    /** 8.1.2.3/2: no {@code :method}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_missingMethodIsAStreamError() throws IOException {
        requestWithout(":method", null);
    }

    /** 8.1.2.3/3: no {@code :scheme}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_missingSchemeIsAStreamError() throws IOException {
        requestWithout(":scheme", null);
    }

    /** 8.1.2.3/4: no {@code :path}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_missingPathIsAStreamError() throws IOException {
        requestWithout(":path", null);
    }

    /** 8.1.2.3/5: {@code :method} twice; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_duplicateMethodIsAStreamError() throws IOException {
        duplicate(":method");
    }

    /** 8.1.2.3/6: {@code :scheme} twice; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_duplicateSchemeIsAStreamError() throws IOException {
        duplicate(":scheme");
    }

    /** 8.1.2.3/7: {@code :path} twice; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_duplicatePathIsAStreamError() throws IOException {
        duplicate(":path");
    }

    /** 8.1.2.3 (RFC 9113 8.3.1): a {@code host} naming another server than {@code :authority}; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_3_hostUnlikeAuthorityIsAStreamError() throws IOException {
        malformedWith(new Header("host", "unlike.example"));
    }

    /** 8.1.2.3 (RFC 9113 8.3.1, positive): a {@code host} equal to {@code :authority}; answered as usual. */
    @Test
    void s8_1_2_3_hostLikeAuthorityIsAccepted() throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            String authority = field(fields, ":authority").value();
            fields.add(new Header("host", authority));
            c.headers(1, true, fields);
            assertHello(c.response(1));
        }
    }

    /** A GET /plaintext with the pseudo-header {@code name} replaced by {@code instead} (null: left out). */
    private void requestWithout(String name, Header instead) throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = new ArrayList<>();
            for (Header h : c.requestFields("GET", "/plaintext")) {
                if (!h.name().equals(name)) {
                    fields.add(h);
                } else if (instead != null) {
                    fields.add(instead);
                }
            }
            c.headers(1, true, fields);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** The first of {@code fields} named {@code name}. */
    private static Header field(List<Header> fields, String name) {
        return fields.stream().filter(h -> h.name().equals(name)).findFirst().orElseThrow();
    }

    private void duplicate(String name) throws IOException {
        try (H2Connection c = connect()) {
            List<Header> fields = c.requestFields("GET", "/plaintext");
            Header again = field(fields, name);
            fields.add(fields.indexOf(again) + 1, again);
            c.headers(1, true, fields);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    // ---- 8.1.2.6 Malformed Requests and Responses (RFC 9113 8.1.1)

    /** 8.1.2.6/1: {@code content-length: 1} and a DATA frame of 4 bytes; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_6_contentLengthUnlikeTheDataIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-length", "1"));
            c.data(1, ascii("test"), true);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 8.1.2.6/2: {@code content-length: 1} and two DATA frames of 4 bytes; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_6_contentLengthUnlikeTheSumOfTheDataIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-length", "1"));
            c.data(1, ascii("test"), false);
            c.data(1, ascii("test"), true);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    /** 8.1.2.6 (more): {@code content-length: 10} and the stream ended after 4 bytes; stream error PROTOCOL_ERROR. */
    @Test
    void s8_1_2_6_bodyShorterThanContentLengthIsAStreamError() throws IOException {
        try (H2Connection c = connect()) {
            c.request(1, "POST", "/echo", false, new Header("content-length", "10"));
            c.data(1, ascii("test"), true);
            expect(c, 1, streamError(1, PROTOCOL_ERROR));
        }
    }

    // ---- 8.2 Server Push

    /** 8.2/1: a PUSH_PROMISE from the client; connection error PROTOCOL_ERROR. */
    @Test
    void s8_2_pushPromiseFromTheClientIsAConnectionError() throws IOException {
        try (H2Connection c = connect()) {
            c.writeFrame(Frame.PUSH_PROMISE, Frame.END_HEADERS, 1,
                    concat(new byte[] {0, 0, 0, 3}, HpackLiterals.encode(c.requestFields("GET", "/plaintext"))));
            expect(c, 1, connectionError(PROTOCOL_ERROR));
        }
    }

    // ---- HPACK (RFC 7541)

    /** A GET /plaintext whose header block is the literal pseudo-headers with {@code before} in front and {@code after} behind. */
    private static byte[] block(H2Connection c, byte[] before, byte[] after) {
        return concat(before, HpackLiterals.encode(c.requestFields("GET", "/plaintext")), after);
    }

    /** Sends a GET /plaintext whose block has {@code before} and {@code after} around its pseudo-headers; expects a connection error COMPRESSION_ERROR. */
    private void badBlock(byte[] before, byte[] after) throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS, block(c, before, after));
            expect(c, 1, connectionError(COMPRESSION_ERROR));
        }
    }

    /** Sends a GET /plaintext whose block has {@code before} and {@code after} around its pseudo-headers; expects it answered. */
    private void goodBlock(byte[] before, byte[] after) throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS, block(c, before, after));
            assertHello(c.response(1));
        }
    }

    /** HPACK 2.3.3/1: an indexed field of index 70, past the static table and the empty dynamic one; COMPRESSION_ERROR. */
    @Test
    void hpack2_3_3_indexPastTheTableIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("c6"));
    }

    /** HPACK 2.3.3/2: a literal whose name index is 70; COMPRESSION_ERROR. */
    @Test
    void hpack2_3_3_literalNameIndexPastTheTableIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("7f 07 00"));
    }

    /** HPACK 4.2/1: a dynamic table size update after a field, at the end of the block; COMPRESSION_ERROR. */
    @Test
    void hpack4_2_sizeUpdateAfterAFieldIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("21"));
    }

    /** HPACK 5.2/1: a Huffman string padded with more than 7 bits; COMPRESSION_ERROR. */
    @Test
    void hpack5_2_huffmanPaddingLongerThan7BitsIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("00 85 f2 b2 4a 84 ff 84 49 50 9f ff"));
    }

    /** HPACK 5.2/2: a Huffman string padded with zeros instead of the EOS prefix; COMPRESSION_ERROR. */
    @Test
    void hpack5_2_huffmanPaddedByZerosIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("00 85 f2 b2 4a 84 ff 83 49 50 90"));
    }

    /** HPACK 5.2/3: a Huffman string containing the EOS symbol; COMPRESSION_ERROR. */
    @Test
    void hpack5_2_huffmanWithEosIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("00 85 f2 b2 4a 84 ff 87 49 51 ff ff ff fa 7f"));
    }

    /** HPACK 6.1/1: an indexed field of index 0; COMPRESSION_ERROR. */
    @Test
    void hpack6_1_indexZeroIsACompressionError() throws IOException {
        badBlock(new byte[0], hex("80"));
    }

    /** HPACK 6.3/1: a size update to 4,097, above SETTINGS_HEADER_TABLE_SIZE (4,096 by default); COMPRESSION_ERROR. */
    @Test
    void hpack6_3_sizeUpdateAboveTheLimitIsACompressionError() throws IOException {
        badBlock(HpackLiterals.integer(4097, 5, 0x20), new byte[0]);
    }

    /** HPACK 6.1 (generic): an indexed field from the static table (16, accept-encoding: gzip, deflate); answered. */
    @Test
    void hpack6_1_indexedFieldIsDecoded() throws IOException {
        goodBlock(new byte[0], hex("90"));
    }

    /** HPACK 6.2.1 (generic): literals with incremental indexing, an indexed name (58, user-agent) and a new name; answered. */
    @Test
    void hpack6_2_1_literalsWithIncrementalIndexingAreDecoded() throws IOException {
        goodBlock(new byte[0], concat(hex("7a 02"), ascii("h2"), hex("40 0a"), ascii("custom-key"), hex("0c"), ascii("custom-value")));
    }

    /** HPACK 6.2.2 (generic): literals without indexing, an indexed name and a new name; answered. */
    @Test
    void hpack6_2_2_literalsWithoutIndexingAreDecoded() throws IOException {
        goodBlock(new byte[0], concat(hex("0f 2b 02"), ascii("h2"), hex("00 0a"), ascii("custom-key"), hex("0c"), ascii("custom-value")));
    }

    /** HPACK 6.2.3 (generic): literals never indexed, an indexed name and a new name; answered. */
    @Test
    void hpack6_2_3_literalsNeverIndexedAreDecoded() throws IOException {
        goodBlock(new byte[0], concat(hex("1f 2b 02"), ascii("h2"), hex("10 0a"), ascii("custom-key"), hex("0c"), ascii("custom-value")));
    }

    /** HPACK 5.2 (generic): a Huffman-coded name and value (RFC 7541 C.4.3's custom-key: custom-value); answered. */
    @Test
    void hpack5_2_huffmanStringsAreDecoded() throws IOException {
        goodBlock(new byte[0], hex("40 88 25 a8 49 e9 5b a9 7d 7f 89 25 a8 49 e9 5b b8 e8 b4 bf"));
    }

    /** HPACK 6.3 (generic): size updates to 0 then 4,096 at the start of the block; answered. */
    @Test
    void hpack6_3_sizeUpdatesAtTheStartAreAccepted() throws IOException {
        goodBlock(concat(HpackLiterals.integer(0, 5, 0x20), HpackLiterals.integer(4096, 5, 0x20)), new byte[0]);
    }

    /**
     * HPACK 2.3.2 (generic): a field added to the dynamic table on stream 1 and referred to by index
     * 62 on stream 3; both answered, the server keeping its table across requests.
     */
    @Test
    void hpack2_3_2_dynamicTableEntriesAreReused() throws IOException {
        try (H2Connection c = connect()) {
            c.headersBlock(1, Frame.END_STREAM | Frame.END_HEADERS,
                    block(c, new byte[0], concat(hex("40 08"), ascii("x-reused"), hex("03"), ascii("yes"))));
            assertHello(c.response(1));
            c.headersBlock(3, Frame.END_STREAM | Frame.END_HEADERS, block(c, new byte[0], hex("be")));
            assertHello(c.response(3));
        }
    }
}
