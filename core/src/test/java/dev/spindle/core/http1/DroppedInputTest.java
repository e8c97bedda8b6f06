// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.RequestState;
import dev.spindle.core.spi.BodyBudget;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body the connection stops reading (refused 413 at the limit as it grows, or cut short by a
 * timeout's 408 or the budget's 503) is dropped from the input buffer, which gives its reservation
 * back to the server's {@link BodyBudget} at once; the array must go with the reservation. The
 * parser scanning the input must not hold it: a closing connection lingers on (up to 30 s) with its
 * parser, and a parser still referring to the grown array kept every refused upload's body (16 MiB
 * and more each) in the heap outside the budget, so that the next uploads ran a 96 MiB heap out
 * (scripts/hostile-memory.sh, phase uploads at the default 16 MiB limit, the blocking servers).
 */
class DroppedInputTest {
    private static final int LIMIT = 256 * 1024;

    /** name, chunked, body bytes sent, status the parser answers (0: none yet, the body is cut short) */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("a chunked body over the limit, refused 413 as it grows", true, 2 * LIMIT, 413),
                Arguments.of("a chunked body cut short", true, LIMIT / 2, 0),
                Arguments.of("a Content-Length body cut short", false, LIMIT / 2, 0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theDroppedBodysArrayGoesWithItsReservation(String name, boolean chunked, int sent, int status) throws InterruptedException {
        BodyBudget budget = new BodyBudget(1 << 30);
        InputBuffer in = new InputBuffer(4096, budget);
        RequestParser parser = new RequestParser(ServerConfig.defaults().maxBodySize(LIMIT));
        RequestState req = new RequestState();
        String framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: " + (LIMIT - 1);
        // the head alone first, as it arrives, so the request refers to the small array it was parsed in
        int answered = feed(parser, in, req, ("POST /upload HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        byte[] piece = new byte[8192];
        Arrays.fill(piece, (byte) 'x');
        byte[] chunk = chunked ? frame(piece) : piece;
        for (int n = 0; n < sent && answered == 0; n += piece.length) {
            answered = feed(parser, in, req, chunk);
        }
        assertThat(answered).as("the parser's answer").isEqualTo(status);
        WeakReference<byte[]> grown = new WeakReference<>(in.ownArray());
        assertThat(grown.get().length).as("the body grew the input's array").isGreaterThan(LIMIT / 4);
        assertThat(budget.reserved()).as("the growth is reserved").isPositive();

        in.discard();   // what the connection does once it reads no more requests
        assertThat(budget.reserved()).as("the reservation is given back at once").isZero();
        assertThat(collected(grown)).as("the dropped array is not held (by the parser or anything else)").isTrue();
        assertThat(parser).isNotNull();   // the parser lives on, as a lingering connection's does
    }

    /** Appends {@code bytes} and parses; the status of an HttpException, else 0. */
    private static int feed(RequestParser parser, InputBuffer in, RequestState req, byte[] bytes) {
        in.append(ByteBuffer.wrap(bytes));
        try {
            assertThat(parser.parseBuffered(in, req)).as("the body never completes").isEqualTo(RequestParser.NEED_MORE);
            return 0;
        } catch (HttpException e) {
            return e.status();
        }
    }

    private static byte[] frame(byte[] data) {
        byte[] head = (Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] framed = Arrays.copyOf(head, head.length + data.length + 2);
        System.arraycopy(data, 0, framed, head.length, data.length);
        framed[framed.length - 2] = '\r';
        framed[framed.length - 1] = '\n';
        return framed;
    }

    private static boolean collected(WeakReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        return ref.get() == null;
    }
}
