// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static dev.spindle.netty.RawH2c.getBlock;
import static dev.spindle.netty.RawH2c.literal;
import static dev.spindle.netty.RawH2c.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Netty reference's h2c, both ways in, on the benchmark routes the h2 scenarios use: the JDK
 * client asking {@code Upgrade: h2c} (answered in HTTP/2 on stream 1), and a connection opening
 * with the preface (prior knowledge, as h2load does), read frame by frame; {@code /echo} gathering a
 * body over h2, and a stream reset while its {@code /delay} answer is pending.
 */
class NettyServerHttp2Test {
    private static NettyServer server;

    @BeforeAll
    static void start() throws IOException {
        server = new NettyServer("127.0.0.1", 0, 1).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** path, status, body, the static-table index HPACK sends that status as (RFC 7541 Appendix A). */
    static Stream<Arguments> routes() {
        return Stream.of(
                Arguments.of("/plaintext", 200, "Hello, World!", 8),
                Arguments.of("/json", 200, "{\"message\":\"Hello, World!\"}", 8),
                Arguments.of("/delay/20", 200, "{\"delayed\":20}", 8),
                Arguments.of("/users/42", 200, "{\"id\":\"42\"}", 8),
                Arguments.of("/no-such-route", 404, "", 13));
    }

    @ParameterizedTest(name = "Upgrade: h2c, GET {0} -> {1}")
    @MethodSource("routes")
    void upgradeAnswersInHttp2(String path, int status, String body, int statusIndex) throws Exception {
        // a new client per case, so that every case goes through the upgrade
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(response.statusCode()).isEqualTo(status);
            assertThat(response.body()).isEqualTo(body);
        }
    }

    @ParameterizedTest(name = "prior knowledge, GET {0} -> {1}")
    @MethodSource("routes")
    void priorKnowledgeAnswersOnItsStream(String path, int status, String body, int statusIndex) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            writeFrame(out, 0x4, 0, 0, new byte[0]);
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(0x82); // :method GET
            block.write(0x86); // :scheme http
            literal(block, 4, path); // :path, literal without indexing, indexed name
            literal(block, 1, "127.0.0.1"); // :authority
            writeFrame(out, 0x1, 0x5, 1, block.toByteArray()); // HEADERS, END_STREAM | END_HEADERS
            out.flush();

            DataInputStream in = new DataInputStream(socket.getInputStream());
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            int firstHeaderByte = -1;
            boolean ended = false;
            while (!ended) {
                int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fffffff;
                byte[] payload = in.readNBytes(length);
                if (type == 0x4 && (flags & 0x1) == 0) {
                    writeFrame(out, 0x4, 0x1, 0, new byte[0]); // SETTINGS ACK
                    out.flush();
                }
                assertThat(type).as("no GOAWAY or RST_STREAM").isNotIn(0x3, 0x7);
                if (stream != 1) {
                    continue;
                }
                if (type == 0x1 && firstHeaderByte < 0) {
                    firstHeaderByte = payload[0] & 0xff;
                } else if (type == 0x0) {
                    data.write(payload);
                }
                ended = (type == 0x0 || type == 0x1) && (flags & 0x1) != 0;
            }
            assertThat(firstHeaderByte).as(":status %d as an indexed field", status).isEqualTo(0x80 | statusIndex);
            assertThat(data.toString(StandardCharsets.UTF_8)).isEqualTo(body);
        }
    }

    /** {@code /echo} over h2: the client's first request upgrades, its POST then goes on a stream of that connection. */
    @Test
    void echoGathersTheBodyOverHttp2() throws Exception {
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            client.send(HttpRequest.newBuilder(uri("/plaintext")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
            String body = "x".repeat(100_000);
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/echo")).timeout(Duration.ofSeconds(5))
                    .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("text/plain");
            assertThat(response.body()).isEqualTo(body);
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(uri("/echo")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.headers().firstValue("allow")).hasValue("POST");
        }
    }

    /**
     * A stream reset while its {@code /delay} answer is pending gets nothing when the timer fires,
     * and the connection goes on: a later stream is answered, no GOAWAY.
     */
    @Test
    void resetWhileDelayedWritesNothingToTheDeadStream() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            writeFrame(out, 0x4, 0, 0, new byte[0]);
            writeFrame(out, 0x1, 0x5, 1, getBlock("/delay/100"));
            writeFrame(out, 0x3, 0, 1, new byte[] {0, 0, 0, 0x8}); // RST_STREAM CANCEL
            out.flush();
            Thread.sleep(300); // the timer has fired
            writeFrame(out, 0x1, 0x5, 3, getBlock("/plaintext"));
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            boolean ended = false;
            while (!ended) {
                int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fffffff;
                byte[] payload = in.readNBytes(length);
                if (type == 0x4 && (flags & 0x1) == 0) {
                    writeFrame(out, 0x4, 0x1, 0, new byte[0]);
                    out.flush();
                }
                assertThat(type).as("no GOAWAY").isNotEqualTo(0x7);
                assertThat(stream).as("nothing on the reset stream").isNotEqualTo(1);
                if (stream == 3 && type == 0x0) {
                    data.write(payload);
                }
                ended = stream == 3 && (type == 0x0 || type == 0x1) && (flags & 0x1) != 0;
            }
            assertThat(data.toString(StandardCharsets.UTF_8)).isEqualTo("Hello, World!");
        }
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.address().getPort() + path);
    }
}
