// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.websocket;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** What an output holds between writes: borrowed bytes are handed out as they are and never written into. */
class FrameOutputTest {
    private static byte[] drain(FrameOutput output, int max) {
        ByteBuffer out = output.outbound();
        byte[] bytes = new byte[Math.min(max, out.remaining())];
        out.get(out.position(), bytes);
        output.written(bytes.length);
        return bytes;
    }

    private static Object buffer(FrameOutput output) throws Exception {
        java.lang.reflect.Field out = FrameOutput.class.getDeclaredField("out");
        out.setAccessible(true);
        return out.get(output);
    }

    @Test
    void borrowedBytesGoOutUncopiedAndAreLetGoOnceWritten() throws Exception {
        FrameOutput output = new FrameOutput(null);
        byte[] handshake = "HTTP/1.1 101 Switching Protocols\r\n\r\n".getBytes();
        output.appendUnchanged(handshake);
        assertThat(output.outbound().array()).isSameAs(handshake);
        assertThat(drain(output, Integer.MAX_VALUE)).isEqualTo(handshake);
        assertThat((byte[]) buffer(output)).isEmpty();

        output.ping();
        assertThat(drain(output, Integer.MAX_VALUE)).containsExactly(0x89, 0x00);
        assertThat((byte[]) buffer(output)).isEmpty();
    }

    @Test
    void anAppendBehindBorrowedBytesCopiesThemAndLeavesTheOriginalAlone() throws Exception {
        FrameOutput output = new FrameOutput(null);
        byte[] handshake = "HTTP/1.1 101 Switching Protocols\r\n\r\n".getBytes();
        byte[] original = handshake.clone();
        output.appendUnchanged(handshake);
        byte[] first = drain(output, 5);
        CompletableFuture<Void> done = new CompletableFuture<>();
        byte[] frame = {(byte) 0x81, 0x01, 0x41};
        output.append(frame, done, frame.length);
        output.ping();
        byte[] rest = drain(output, Integer.MAX_VALUE);
        assertThat(handshake).isEqualTo(original);
        byte[] all = new byte[first.length + rest.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(rest, 0, all, first.length, rest.length);
        byte[] expected = Arrays.copyOf(original, original.length + 5);
        System.arraycopy(new byte[] {(byte) 0x81, 0x01, 0x41, (byte) 0x89, 0x00}, 0, expected, original.length, 5);
        assertThat(all).isEqualTo(expected);
        assertThat(output.due().done()).isSameAs(done);
        assertThat(output.due()).isNull();
    }
}
