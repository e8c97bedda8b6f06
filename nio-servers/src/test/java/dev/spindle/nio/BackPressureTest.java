// SPDX-License-Identifier: Apache-2.0
package dev.spindle.nio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.SlowClient;
import dev.spindle.core.HttpServer;
import dev.spindle.core.ServerConfig;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
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

        try (HttpServer server = new SingleLoopServer(ServerConfig.defaults().port(0), BenchmarkApp.routes()).start();
                Socket slow = new Socket()) {
            slow.setReceiveBufferSize(64 * 1024);
            slow.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            slow.setSoTimeout(30_000);
            SlowClient.EchoFlood flood = SlowClient.startEchoFlood(slow, body, PIPELINED);
            AtomicLong sent = flood.bodyBytesSent();
            AtomicReference<Throwable> writeFailure = flood.failure();
            Thread writer = flood.writer();
            long total = flood.totalBytes();

            // While the slow connection's output is stuck, another client is answered.
            SlowClient.servedPromptly(server.port(), 20);
            Thread.sleep(1500);
            assertThat(sent.get()).as("bytes the slow client could push while not reading").isLessThan(total);
            assertThat(writer.isAlive()).isTrue();

            InputStream in = new BufferedInputStream(slow.getInputStream(), 64 * 1024);
            // The first response is read slowly, while another client keeps being served.
            Thread other = Thread.ofVirtual().start(() -> {
                try {
                    SlowClient.servedPromptly(server.port(), 10);
                } catch (Exception e) {
                    writeFailure.compareAndSet(null, e);
                }
            });
            assertThat(SlowClient.readOk(in, BODY, true)).isEqualTo(body);
            other.join(30_000);
            for (int i = 1; i < PIPELINED; i++) {
                assertThat(Arrays.equals(SlowClient.readOk(in, BODY, false), body)).as("response %d", i).isTrue();
            }
            writer.join(30_000);
            assertThat(writeFailure.get()).isNull();
            assertThat(sent.get()).isEqualTo((long) PIPELINED * BODY);
        }
    }
}
