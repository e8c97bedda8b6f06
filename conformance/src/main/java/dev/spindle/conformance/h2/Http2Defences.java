// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance.h2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP/2 attacks a server must survive, each shown and answered: the attacker's connection is
 * ended (GOAWAY ENHANCE_YOUR_CALM, or the error the RFC names) long before the attack is over, so
 * what the server spends on it, memory included, is bounded by the limit and not by the attacker;
 * a connection opened before the attack is still answered afterwards, and so is a new one.
 *
 * <p>Rapid Reset (CVE-2023-44487), MadeYouReset (CVE-2025-8671), CONTINUATION floods, with and
 * without payload (the CVE-2024-27316 class), an HPACK bomb (a header list far larger than the
 * block that carries it), SETTINGS, PING and empty-frame floods, a window pushed past 2^31-1 and
 * the last stream id. The limits are the server's; the cases only require that the attack ends
 * within {@value #ATTACK} frames.
 */
@Timeout(120)
public abstract class Http2Defences {
    /** How many attack frames the server may take before it must have ended the attacker's connection. */
    static final int ATTACK = 20_000;
    private static final String HELLO = "Hello, World!";

    private H2Connection bystander;

    /**
     * A new connection to the server under test, nothing sent yet.
     *
     * @return the connection
     * @throws IOException if it cannot connect
     */
    protected abstract H2Connection open() throws IOException;

    /** @return whether the server speaks HTTP/2 */
    protected abstract boolean runs();

    /**
     * Whether the server serves two connections at once; an iterative one (one connection at a time)
     * cannot keep a bystander open through the attack, and is only asked to serve the next one.
     *
     * @return true by default
     */
    protected boolean servesConnectionsAtOnce() {
        return true;
    }

    /**
     * Whether the server serves a bounded number of connections at once and sheds others with a
     * graceful GOAWAY while full (a thread pool): the bystander's request may then be refused
     * unprocessed, and is sent again on a new connection.
     *
     * @return false unless the server sheds
     */
    protected boolean shedsConnectionsWhenFull() {
        return false;
    }

    /** A server of the strategy under test with a configuration of the case's own (and the routes its factory names). */
    public interface OwnServer extends AutoCloseable {
        /**
         * A new connection to it, nothing sent yet.
         *
         * @return the connection
         * @throws IOException if it cannot connect
         */
        H2Connection open() throws IOException;

        @Override
        void close();
    }

    /**
     * Starts a server like the one under test whose header timeout is {@code headerTimeout}.
     *
     * @param headerTimeout the header timeout
     * @return the server, started; null if the server's timeouts cannot be set (the case is skipped)
     * @throws IOException if it cannot start
     */
    protected OwnServer withHeaderTimeout(Duration headerTimeout) throws IOException {
        return null;
    }

    @BeforeEach
    void bystanderFirst() throws IOException {
        Assumptions.assumeTrue(runs(), "the server does not speak HTTP/2");
        bystander = servesConnectionsAtOnce() ? open().handshake() : null;
    }

    /** The connection opened before the attack, and a new one, are both still answered. */
    private void othersStillAnswered() throws IOException {
        if (bystander != null) {
            try (H2Connection b = bystander) {
                b.request(1, "GET", "/plaintext", true);
                H2Response answer = shedsConnectionsWhenFull() ? b.responseUnlessRefused(1) : b.response(1);
                // null: shed with a graceful GOAWAY below stream 1, which RFC 9113 8.7 lets the
                // client send again elsewhere: the fresh connection below is that retry
                if (answer != null) {
                    assertThat(answer.bodyText()).as("a connection opened before the attack").isEqualTo(HELLO);
                }
            }
        }
        // a server that sheds while full may still be busy with the attacker's ending connection:
        // its refusal is retried on another new connection (RFC 9113 8.7), a few times
        for (int attempt = 1; ; attempt++) {
            try (H2Connection fresh = open().handshake()) {
                fresh.request(1, "GET", "/plaintext", true);
                boolean retry = shedsConnectionsWhenFull() && attempt < 10;
                H2Response answer = retry ? fresh.responseUnlessRefused(1) : fresh.response(1);
                if (answer != null) {
                    assertThat(answer.bodyText()).as("a connection opened after the attack").isEqualTo(HELLO);
                    return;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted between retries");
            }
        }
    }

    /**
     * Writes {@code frames} of the attack until the server ends the connection (a write then
     * fails) or all are sent; then the connection must end with one of the codes. A server that
     * sheds connections while full may end the attacker's with a graceful GOAWAY instead (when the
     * bystander and the previous cases' connections fill its pool): the attack is ended all the same.
     */
    private void flood(H2Connection attacker, int frames, FrameSender send, ErrorCode... codes) throws IOException {
        if (shedsConnectionsWhenFull()) {
            codes = Arrays.copyOf(codes, codes.length + 1);
            codes[codes.length - 1] = ErrorCode.NO_ERROR;
        }
        int sent = 0;
        try {
            for (; sent < frames; sent++) {
                send.send(attacker, sent);
            }
        } catch (IOException e) {
            // the server ended the connection mid-attack: what is left to see is its GOAWAY
        }
        attacker.expectConnectionError(codes);
    }

    @FunctionalInterface
    private interface FrameSender {
        void send(H2Connection c, int i) throws IOException;
    }

    /** Rapid Reset: streams opened and reset in a loop, each costing the server a dispatch. */
    @Test
    void rapidResetEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            flood(attacker, ATTACK / 2, (c, i) -> {
                int stream = 1 + 2 * i;
                c.request(stream, "GET", "/delay/200", true);
                c.rstStream(stream, ErrorCode.CANCEL);
            }, ErrorCode.ENHANCE_YOUR_CALM);
        }
        othersStillAnswered();
    }

    /** MadeYouReset: frames that make the server reset the stream (here a zero WINDOW_UPDATE), in a loop. */
    @Test
    void madeYouResetEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            flood(attacker, ATTACK / 2, (c, i) -> {
                int stream = 1 + 2 * i;
                c.request(stream, "GET", "/delay/200", true);
                c.writeFrame(Frame.WINDOW_UPDATE, 0, stream, new byte[4]);
            }, ErrorCode.ENHANCE_YOUR_CALM);
        }
        othersStillAnswered();
    }

    /**
     * Not an attack: a browser leaving a page cancels the page's requests (RST_STREAM CANCEL, their
     * handlers still running) and asks for the next page's, as many as the server allows at once;
     * twice, within one reset window. Every new request is answered, with no REFUSED_STREAM and no
     * GOAWAY: a cancelled stream gives its slot back at once, and a limit on resets that ends Rapid
     * Reset must not end this.
     */
    @Test
    void cancellingAPageOfRequestsAndAskingAgainIsServed() throws IOException {
        try (H2Connection c = open().handshake()) {
            Long announced = c.serverSetting(Frame.SETTINGS_MAX_CONCURRENT_STREAMS);
            int page = (int) Math.min(announced == null ? 100 : announced, 500);
            int stream = 1;
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < page; i++) {
                    c.request(stream + 2 * i, "GET", "/delay/2000", true);
                }
                for (int i = 0; i < page; i++) {
                    c.rstStream(stream + 2 * i, ErrorCode.CANCEL);
                }
                stream += 2 * page;
                List<Integer> next = new ArrayList<>();
                for (int i = 0; i < page; i++, stream += 2) {
                    next.add(stream);
                    c.request(stream, "GET", "/plaintext", true);
                }
                Map<Integer, H2Response> answers = c.responses(next);
                assertThat(answers).as("round %d", round).hasSize(page);
                for (H2Response r : answers.values()) {
                    assertThat(r.bodyText()).as("round %d", round).isEqualTo(HELLO);
                }
            }
            c.expectPingAnswered();
        }
        othersStillAnswered();
    }

    /** A header block that never ends, in empty CONTINUATION frames. */
    @Test
    void emptyContinuationFloodEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            attacker.headersBlock(1, Frame.END_STREAM, HpackLiterals.encode(attacker.requestFields("GET", "/plaintext")));
            flood(attacker, ATTACK, (c, i) -> c.continuation(1, false, new byte[0]),
                    ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR);
        }
        othersStillAnswered();
    }

    /** A header block that never ends, in full CONTINUATION frames: the server must not buffer it all. */
    @Test
    void largeContinuationFloodEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            attacker.headersBlock(1, Frame.END_STREAM, HpackLiterals.encode(attacker.requestFields("GET", "/plaintext")));
            byte[] junk = HpackLiterals.encode(List.of(new Header("x-flood", "v".repeat(16_000))));
            flood(attacker, ATTACK, (c, i) -> c.continuation(1, false, junk),
                    ErrorCode.ENHANCE_YOUR_CALM, ErrorCode.PROTOCOL_ERROR, ErrorCode.COMPRESSION_ERROR);
        }
        othersStillAnswered();
    }

    /**
     * An HPACK bomb: one 4 KiB field put in the dynamic table, then referenced by index a thousand
     * times in one block of a few KiB: a header list of 4 MiB. It is refused (431, or the stream or
     * connection reset) without the server building it, and the connection goes on.
     */
    @Test
    void anHpackBombIsRefusedWhileDecoding() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.writeBytes(HpackLiterals.encode(attacker.requestFields("GET", "/plaintext")));
            // a literal with incremental indexing (RFC 7541 6.2.1, new name): it becomes dynamic entry 62
            block.write(0x40);
            block.writeBytes(HpackLiterals.integer(6, 7, 0));
            block.writeBytes(ascii("x-bomb"));
            block.writeBytes(HpackLiterals.integer(4000, 7, 0));
            block.writeBytes(ascii("b".repeat(4000)));
            for (int i = 0; i < 1000; i++) {
                block.write(0x80 | 62);
            }
            attacker.headersBlock(1, Frame.END_HEADERS | Frame.END_STREAM, block.toByteArray());
            assertThat(attacker.response(1).status()).as("the answer to a 4 MiB header list").isEqualTo(431);
            attacker.expectPingAnswered();
        }
        othersStillAnswered();
    }

    /**
     * 129 header fields in a header list of a few KiB: more fields than the HTTP/1.1 cases' request
     * with too many (the servers' limit of 128), so answered 431 as on HTTP/1.1, and the connection
     * goes on; 100 fields are served.
     */
    @Test
    void moreHeaderFieldsThanHttp11TakesAreAnswered431() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            for (int stream = 1, count = 129; stream <= 3; stream += 2, count = 100) {
                List<Header> fields = attacker.requestFields("GET", "/plaintext");
                for (int i = 0; i < count; i++) {
                    fields.add(new Header("x-h" + i, "v"));
                }
                attacker.headers(stream, true, fields);
            }
            Map<Integer, H2Response> answers = attacker.responses(List.of(1, 3));
            assertThat(answers.get(1).status()).as("the answer to 129 fields").isEqualTo(431);
            assertThat(answers.get(3).bodyText()).as("the answer to 100 fields").isEqualTo(HELLO);
            attacker.expectPingAnswered();
        }
        othersStillAnswered();
    }

    /**
     * A request body dribbled a byte every 100 ms, each well within a header timeout of 600 ms of
     * the last: the request must still be whole within the header timeout of its start, as on
     * HTTP/1.1, so it is answered 408 (or reset, had its answer begun) within a few timeouts, and the
     * connection goes on.
     */
    @Test
    void aRequestBodyDribbledPastTheHeaderTimeoutIsCutOff() throws IOException {
        try (OwnServer own = withHeaderTimeout(Duration.ofMillis(600))) {
            Assumptions.assumeTrue(own != null, "the server's header timeout cannot be set");
            try (H2Connection slow = own.open().handshake()) {
                slow.request(1, "POST", "/echo", false, new Header("content-length", "1000"));
                long deadline = System.nanoTime() + Duration.ofSeconds(4).toNanos();
                int sent = 0;
                while (!slow.frameOnStreamWithin(1, 100)) {
                    assertThat(System.nanoTime()).as("still taking the body after %d bytes in 4 s", sent).isLessThan(deadline);
                    slow.data(1, new byte[] {'x'}, false);
                    sent++;
                }
                assertThat(slow.response(1).status()).as("after %d bytes", sent).isEqualTo(408);
                slow.request(3, "GET", "/plaintext", true);
                assertThat(slow.response(3).bodyText()).isEqualTo(HELLO);
            }
        }
        othersStillAnswered();
    }

    /** SETTINGS frames, each owing an ACK, faster than any client needs. */
    @Test
    void settingsFloodEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            flood(attacker, ATTACK, (c, i) -> c.settings(0x4, 65_535), ErrorCode.ENHANCE_YOUR_CALM);
        }
        othersStillAnswered();
    }

    /** PING frames, each owing an ACK. */
    @Test
    void pingFloodEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            flood(attacker, ATTACK, (c, i) -> c.ping(false, new byte[8]), ErrorCode.ENHANCE_YOUR_CALM);
        }
        othersStillAnswered();
    }

    /** Empty DATA frames on an open stream: work for the server, no progress. */
    @Test
    void emptyDataFloodEndsTheConnection() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            attacker.request(1, "POST", "/echo", false);
            flood(attacker, ATTACK, (c, i) -> c.data(1, new byte[0], false), ErrorCode.ENHANCE_YOUR_CALM);
        }
        othersStillAnswered();
    }

    /** A window pushed past 2^31-1 is a FLOW_CONTROL_ERROR, on the connection and on a stream. */
    @Test
    void windowOverflowIsAFlowControlError() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            attacker.windowUpdate(0, Integer.MAX_VALUE);
            attacker.expectConnectionError(ErrorCode.FLOW_CONTROL_ERROR);
        }
        try (H2Connection attacker = open().handshake()) {
            attacker.request(1, "GET", "/delay/500", true);
            attacker.windowUpdate(1, Integer.MAX_VALUE);
            attacker.expectGoAwayOrRst(1, ErrorCode.FLOW_CONTROL_ERROR);
        }
        othersStillAnswered();
    }

    /**
     * The last stream id: a request on stream 2^31-1 is answered; after it no stream id is left,
     * and a lower one is a connection error, so a client cannot go round.
     */
    @Test
    void theLastStreamIdIsServedAndNothingAfterIt() throws IOException {
        try (H2Connection attacker = open().handshake()) {
            attacker.request(Integer.MAX_VALUE, "GET", "/plaintext", true);
            assertThat(attacker.response(Integer.MAX_VALUE).bodyText()).isEqualTo(HELLO);
            attacker.request(1, "GET", "/plaintext", true);
            attacker.expectConnectionError(ErrorCode.PROTOCOL_ERROR, ErrorCode.STREAM_CLOSED);
        }
        othersStillAnswered();
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
