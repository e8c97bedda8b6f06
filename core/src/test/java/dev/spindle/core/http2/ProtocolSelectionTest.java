// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.Connection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** How a plain connection from {@link Connection#open} chooses its protocol: the HTTP/2 preface, {@code Upgrade: h2c}, or HTTP/1.1. */
class ProtocolSelectionTest {
    private static final Router ROUTES = Router.builder()
            .get("/plaintext", (req, res) -> res.text("Hello, World!"))
            .put("/plaintext", (req, res) -> res.text("put " + req.version()))
            .get("/version", (req, res) -> res.text(req.version()))
            .build();

    private static String drain(Connection c) {
        StringBuilder s = new StringBuilder();
        for (ByteBuffer out = c.outbound(); out.hasRemaining(); out = c.outbound()) {
            byte[] b = new byte[out.remaining()];
            out.get(b);
            s.append(new String(b, StandardCharsets.ISO_8859_1));
            c.written(b.length);
        }
        return s.toString();
    }

    static Stream<Arguments> splits() {
        return Stream.of(Arguments.of(1), Arguments.of(3), Arguments.of(17), Arguments.of(24), Arguments.of(1000));
    }

    /** The preface fed in pieces of every size still chooses HTTP/2, and nothing reaches HTTP/1.1. */
    @ParameterizedTest
    @MethodSource("splits")
    void thePrefaceChoosesHttp2HoweverItIsSplit(int piece) throws Exception {
        Connection c = Connection.open(ROUTES, ServerConfig.defaults());
        byte[] all = concat(PREFACE, frame(SETTINGS, 0, 0, new byte[0]), get(1, "/version"));
        for (int i = 0; i < all.length; i += piece) {
            c.received(ByteBuffer.wrap(all, i, Math.min(piece, all.length - i)));
        }
        H2Peer peer = new H2Peer(c);
        assertThat(peer.response(1).body()).isEqualTo("HTTP/2");
    }

    /** A method sharing the preface's first letter ({@code PUT}) goes to HTTP/1.1 whole. */
    @ParameterizedTest
    @MethodSource("splits")
    void http11StartingLikeThePrefaceStaysHttp11(int piece) {
        Connection c = Connection.open(ROUTES, ServerConfig.defaults());
        byte[] all = "PUT /plaintext HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < all.length; i += piece) {
            c.received(ByteBuffer.wrap(all, i, Math.min(piece, all.length - i)));
        }
        assertThat(drain(c)).startsWith("HTTP/1.1 200").endsWith("put HTTP/1.1");
    }

    @Test
    void anUpgradeRequestIsAnswered101ThenOnStream1() throws Exception {
        Connection c = Connection.open(ROUTES, ServerConfig.defaults());
        // HTTP2-Settings: SETTINGS_MAX_CONCURRENT_STREAMS 100, SETTINGS_INITIAL_WINDOW_SIZE 65535 (base64url, no padding)
        c.received(ByteBuffer.wrap(("GET /version HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
        String head = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
        ByteBuffer out = c.outbound();
        byte[] first = new byte[head.length()];
        out.get(out.position(), first);
        assertThat(new String(first, StandardCharsets.US_ASCII)).isEqualTo(head);
        c.written(head.length());
        c.received(ByteBuffer.wrap(concat(PREFACE, frame(SETTINGS, 0, 0, new byte[0]))));
        H2Peer peer = new H2Peer(c);
        assertThat(peer.read().get(0).type()).as("the server's preface follows the 101").isEqualTo(SETTINGS);
        // the request came on HTTP/1.1; its answer goes on stream 1
        assertThat(peer.response(1).body()).isEqualTo("HTTP/1.1");
        peer.send(get(3, "/version"));
        assertThat(peer.response(3).body()).isEqualTo("HTTP/2");
    }

    @Test
    void anUpgradeWithABodyOrWithoutSettingsIsAnsweredInHttp11() {
        for (String request : new String[] {
            "PUT /plaintext HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\nContent-Length: 2\r\n\r\nhi",
            "GET /plaintext HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n",
            "GET /plaintext HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAA\r\n\r\n",
        }) {
            Connection c = Connection.open(ROUTES, ServerConfig.defaults());
            c.received(ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII)));
            assertThat(drain(c)).as(request).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void withH2cOffThePrefaceIsNotHttp2() {
        Connection c = Connection.open(ROUTES, ServerConfig.defaults().h2c(false));
        c.received(ByteBuffer.wrap(concat(PREFACE, get(1, "/plaintext"))));
        assertThat(drain(c)).startsWith("HTTP/1.1 ");
    }
}
