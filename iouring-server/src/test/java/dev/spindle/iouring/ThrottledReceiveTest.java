// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Handler;
import dev.spindle.core.Response;
import dev.spindle.core.RouteOptions;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An upload faster than its blocking handler reads it: the ring stops receiving while the body's
 * window is full, then receives one buffer at a time until the connection is idle again (so a
 * re-armed receive does not pour the socket's backlog into the connection), and the body arrives
 * byte for byte; the next request on the connection is served as usual.
 */
@Timeout(120)
class ThrottledReceiveTest {
    private static final int BODY = 8 * 1024 * 1024;

    @BeforeEach
    void requireIoUring() {
        IoUringTests.assumeAvailable();
    }

    @Test
    void aLaggingBodyConsumerGetsSingleShotReceivesAndTheWholeBody() throws Exception {
        byte[] body = new byte[BODY];
        new Random(11).nextBytes(body);
        CRC32 expected = new CRC32();
        expected.update(body);
        Router router = Router.builder()
                .post("/crc", Handler.blocking((req, res) -> {
                    CRC32 crc = new CRC32();
                    byte[] piece = new byte[8192];
                    long read = 0;
                    try (InputStream in = req.bodyStream()) {
                        for (int n; (n = in.read(piece)) > 0; read += n) {
                            crc.update(piece, 0, n);
                            if (read % (512 * 1024) < n) {
                                // a consumer slower than loopback, so the body's window fills
                                Thread.sleep(20);
                            }
                        }
                    }
                    res.contentType(Response.TEXT_PLAIN).body(Long.toHexString(crc.getValue()));
                }), RouteOptions.defaults().maxBodySize(2L * BODY))
                .get("/ping", (req, res) -> res.contentType(Response.TEXT_PLAIN).body("pong"))
                .build();

        try (IoUringServer server = (IoUringServer) new IoUringServer(ServerConfig.defaults().port(0).workers(1), router).start();
                Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /crc HTTP/1.1\r\nHost: x\r\nContent-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            assertThat(response(in)).endsWith("\r\n\r\n" + Long.toHexString(expected.getValue()));

            RingTransfers transfers = server.workers().getFirst().transfers;
            assertThat(transfers.backPressureCancels).as("receives cancelled while the body's window was full").isPositive();
            assertThat(transfers.throttledRecvs).as("single-shot receives while the consumer lagged").isPositive();

            out.write("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(response(in)).startsWith("HTTP/1.1 200").endsWith("pong");
        }
    }

    /** One response with a Content-Length body, as text. */
    private static String response(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            assertThat(b).as("the connection stays open").isNotNegative();
            head.append((char) b);
        }
        int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
        int length = Integer.parseInt(head.substring(at, head.indexOf("\r\n", at)).trim());
        return head + new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }
}
