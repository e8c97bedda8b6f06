// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Response;
import dev.spindle.core.bytes.OutputBuffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streamed body's memory: what a connection holds for a producer that writes a little at a
 * time (an event stream) stays small, and a large body still moves in whole chunks.
 */
@Timeout(10)
class PipedBodyTest {
    /** Pulls until the body makes progress or ends, waiting for the producer's hand-overs. */
    private static int pullSome(OutgoingBody body, OutputBuffer out, Semaphore handedOver) throws Exception {
        while (true) {
            int r = body.pull(out);
            if (r != OutgoingBody.WAIT) {
                return r;
            }
            assertThat(handedOver.tryAcquire(5, TimeUnit.SECONDS)).as("the producer handed something over").isTrue();
        }
    }

    private static String drain(OutputBuffer out) {
        String text = StandardCharsets.ISO_8859_1.decode(out.view()).toString();
        out.written(out.pending());
        return text;
    }

    @Test
    void smallFlushesKeepTheConnectionsOutputSmall() throws Exception {
        byte[] event = "data: a short event\n\n".getBytes(StandardCharsets.US_ASCII);
        CountDownLatch done = new CountDownLatch(1);
        Response.BodyWriter writer = out -> {
            for (int i = 0; i < 3; i++) {
                out.write(event);
                out.flush();
            }
            try {
                done.await();
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
            }
        };
        Semaphore handedOver = new Semaphore(0);
        OutgoingBody body = OutgoingBody.PipedBody.start(writer, -1, true, null, handedOver::release);
        OutputBuffer out = new OutputBuffer(256);
        StringBuilder sent = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            assertThat(pullSome(body, out, handedOver)).isEqualTo(OutgoingBody.PROGRESS);
            sent.append(drain(out));
        }
        assertThat(sent.toString()).isEqualTo("0015\r\ndata: a short event\n\n\r\n".repeat(3));
        assertThat(out.capacity()).as("room for what was handed over, not for a whole %d-byte chunk", OutgoingBody.CHUNK)
                .isLessThanOrEqualTo(1024);
        done.countDown();
        assertThat(pullSome(body, out, handedOver)).isEqualTo(OutgoingBody.END);
        assertThat(drain(out)).isEqualTo("0\r\n\r\n");
    }

    @Test
    void aLargeBodyStillMovesInWholeChunks() throws Exception {
        byte[] data = new byte[3 * OutgoingBody.CHUNK + 100];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) ('a' + i % 26);
        }
        Semaphore handedOver = new Semaphore(0);
        OutgoingBody body = OutgoingBody.PipedBody.start(out -> out.write(data), data.length, false, null, handedOver::release);
        OutputBuffer out = new OutputBuffer(256);
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        int pulls = 0;
        int r;
        while ((r = pullSome(body, out, handedOver)) == OutgoingBody.PROGRESS) {
            pulls++;
            received.writeBytes(drain(out).getBytes(StandardCharsets.ISO_8859_1));
        }
        assertThat(r).isEqualTo(OutgoingBody.END);
        assertThat(received.toByteArray()).isEqualTo(data);
        assertThat(pulls).as("three whole chunks and the rest").isEqualTo(4);
    }
}
