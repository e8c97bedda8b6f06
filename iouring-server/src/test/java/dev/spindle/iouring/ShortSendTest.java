// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.benchmark.BenchmarkApp;
import dev.spindle.conformance.SlowClient;
import dev.spindle.core.ServerConfig;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 8 MiB echoes to a client that reads slowly, with more of them pipelined behind, on one ring:
 * sends come back short and their remainder is resubmitted, the server stops receiving on that
 * connection while its output is backed up (so the pipelined bytes cannot all be sent), and
 * another client is served meanwhile. Every echo arrives byte for byte.
 */
@Timeout(120)
class ShortSendTest {
    private static final int BODY = 8 * 1024 * 1024;
    /** 12 x 8 MiB = 96 MiB: far beyond what loopback socket buffers and the server may hold. */
    private static final int PIPELINED = 12;

    @BeforeEach
    void requireIoUring() {
        IoUringTests.assumeAvailable();
    }

    @Test
    void slowReaderGetsShortSendsResumedWhileOthersAreServed() throws Exception {
        byte[] body = new byte[BODY];
        new Random(7).nextBytes(body);

        try (IoUringServer server = (IoUringServer) new IoUringServer(ServerConfig.defaults().port(0).workers(1), BenchmarkApp.routes()).start();
                Socket slow = new Socket()) {
            slow.setReceiveBufferSize(64 * 1024);
            slow.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
            slow.setSoTimeout(30_000);
            SlowClient.EchoFlood flood = SlowClient.startEchoFlood(slow, body, PIPELINED);
            AtomicLong sent = flood.bodyBytesSent();
            AtomicReference<Throwable> failure = flood.failure();
            Thread writer = flood.writer();
            long total = flood.totalBytes();

            SlowClient.servedPromptly(server.port(), 20);
            Thread.sleep(1500);
            assertThat(sent.get()).as("bytes the slow client could push while not reading").isLessThan(total);
            assertThat(writer.isAlive()).isTrue();
            RingWorker ring = server.workers().getFirst();
            assertThat(ring.transfers.backPressureCancels).as("receives cancelled while output is backed up").isPositive();

            InputStream in = new BufferedInputStream(slow.getInputStream(), 64 * 1024);
            Thread other = Thread.ofVirtual().start(() -> {
                try {
                    SlowClient.servedPromptly(server.port(), 10);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            assertThat(SlowClient.readOk(in, BODY, true)).isEqualTo(body);
            other.join(30_000);
            for (int i = 1; i < PIPELINED; i++) {
                assertThat(Arrays.equals(SlowClient.readOk(in, BODY, false), body)).as("response %d", i).isTrue();
            }
            writer.join(30_000);
            assertThat(failure.get()).isNull();
            assertThat(sent.get()).isEqualTo((long) PIPELINED * BODY);
            assertThat(ring.transfers.shortSends).as("sends the socket took only part of").isPositive();
        }
    }
}
