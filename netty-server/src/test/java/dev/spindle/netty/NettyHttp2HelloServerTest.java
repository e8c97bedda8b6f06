// SPDX-License-Identifier: Apache-2.0
package dev.spindle.netty;

import static dev.spindle.netty.RawH2c.getBlock;
import static dev.spindle.netty.RawH2c.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The h2 yardstick answers a prior-knowledge h2c GET as {@link NettyServer} answers
 * {@code /plaintext}: 200, {@code text/plain; charset=utf-8}, {@code Hello, World!} (the same raw
 * frames as {@link NettyServerHttp2Test}, for any path).
 */
class NettyHttp2HelloServerTest {
    private static NettyHttp2HelloServer server;

    @BeforeAll
    static void start() throws IOException {
        server = new NettyHttp2HelloServer("127.0.0.1", 0, 1).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void answersAPriorKnowledgeGet() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.address().getPort())) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            writeFrame(out, 0x4, 0, 0, new byte[0]);
            for (int stream : new int[] {1, 3}) {
                writeFrame(out, 0x1, 0x5, stream, getBlock(stream == 1 ? "/plaintext" : "/anything")); // HEADERS, END_STREAM | END_HEADERS
            }
            out.flush();

            DataInputStream in = new DataInputStream(socket.getInputStream());
            ByteArrayOutputStream[] data = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
            byte[][] headerBlocks = new byte[2][];
            int ended = 0;
            while (ended < 2) {
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
                if (stream != 1 && stream != 3) {
                    continue;
                }
                int i = stream / 2;
                if (type == 0x1) {
                    headerBlocks[i] = payload;
                } else if (type == 0x0) {
                    data[i].write(payload);
                }
                if ((type == 0x0 || type == 0x1) && (flags & 0x1) != 0) {
                    ended++;
                }
            }
            for (int i = 0; i < 2; i++) {
                assertThat(headerBlocks[i][0] & 0xff).as(":status 200 as an indexed field").isEqualTo(0x88);
                assertThat(data[i].toString(StandardCharsets.UTF_8)).isEqualTo("Hello, World!");
            }
            // the type goes as a literal on the first stream (HPACK may index it for the next)
            assertThat(new String(headerBlocks[0], StandardCharsets.ISO_8859_1)).contains("text/plain; charset=utf-8");
        }
    }
}
