package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.BenchmarkApp;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.conformance.RawConnection;
import dev.spindle.core.conformance.SlowReader;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An 8 MiB echo to a client that reads slowly, with many more such requests pipelined behind it,
 * on a single loop: the server must stop reading that connection while its output is stuck (so
 * the pipelined bytes cannot all be sent), and keep serving another client meanwhile.
 */
@Timeout(120)
class BackPressureTest {
    private static final int BODY = 8 * 1024 * 1024;
    /**
     * Requests pipelined on the slow connection. Kernel buffers on loopback can hold tens of MiB
     * (tcp_rmem max is often 32 MiB) and the server legitimately holds one request and one
     * response; 12 × 8 MiB = 96 MiB is far beyond all of that.
     */
    private static final int PIPELINED = 12;

    @Test
    void slowReaderNeitherBuffersUnboundedlyNorStallsOthers() throws Exception {
        byte[] body = new byte[BODY];
        new Random(7).nextBytes(body);
        byte[] head = ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                + BODY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        long total = (long) PIPELINED * (head.length + BODY);

        try (HttpServer server = new SingleLoopServer(ServerConfig.port(0), BenchmarkApp.routes()).start();
                Socket slow = new Socket()) {
            slow.setReceiveBufferSize(64 * 1024);
            slow.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            slow.setSoTimeout(30_000);
            AtomicLong sent = new AtomicLong();
            AtomicReference<Throwable> writeFailure = new AtomicReference<>();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    OutputStream out = slow.getOutputStream();
                    for (int i = 0; i < PIPELINED; i++) {
                        out.write(head);
                        for (int off = 0; off < BODY; off += 64 * 1024) {
                            out.write(body, off, 64 * 1024);
                            sent.addAndGet(64 * 1024);
                        }
                    }
                } catch (Throwable t) {
                    writeFailure.set(t);
                }
            });

            // While the slow connection's output is stuck, another client is answered.
            servedPromptly(server.port(), 20);
            Thread.sleep(1500);
            assertThat(sent.get()).as("bytes the slow client could push while not reading").isLessThan(total);
            assertThat(writer.isAlive()).isTrue();

            InputStream in = new BufferedInputStream(slow.getInputStream(), 64 * 1024);
            // The first response is read slowly, while another client keeps being served.
            Thread other = Thread.ofVirtual().start(() -> {
                try {
                    servedPromptly(server.port(), 10);
                } catch (Exception e) {
                    writeFailure.compareAndSet(null, e);
                }
            });
            assertThat(SlowReader.readOk(in, BODY, true)).isEqualTo(body);
            other.join(30_000);
            for (int i = 1; i < PIPELINED; i++) {
                assertThat(Arrays.equals(SlowReader.readOk(in, BODY, false), body)).as("response %d", i).isTrue();
            }
            writer.join(30_000);
            assertThat(writeFailure.get()).isNull();
            assertThat(sent.get()).isEqualTo((long) PIPELINED * BODY);
        }
    }

    /** {@code count} requests on a fresh connection, each answered within the client's read timeout. */
    private static void servedPromptly(int port, int count) throws IOException {
        try (RawConnection c = new RawConnection(port)) {
            for (int i = 0; i < count; i++) {
                RawConnection.RawResponse r = c.send("GET /users/" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
            }
        }
    }
}
