// SPDX-License-Identifier: Apache-2.0
package dev.spindle.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Request;
import dev.spindle.core.WebSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * {@code /ws/echo}'s endpoint and options; scripts/websocket-interop.sh runs it against every
 * server with the Python and Node clients.
 */
class WsEchoTest {
    /** What the endpoint sent, in order: a String per text message, a byte[] per binary one. */
    private static final class Recorder implements WebSocket {
        final List<Object> sent = new ArrayList<>();

        @Override
        public CompletionStage<Void> sendText(CharSequence text) {
            sent.add(text.toString());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> sendBinary(ByteBuffer data) {
            byte[] copy = new byte[data.remaining()];
            data.get(copy);
            sent.add(copy);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> ping(ByteBuffer payload) {
            throw new AssertionError("the echo sends no pings of its own");
        }

        @Override
        public CompletionStage<Void> close(int code, String reason) {
            throw new AssertionError("the echo leaves closing to the core");
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public String subprotocol() {
            return null;
        }

        @Override
        public Request request() {
            return null;
        }

        @Override
        public CompletionStage<Void> closed() {
            return new CompletableFuture<>();
        }

        @Override
        public void attach(Object value) {
        }

        @Override
        public Object attachment() {
            return null;
        }
    }

    @Test
    void echoesTextAndBinaryAsTheyCame() {
        Recorder socket = new Recorder();
        BenchmarkApp.WsEcho echo = new BenchmarkApp.WsEcho();
        echo.onText(socket, "");
        echo.onText(socket, "h\u00e9llo \u2603 \uD83D\uDE00");
        // a message that does not start at 0: only position to limit is echoed
        ByteBuffer binary = ByteBuffer.wrap(new byte[] {9, 1, 2, 3, 9}, 1, 3);
        echo.onBinary(socket, binary);
        echo.onBinary(socket, ByteBuffer.allocate(0));
        assertThat(socket.sent).hasSize(4);
        assertThat(socket.sent.get(0)).isEqualTo("");
        assertThat(socket.sent.get(1)).isEqualTo("h\u00e9llo \u2603 \uD83D\uDE00");
        assertThat((byte[]) socket.sent.get(2)).containsExactly(1, 2, 3);
        assertThat((byte[]) socket.sent.get(3)).isEmpty();
    }

    @Test
    void optionsCompressAndTakeSixteenMebibytes() {
        WebSocket.Options options = BenchmarkApp.WS_ECHO_OPTIONS;
        assertThat(options.compression()).isTrue();
        assertThat(options.maxMessageSize()).isEqualTo(16L << 20);
        assertThat(options.maxQueuedBytes()).isGreaterThanOrEqualTo(BenchmarkApp.MAX_WS_MESSAGE_BYTES);
    }
}
