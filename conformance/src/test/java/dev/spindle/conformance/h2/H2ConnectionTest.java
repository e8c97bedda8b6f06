// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import static dev.spindle.conformance.h2.ErrorCode.FRAME_SIZE_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.PROTOCOL_ERROR;
import static dev.spindle.conformance.h2.ErrorCode.STREAM_CLOSED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The HTTP/2 client's verdicts, against a scripted server that sends exactly what each row says: a
 * case passes only on what its {@link Expectation} accepts, and fails (never hangs) on anything else.
 */
@Timeout(30)
class H2ConnectionTest {
    private static final int TIMEOUT = 700;

    /** What the scripted server does once the handshake is over. */
    private record Script(List<byte[]> frames, boolean answersPings, boolean closes) {
        static Script of(boolean answersPings, boolean closes, byte[]... frames) {
            return new Script(List.of(frames), answersPings, closes);
        }
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        return ByteBuffer.allocate(9 + payload.length).put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8))
                .put((byte) payload.length).put((byte) type).put((byte) flags).putInt(stream).put(payload).array();
    }

    private static byte[] goAway(ErrorCode code) {
        return frame(Frame.GOAWAY, 0, 0, ByteBuffer.allocate(8).putInt(1).putInt(code.code()).array());
    }

    private static byte[] rst(int stream, ErrorCode code) {
        return frame(Frame.RST_STREAM, 0, stream, ByteBuffer.allocate(4).putInt(code.code()).array());
    }

    static Stream<Arguments> verdicts() {
        Script goAwayThenClose = Script.of(false, true, goAway(PROTOCOL_ERROR));
        Script goAwayStaysOpen = Script.of(true, false, goAway(PROTOCOL_ERROR));
        Script bareClose = Script.of(false, true);
        Script resetThenServes = Script.of(true, false, rst(1, STREAM_CLOSED));
        Script resetThenCloses = Script.of(false, true, rst(1, STREAM_CLOSED));
        Script ignores = Script.of(true, false);
        return Stream.of(
                Arguments.of("GOAWAY, close: the connection error", goAwayThenClose, Expectation.connectionError(PROTOCOL_ERROR), true),
                Arguments.of("GOAWAY, close: another code", goAwayThenClose, Expectation.connectionError(FRAME_SIZE_ERROR), false),
                Arguments.of("GOAWAY, close: not a stream error", goAwayThenClose, Expectation.streamError(1, PROTOCOL_ERROR), false),
                Arguments.of("GOAWAY, close: either kind", goAwayThenClose, Expectation.streamOrConnectionError(1, PROTOCOL_ERROR), true),
                Arguments.of("GOAWAY, stays open: no close", goAwayStaysOpen, Expectation.connectionError(PROTOCOL_ERROR), false),
                Arguments.of("bare close: no GOAWAY", bareClose, Expectation.connectionError(PROTOCOL_ERROR), false),
                Arguments.of("bare close: a close", bareClose, Expectation.close(), true),
                Arguments.of("bare close: not ignored", bareClose, Expectation.ignored(), false),
                Arguments.of("RST, serves on: the stream error", resetThenServes, Expectation.streamError(1, STREAM_CLOSED), true),
                Arguments.of("RST, serves on: another code", resetThenServes, Expectation.streamError(1, PROTOCOL_ERROR), false),
                Arguments.of("RST, serves on: another stream", resetThenServes, Expectation.streamError(3, STREAM_CLOSED), false),
                Arguments.of("RST, serves on: not a connection error", resetThenServes, Expectation.connectionError(STREAM_CLOSED), false),
                Arguments.of("RST, closes: the connection must go on", resetThenCloses, Expectation.streamError(1, STREAM_CLOSED), false),
                Arguments.of("nothing: ignored", ignores, Expectation.ignored(), true),
                Arguments.of("nothing: no error", ignores, Expectation.connectionError(PROTOCOL_ERROR), false),
                Arguments.of("nothing: ignored or closed", ignores, Expectation.ignored().or(Expectation.close()), true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("verdicts")
    void expectAcceptsExactlyWhatItSays(String name, Script script, Expectation expected, boolean passes) throws Exception {
        try (ScriptedServer server = ScriptedServer.start(script);
             H2Connection c = new H2Connection(new Socket(InetAddress.getLoopbackAddress(), server.port()), "x", TIMEOUT)) {
            c.handshake();
            if (passes) {
                c.expect(expected);
            } else {
                assertThatThrownBy(() -> c.expect(expected)).as(name).isInstanceOf(AssertionError.class);
            }
        }
    }

    /** A server that answers the preface in HTTP/1.1 (Spindle before HTTP/2) fails the handshake saying so. */
    @Test
    void anHttp11AnswerFailsTheHandshakeSayingSo() throws Exception {
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> {
                try (Socket s = listening.accept()) {
                    s.getInputStream().readNBytes(H2Connection.PREFACE.length);
                    s.getOutputStream().write("HTTP/1.1 505 HTTP Version Not Supported\r\nContent-Length: 0\r\n\r\n".getBytes());
                    s.getInputStream().read();
                } catch (IOException e) {
                    // the client gave up
                }
            });
            try (H2Connection c = new H2Connection(new Socket(InetAddress.getLoopbackAddress(), listening.getLocalPort()), "x", TIMEOUT)) {
                assertThatThrownBy(c::handshake).isInstanceOf(AssertionError.class).hasMessageContaining("HTTP/1.x, not HTTP/2");
            }
            server.join(5_000);
        }
    }

    /** RFC 7541 C.1's integers, and a field block Netty's decoder reads back as the fields encoded. */
    @ParameterizedTest(name = "{0} in a {1}-bit prefix")
    @CsvSource({"10, 5, 0a", "1337, 5, 1f9a0a", "42, 8, 2a", "31, 5, 1f00", "4097, 5, 1fe21f"})
    void integersAreEncodedAsRfc7541Says(long value, int prefix, String hex) {
        assertThat(HexFormat.of().formatHex(HpackLiterals.integer(value, prefix, 0))).isEqualTo(hex);
    }

    @Test
    void literalBlocksDecodeToTheFieldsEncoded() throws Exception {
        List<Header> fields = List.of(new Header(":method", "GET"), new Header(":path", "/" + "p".repeat(300)),
                new Header("x-a", ""), new Header("x-b", "v"));
        ByteBuf block = Unpooled.wrappedBuffer(HpackLiterals.encode(fields));
        Http2Headers decoded = new DefaultHttp2HeadersDecoder(false).decodeHeaders(1, block);
        List<Header> back = new ArrayList<>();
        decoded.forEach(e -> back.add(new Header(e.getKey().toString(), e.getValue().toString())));
        assertThat(back).containsExactlyElementsOf(fields);
    }

    /** A one-connection server: the handshake, then its script. */
    private static final class ScriptedServer implements AutoCloseable {
        private final ServerSocket listening;
        private final Thread thread;

        private ScriptedServer(ServerSocket listening, Script script) {
            this.listening = listening;
            this.thread = Thread.ofVirtual().start(() -> serve(script));
        }

        static ScriptedServer start(Script script) throws IOException {
            return new ScriptedServer(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()), script);
        }

        int port() {
            return listening.getLocalPort();
        }

        private void serve(Script script) {
            try (Socket s = listening.accept()) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                in.readFully(new byte[H2Connection.PREFACE.length]);
                out.write(frame(Frame.SETTINGS, 0, 0, new byte[0]));
                for (byte[] f : script.frames()) {
                    out.write(f);
                }
                boolean acked = false;
                while (true) {
                    byte[] header = new byte[9];
                    in.readFully(header);
                    byte[] payload = new byte[((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff)];
                    in.readFully(payload);
                    int type = header[3];
                    if (type == Frame.SETTINGS && (header[4] & Frame.ACK) == 0 && !acked) {
                        out.write(frame(Frame.SETTINGS, Frame.ACK, 0, new byte[0]));
                        acked = true;
                        if (script.closes()) {
                            return;
                        }
                    } else if (type == Frame.PING && (header[4] & Frame.ACK) == 0 && script.answersPings()) {
                        out.write(frame(Frame.PING, Frame.ACK, 0, payload));
                    }
                }
            } catch (IOException e) {
                // the client closed: the script is over
            }
        }

        @Override
        public void close() throws Exception {
            listening.close();
            thread.join(5_000);
        }
    }
}
