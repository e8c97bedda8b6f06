// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http2;

import static dev.spindle.core.http2.H2Peer.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests an {@link Http2Connection} must refuse before any handler sees them, and their
 * neighbours it must still serve, row by row: what the client sends on a stream, and what the
 * stream gets (an answer's status, or a RST_STREAM code). After every row the connection answers a
 * PING and serves a new stream, with no GOAWAY.
 */
class Http2RequestValidationTest {
    private static final int PROTOCOL_ERROR = 0x1;

    private final AtomicInteger handled = new AtomicInteger();

    private Router routes() {
        return Router.builder()
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/count", (req, res) -> {
                    handled.incrementAndGet();
                    res.text(req.headerCount() + " " + req.header("host"));
                })
                .post("/count", (req, res) -> {
                    handled.incrementAndGet();
                    res.text(req.headerCount() + " " + req.header("host"));
                })
                .build();
    }

    /** What the row's stream must get: an answer with this status, or a reset with this code. */
    record Outcome(String status, int resetCode) {
        static Outcome answered(String status) {
            return new Outcome(status, -1);
        }

        static Outcome reset(int code) {
            return new Outcome(null, code);
        }

        @Override
        public String toString() {
            return status != null ? status : "RST_STREAM " + resetCode;
        }
    }

    private static Arguments row(String name, ServerConfig config, IntFunction<byte[]> send, Outcome outcome) {
        return Arguments.of(name, config, send, outcome);
    }

    /** A GET /count on {@code stream} with the pseudo-headers, then {@code fields} (name, value...). */
    private static byte[] countWith(int stream, boolean authority, String... fields) {
        List<String> all = new ArrayList<>(List.of(":method", "GET", ":scheme", "http", ":path", "/count"));
        if (authority) {
            all.addAll(List.of(":authority", "localhost"));
        }
        all.addAll(List.of(fields));
        return frame(HEADERS, END_HEADERS | END_STREAM, stream, block(all.toArray(String[]::new)));
    }

    /** {@code n} distinct fields {@code x-f0: v}, {@code x-f1: v}... */
    private static String[] fields(int n) {
        String[] f = new String[2 * n];
        for (int i = 0; i < n; i++) {
            f[2 * i] = "x-f" + i;
            f[2 * i + 1] = "v";
        }
        return f;
    }

    private static String[] concatFields(String[]... parts) {
        List<String> all = new ArrayList<>();
        for (String[] p : parts) {
            all.addAll(List.of(p));
        }
        return all.toArray(String[]::new);
    }

    private static byte[] selfPriority(int stream) {
        return concat(int32(stream), new byte[] {15});
    }

    static Stream<Arguments> rows() {
        ServerConfig defaults = ServerConfig.defaults();
        byte[] get = block(":method", "GET", ":scheme", "http", ":path", "/count", ":authority", "localhost");
        return Stream.of(
                // RFC 9113 5.3.1: a stream depending on itself is a stream error, never a request
                row("HEADERS depending on itself", defaults,
                        s -> frame(HEADERS, END_HEADERS | END_STREAM | PRIORITY_FLAG, s, concat(selfPriority(s), get)),
                        Outcome.reset(PROTOCOL_ERROR)),
                row("HEADERS depending on itself, the block ending in a CONTINUATION", defaults,
                        s -> concat(frame(HEADERS, END_STREAM | PRIORITY_FLAG, s, concat(selfPriority(s), get)),
                                frame(CONTINUATION, END_HEADERS, s, block("x-more", "1"))),
                        Outcome.reset(PROTOCOL_ERROR)),
                row("HEADERS depending on itself in three frames", defaults,
                        s -> concat(frame(HEADERS, END_STREAM | PRIORITY_FLAG, s, concat(selfPriority(s), block(":method", "GET"))),
                                frame(CONTINUATION, 0, s, block(":scheme", "http", ":path", "/count")),
                                frame(CONTINUATION, END_HEADERS, s, block(":authority", "localhost"))),
                        Outcome.reset(PROTOCOL_ERROR)),
                row("HEADERS depending on another stream is a request", defaults,
                        s -> frame(HEADERS, END_HEADERS | END_STREAM | PRIORITY_FLAG, s, concat(selfPriority(s + 2), get)),
                        Outcome.answered("200")),
                row("PRIORITY depending on itself on an idle stream", defaults,
                        s -> frame(PRIORITY, 0, s, selfPriority(s)), Outcome.reset(PROTOCOL_ERROR)),
                row("PRIORITY depending on itself on a stream whose body is arriving", defaults,
                        s -> concat(frame(HEADERS, END_HEADERS, s, block(":method", "POST", ":scheme", "http", ":path", "/count",
                                ":authority", "localhost")), frame(PRIORITY, 0, s, selfPriority(s)), data(s, "late", true)),
                        Outcome.reset(PROTOCOL_ERROR)),
                // the same field count as HTTP/1.1 (ServerConfig.maxHeaderCount): :authority counts as the host field
                row("127 fields and the host from :authority", defaults, s -> countWith(s, true, fields(127)), Outcome.answered("200")),
                row("128 fields and the host from :authority", defaults, s -> countWith(s, true, fields(128)), Outcome.answered("431")),
                row("128 fields without :authority", defaults, s -> countWith(s, false, fields(128)), Outcome.answered("200")),
                row("129 fields without :authority", defaults, s -> countWith(s, false, fields(129)), Outcome.answered("431")),
                row("1000 fields", defaults, s -> countWith(s, true, fields(1000)), Outcome.answered("431")),
                row("cookie crumbs are one field", defaults,
                        s -> countWith(s, true, concatFields(fields(120), cookies(50))), Outcome.answered("200")),
                row("a configured count of 4: 4 fields", defaults.maxHeaderCount(4), s -> countWith(s, false, fields(4)),
                        Outcome.answered("200")),
                row("a configured count of 4: 5 fields", defaults.maxHeaderCount(4), s -> countWith(s, false, fields(5)),
                        Outcome.answered("431")),
                // RFC 9113 8.3.1: a host that names another entity than :authority is malformed
                row("host equal to :authority", defaults, s -> countWith(s, true, "host", "localhost"), Outcome.answered("200")),
                row("host equal to :authority but for case", defaults, s -> countWith(s, true, "host", "LocalHost"),
                        Outcome.answered("200")),
                row("host without :authority", defaults, s -> countWith(s, false, "host", "example.com"), Outcome.answered("200")),
                row("host unlike :authority", defaults, s -> countWith(s, true, "host", "evil.example"), Outcome.reset(PROTOCOL_ERROR)),
                row("host with another port than :authority", defaults, s -> countWith(s, true, "host", "localhost:8080"),
                        Outcome.reset(PROTOCOL_ERROR)),
                row("two host fields", defaults, s -> countWith(s, false, "host", "example.com", "host", "example.com"),
                        Outcome.reset(PROTOCOL_ERROR)));
    }

    private static String[] cookies(int n) {
        String[] f = new String[2 * n];
        for (int i = 0; i < n; i++) {
            f[2 * i] = "cookie";
            f[2 * i + 1] = "c" + i + "=1";
        }
        return f;
    }

    @ParameterizedTest(name = "{0}: {3}")
    @MethodSource("rows")
    void eachRequestGetsItsOutcomeAndTheConnectionGoesOn(String name, ServerConfig config, IntFunction<byte[]> send, Outcome outcome)
            throws Exception {
        H2Peer peer = new H2Peer(new Http2Connection(routes(), config, null, () -> { }, null)).start();
        peer.send(send.apply(3));
        peer.read();
        List<H2Peer.Frame> onStream = peer.frames().stream().filter(f -> f.stream() == 3).toList();
        if (outcome.status() != null) {
            assertThat(peer.response(3).status()).as("%s: %s", name, onStream).isEqualTo(outcome.status());
            assertThat(handled.get()).as("%s: handlers run", name).isEqualTo(outcome.status().equals("200") ? 1 : 0);
        } else {
            assertThat(onStream).as(name).anyMatch(f -> f.type() == RST_STREAM && f.errorCode() == outcome.resetCode());
            assertThat(onStream).as("%s: no answer to a request in error", name).noneMatch(f -> f.type() == HEADERS || f.type() == DATA);
            assertThat(handled.get()).as("%s: no handler sees a request in error", name).isZero();
        }
        peer.send(ping(42));
        peer.send(get(5, "/plaintext"));
        assertThat(peer.response(5).body()).as("%s: a stream after it", name).isEqualTo("Hello, World!");
        assertThat(peer.frames()).as(name).anyMatch(f -> f.type() == PING && f.has(ACK)).noneMatch(f -> f.type() == GOAWAY);
    }
}
