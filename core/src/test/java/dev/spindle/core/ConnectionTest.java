// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.http1.HttpConnection;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.TestRoutes;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import static dev.spindle.core.ConnectionBytes.bytes;
import static dev.spindle.core.ConnectionBytes.drain;
import static dev.spindle.core.ConnectionBytes.drainAll;
import static dev.spindle.core.ConnectionBytes.feed;
import static dev.spindle.core.ConnectionBytes.parseAll;
import static dev.spindle.core.ConnectionBytes.peek;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sans-I/O {@link Connection}: bytes in, bytes out, keep-alive and close decisions. No sockets,
 * no threads, no sleeps; blocking handlers run on a manual executor.
 */
class ConnectionTest {
    private static final ServerConfig DEFAULTS = ServerConfig.defaults();
    private static final String HOST = "Host: test\r\n";

    private static HttpConnection app() {
        return new HttpConnection(TestRoutes.routes(), DEFAULTS);
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\n" + HOST + "\r\n";
    }

    private static RawResponse single(byte[] out) {
        List<RawResponse> all = parseAll(out);
        assertThat(all).as("exactly one response").hasSize(1);
        return all.get(0);
    }


    @Test
    void sixteenPipelinedRequestsAreAnsweredInOrder() {
        HttpConnection c = app();
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            batch.append(get("/users/" + i));
        }
        feed(c, batch.toString());
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).hasSize(16);
        for (int i = 0; i < 16; i++) {
            assertThat(responses.get(i).status()).isEqualTo(200);
            assertThat(responses.get(i).bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
            assertThat(responses.get(i).header("Connection")).isNull();
        }
        assertThat(c.state().finished()).isFalse();
        assertThat(c.next().reads()).isTrue();
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
    }

    /** The same pipelined mix fed whole, split at every index and byte by byte answers the same. */
    @Test
    void pipelinedMixAnswersTheSameHoweverItIsSplit() {
        String mix = get("/plaintext")
                + "POST /echo HTTP/1.1\r\n" + HOST + "Content-Type: text/x\r\nContent-Length: 5\r\n\r\nhello"
                + "HEAD /json HTTP/1.1\r\n" + HOST + "\r\n"
                + "POST /echo HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                + get("/nope")
                + get("/search?q=x%20y");
        byte[] raw = bytes(mix);
        Set<Integer> head = Set.of(2);
        List<String> expected = parseAll(run(List.of(raw)), head).stream().map(RawResponse::withoutDate).toList();
        assertThat(expected).hasSize(6);
        for (int at = 1; at < raw.length; at++) {
            List<byte[]> pieces = List.of(Arrays.copyOfRange(raw, 0, at), Arrays.copyOfRange(raw, at, raw.length));
            assertThat(parseAll(run(pieces), head).stream().map(RawResponse::withoutDate).toList())
                    .as("split at %d", at).isEqualTo(expected);
        }
        List<byte[]> single = new ArrayList<>();
        for (byte b : raw) {
            single.add(new byte[] {b});
        }
        assertThat(parseAll(run(single), head).stream().map(RawResponse::withoutDate).toList()).isEqualTo(expected);
    }

    /** How a strategy hands over received bytes: the buffer it reads into, reused for every read. */
    enum ReceiveMemory {
        HEAP_BUFFER, DIRECT_BUFFER, NATIVE_SEGMENT;

        void deliver(HttpConnection c, byte[] piece, ByteBuffer heap, ByteBuffer direct, MemorySegment segment) {
            switch (this) {
                case HEAP_BUFFER -> c.received(heap.clear().put(piece).flip());
                case DIRECT_BUFFER -> c.received(direct.clear().put(piece).flip());
                case NATIVE_SEGMENT -> {
                    MemorySegment.copy(piece, 0, segment, ValueLayout.JAVA_BYTE, 100, piece.length);
                    c.received(segment, 100, piece.length);
                }
            }
        }

        /** What the buffer holds where {@code piece} was delivered. */
        byte[] contents(int length, ByteBuffer heap, ByteBuffer direct, MemorySegment segment) {
            return switch (this) {
                case HEAP_BUFFER -> Arrays.copyOf(heap.array(), length);
                case DIRECT_BUFFER -> {
                    byte[] b = new byte[length];
                    direct.get(0, b);
                    yield b;
                }
                case NATIVE_SEGMENT -> segment.asSlice(100, length).toArray(ValueLayout.JAVA_BYTE);
            };
        }
    }

    /**
     * Requests are parsed where the strategy received them, so a strategy that reuses its buffer
     * (and scribbles over it here) right after received() must not change a single answer: only
     * an unfinished request's bytes may be kept, and they must have been copied. The lent bytes
     * are only read, chunked bodies included.
     */
    @ParameterizedTest
    @EnumSource(ReceiveMemory.class)
    void reusingTheReceiveBufferAtOnceChangesNoAnswer(ReceiveMemory memory) {
        String mix = get("/plaintext")
                + "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 5\r\n\r\nhello"
                + "POST /echo HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                + get("/users/42") + get("/search?q=x%20y");
        byte[] raw = bytes(mix);
        List<String> expected = parseAll(run(List.of(raw))).stream().map(RawResponse::withoutDate).toList();
        assertThat(expected).hasSize(5);
        ByteBuffer heap = ByteBuffer.allocate(raw.length);
        ByteBuffer direct = ByteBuffer.allocateDirect(raw.length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(raw.length + 100);
            for (int at = 1; at <= raw.length; at++) {
                HttpConnection c = app();
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (byte[] piece : List.of(Arrays.copyOfRange(raw, 0, at), Arrays.copyOfRange(raw, at, raw.length))) {
                    memory.deliver(c, piece, heap, direct, segment);
                    assertThat(memory.contents(piece.length, heap, direct, segment)).as("lent bytes unchanged").isEqualTo(piece);
                    Arrays.fill(heap.array(), (byte) 'X');
                    direct.clear();
                    while (direct.hasRemaining()) {
                        direct.put((byte) 'X');
                    }
                    segment.fill((byte) 'X');
                    out.writeBytes(drain(c));
                }
                assertThat(parseAll(out.toByteArray()).stream().map(RawResponse::withoutDate).toList())
                        .as("split at %d", at).isEqualTo(expected);
            }
        }
    }

    private static byte[] run(List<byte[]> pieces) {
        HttpConnection c = app();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : pieces) {
            feed(c, p);
            out.writeBytes(drain(c));
        }
        assertThat(c.state().finished()).isFalse();
        return out.toByteArray();
    }


    static Stream<Arguments> keepAliveCases() {
        ServerConfig noKeepAlive = DEFAULTS.keepAlive(false);
        return Stream.of(
                Arguments.of("HTTP/1.1 default", DEFAULTS, "GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n", null, false),
                Arguments.of("HTTP/1.1 Connection: close", DEFAULTS,
                        "GET /plaintext HTTP/1.1\r\n" + HOST + "Connection: close\r\n\r\n", "close", true),
                Arguments.of("HTTP/1.1 Connection: keep-alive", DEFAULTS,
                        "GET /plaintext HTTP/1.1\r\n" + HOST + "Connection: keep-alive\r\n\r\n", null, false),
                Arguments.of("HTTP/1.0 without keep-alive", DEFAULTS, "GET /plaintext HTTP/1.0\r\n\r\n", "close", true),
                Arguments.of("HTTP/1.0 Connection: keep-alive", DEFAULTS,
                        "GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "keep-alive", false),
                Arguments.of("HTTP/1.0 Connection: Keep-Alive", DEFAULTS,
                        "GET /plaintext HTTP/1.0\r\nHost: test\r\nConnection: Keep-Alive\r\n\r\n", "keep-alive", false),
                Arguments.of("HTTP/1.0 Connection: keep-alive, close", DEFAULTS,
                        "GET /plaintext HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", "close", true),
                Arguments.of("keepAlive(false), HTTP/1.1", noKeepAlive,
                        "GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n", "close", true),
                Arguments.of("keepAlive(false), HTTP/1.0 keep-alive", noKeepAlive,
                        "GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "close", true),
                Arguments.of("keepAlive(false), error from a handler", noKeepAlive,
                        "GET /nope HTTP/1.1\r\n" + HOST + "\r\n", "close", true));
    }

    /**
     * A request followed by a pipelined second one: a closing response ends the connection and
     * the second request is never answered; otherwise both are.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("keepAliveCases")
    void keepAliveDecision(String name, ServerConfig config, String request, String connectionHeader, boolean closes) {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), config);
        feed(c, request + get("/json"));
        assertThat(c.state().finished()).as("shouldClose before the output is written").isFalse();
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses.get(0).header("Connection")).isEqualTo(connectionHeader);
        assertThat(responses.get(0).headers("Connection")).hasSizeLessThanOrEqualTo(1);
        if (closes) {
            assertThat(responses).as("the pipelined request after a closing response is not answered").hasSize(1);
            assertThat(c.state().finished()).isTrue();
            assertThat(c.next()).as("reads and drops what still arrives before closing").isEqualTo(Next.LINGER);
            assertThat(c.next()).isNotEqualTo(Next.CLOSE);
            feed(c, get("/plaintext"));
            assertThat(c.next().writes()).as("input after close is ignored").isFalse();
            c.endOfInput();
            assertThat(c.next()).as("closed once the peer closed too").isEqualTo(Next.CLOSE);
        } else {
            assertThat(responses).hasSize(2);
            assertThat(responses.get(1).bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
            assertThat(c.state().finished()).isFalse();
        }
    }


    static Stream<Arguments> routeCases() {
        return Stream.of(
                // name, request, status, content type, body, Allow
                Arguments.of("plaintext", get("/plaintext"), 200, "text/plain; charset=utf-8", "Hello, World!", null),
                Arguments.of("json", get("/json"), 200, "application/json", "{\"message\":\"Hello, World!\"}", null),
                Arguments.of("path variable", get("/users/42"), 200, "application/json", "{\"id\":\"42\"}", null),
                Arguments.of("decoded path variable", get("/users/a%20b"), 200, "application/json", "{\"id\":\"a b\"}", null),
                Arguments.of("query parameter", get("/search?q=a+b%21"), 200, "application/json", "{\"q\":\"a b!\"}", null),
                Arguments.of("query parameter missing", get("/search"), 400, "text/plain; charset=utf-8", null, null),
                Arguments.of("health", get("/health"), 200, "text/plain; charset=utf-8", "OK", null),
                Arguments.of("blocking inline", get("/blocking/0"), 200, "application/json", "{\"slept\":0}", null),
                Arguments.of("blocking not a number", get("/blocking/abc"), 400, "text/plain; charset=utf-8", null, null),
                Arguments.of("404", get("/nope"), 404, "text/plain; charset=utf-8", null, null),
                Arguments.of("404 trailing slash", get("/plaintext/"), 404, "text/plain; charset=utf-8", null, null),
                Arguments.of("405 POST /plaintext", "POST /plaintext HTTP/1.1\r\n" + HOST + "Content-Length: 0\r\n\r\n",
                        405, "text/plain; charset=utf-8", null, "GET, HEAD"),
                Arguments.of("405 GET /echo", get("/echo"), 405, "text/plain; charset=utf-8", null, "POST"),
                Arguments.of("ingest", "POST /ingest HTTP/1.1\r\n" + HOST + "Content-Length: 5\r\n\r\nhello",
                        200, "text/plain; charset=utf-8", "true", null),
                Arguments.of("405 GET /ingest", get("/ingest"), 405, "text/plain; charset=utf-8", null, "POST"),
                Arguments.of("405 DELETE /users/1", "DELETE /users/1 HTTP/1.1\r\n" + HOST + "\r\n",
                        405, "text/plain; charset=utf-8", null, "GET, HEAD"),
                Arguments.of("405 extension method", "BREW /json HTTP/1.1\r\n" + HOST + "\r\n",
                        405, "text/plain; charset=utf-8", null, "GET, HEAD"));
    }

    /** Answers, and errors from routing or handlers, keep the connection open. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("routeCases")
    void benchmarkRoutes(String name, String request, int status, String contentType, String body, String allow) {
        HttpConnection c = app();
        feed(c, request);
        RawResponse r = single(drain(c));
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.header("Content-Type")).isEqualTo(contentType);
        if (body != null) {
            assertThat(r.bodyText()).isEqualTo(body);
        } else {
            assertThat(r.bodyText()).startsWith(status + " ");
        }
        assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(r.body().length));
        assertThat(r.header("Allow")).isEqualTo(allow);
        assertThat(r.header("Connection")).isNull();
        assertThat(c.state().finished()).isFalse();
        feed(c, get("/health"));
        assertThat(single(drain(c)).bodyText()).as("the connection still answers").isEqualTo("OK");
    }

    @Test
    void headPlaintextHasContentLength13AndNoBody() {
        HttpConnection c = app();
        feed(c, "HEAD /plaintext HTTP/1.1\r\n" + HOST + "\r\n" + get("/health"));
        byte[] out = drain(c);
        List<RawResponse> responses = parseAll(out, Set.of(0));
        assertThat(responses).hasSize(2);
        assertThat(responses.get(0).status()).isEqualTo(200);
        assertThat(responses.get(0).header("Content-Length")).isEqualTo("13");
        assertThat(responses.get(0).header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(responses.get(0).body()).isEmpty();
        assertThat(responses.get(1).bodyText()).isEqualTo("OK");
        String text = new String(out, StandardCharsets.ISO_8859_1);
        assertThat(text).doesNotContain("Hello");
        assertThat(text.indexOf("\r\n\r\nHTTP/1.1 200 OK\r\n")).as("second response right after the first head").isPositive();
    }

    @Test
    void headOfAnUnknownPathIs404WithoutBody() {
        HttpConnection c = app();
        feed(c, "HEAD /nope HTTP/1.1\r\n" + HOST + "\r\n");
        RawResponse r = parseAll(drain(c), Set.of(0)).get(0);
        assertThat(r.status()).isEqualTo(404);
        assertThat(Integer.parseInt(r.header("Content-Length"))).isPositive();
        assertThat(r.body()).isEmpty();
    }


    static Stream<Arguments> echoCases() {
        byte[] allBytes = new byte[256];
        for (int i = 0; i < 256; i++) {
            allBytes[i] = (byte) i;
        }
        byte[] big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        return Stream.of(
                Arguments.of("all 256 byte values", allBytes, false, "application/octet-stream", null),
                Arguments.of("all 256 byte values, chunked", allBytes, true, "application/octet-stream", null),
                Arguments.of("empty body", new byte[0], false, "application/octet-stream", null),
                Arguments.of("100 kB body", big, false, "application/octet-stream", null),
                Arguments.of("100 kB body, chunked", big, true, "application/octet-stream", null),
                Arguments.of("content type passed through", bytes("{\"a\":1}"), false, "application/json", "application/json"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("echoCases")
    void echoIsByteExact(String name, byte[] body, boolean chunked, String expectedType, String sentType) {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(bytes("POST /echo HTTP/1.1\r\n" + HOST + (sentType != null ? "Content-Type: " + sentType + "\r\n" : "")));
        if (chunked) {
            req.writeBytes(bytes("Transfer-Encoding: chunked\r\n\r\n"));
            for (int off = 0; off < body.length; off += 7000) {
                int n = Math.min(7000, body.length - off);
                req.writeBytes(bytes(Integer.toHexString(n) + "\r\n"));
                req.write(body, off, n);
                req.writeBytes(bytes("\r\n"));
            }
            req.writeBytes(bytes("0\r\n\r\n"));
        } else {
            req.writeBytes(bytes("Content-Length: " + body.length + "\r\n\r\n"));
            req.writeBytes(body);
        }
        HttpConnection c = app();
        byte[] raw = req.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int off = 0; off < raw.length; off += 1500) {
            feed(c, Arrays.copyOfRange(raw, off, Math.min(raw.length, off + 1500)));
            out.writeBytes(drainAll(c));
        }
        RawResponse r = single(out.toByteArray());
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo(expectedType);
        assertThat(r.header("Content-Length")).isEqualTo(String.valueOf(body.length));
        assertThat(r.body()).isEqualTo(body);
    }


    /** The payload reproduction's sizes (72 B, 10 KB, 100 KB, 500 KB), framed both ways. */
    static Stream<Arguments> ingestCases() {
        return Stream.of(72, 10_240, 102_400, 512_000)
                .flatMap(size -> Stream.of(Arguments.of(size, false), Arguments.of(size, true)));
    }

    /**
     * {@code POST /ingest} answers {@code true} only once the whole body is in, however it is
     * framed, and the request after it is read from the right place.
     */
    @ParameterizedTest(name = "{0} bytes, chunked {1}")
    @MethodSource("ingestCases")
    void ingestAnswersTrueAfterTheWholeBody(int size, boolean chunked) {
        byte[] body = new byte[size];
        for (int i = 0; i < size; i++) {
            body[i] = (byte) (i * 31 + 7);
        }
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(bytes("POST /ingest HTTP/1.1\r\n" + HOST));
        if (chunked) {
            req.writeBytes(bytes("Transfer-Encoding: chunked\r\n\r\n"));
            for (int off = 0; off < size; off += 7000) {
                int n = Math.min(7000, size - off);
                req.writeBytes(bytes(Integer.toHexString(n) + "\r\n"));
                req.write(body, off, n);
                req.writeBytes(bytes("\r\n"));
            }
            req.writeBytes(bytes("0\r\n\r\n"));
        } else {
            req.writeBytes(bytes("Content-Length: " + size + "\r\n\r\n"));
            req.writeBytes(body);
        }
        byte[] raw = req.toByteArray();
        HttpConnection c = app();
        for (int off = 0; off < raw.length - 1; off += 1500) {
            feed(c, Arrays.copyOfRange(raw, off, Math.min(raw.length - 1, off + 1500)));
            assertThat(drainAll(c)).as("no answer before the last byte (%d of %d fed)", off, raw.length).isEmpty();
        }
        feed(c, Arrays.copyOfRange(raw, raw.length - 1, raw.length));
        RawResponse r = single(drainAll(c));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(r.bodyText()).isEqualTo("true");
        feed(c, get("/health"));
        assertThat(single(drain(c)).bodyText()).as("the next request is read after the body").isEqualTo("OK");
    }

    @Test
    void expectContinueGets100BeforeTheBodyAndTheAnswerAfterIt() {
        HttpConnection c = app();
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        assertThat(new String(drain(c), StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        feed(c, "he");
        assertThat(c.next().writes()).as("100 Continue is sent once").isFalse();
        feed(c, "llo");
        RawResponse r = single(drain(c));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("hello");
        assertThat(c.state().finished()).isFalse();
    }

    @Test
    void expectContinueWithAChunkedBody() {
        HttpConnection c = app();
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n");
        assertThat(new String(drain(c), StandardCharsets.ISO_8859_1)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        feed(c, "5\r\nhello\r\n0\r\n\r\n");
        assertThat(single(drain(c)).bodyText()).isEqualTo("hello");
    }

    @Test
    void expectContinueThenPipelinedRequestWithoutExpectGetsNo100() {
        HttpConnection c = app();
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nContent-Length: 1\r\n\r\n");
        drain(c);
        feed(c, "x" + "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 2\r\n\r\n");
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).extracting(RawResponse::status).containsExactly(200);
        feed(c, "yz");
        assertThat(single(drain(c)).bodyText()).isEqualTo("yz");
    }

    /**
     * RFC 9110 10.1.1: "A server that receives a 100-continue expectation in an HTTP/1.0
     * request MUST ignore that expectation."
     */
    @Test
    void expectContinueIsIgnoredForHttp10() {
        HttpConnection c = app();
        feed(c, "POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        assertThat(new String(peek(c), StandardCharsets.ISO_8859_1)).as("no interim response to HTTP/1.0").isEmpty();
        drain(c);
        feed(c, "hello");
        RawResponse r = single(drain(c));
        assertThat(r.bodyText()).isEqualTo("hello");
    }


    static Stream<Arguments> badRequests() {
        return Stream.of(
                Arguments.of("missing Host", "GET /plaintext HTTP/1.1\r\n\r\n", 400),
                Arguments.of("bare LF", "GET /plaintext HTTP/1.1\nHost: h\n\n", 400),
                Arguments.of("CL and TE", "POST /echo HTTP/1.1\r\n" + HOST
                        + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("HTTP/2.0", "GET /plaintext HTTP/2.0\r\n" + HOST + "\r\n", 505),
                Arguments.of("gzip coding", "POST /echo HTTP/1.1\r\n" + HOST + "Transfer-Encoding: gzip\r\n\r\n", 501),
                // Found by ConnectionFuzzTest: the parser's ArrayIndexOutOfBoundsException escaped received().
                Arguments.of("chunk size of 16 hex digits", "POST /echo HTTP/1.1\r\n" + HOST
                        + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nab\r\n", 400),
                Arguments.of("body too large", "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 999999999\r\n\r\n", 413),
                Arguments.of("request line too long", "GET /" + "a".repeat(9000) + " HTTP/1.1\r\n" + HOST + "\r\n", 414),
                Arguments.of("unknown expectation", "POST /echo HTTP/1.1\r\n" + HOST + "Expect: 200-ok\r\n\r\n", 417),
                Arguments.of("malformed percent-escape in a query", get("/search?q=%zz"), 400),
                Arguments.of("malformed percent-escape in a path", get("/users/%zz"), 400),
                Arguments.of("trailing percent in a path", get("/users/ab%"), 400),
                Arguments.of("Content-Length list of equal values", "POST /echo HTTP/1.1\r\n" + HOST
                        + "Content-Length: 5,5\r\n\r\nhello", 400),
                Arguments.of("Content-Length list with a space", "POST /echo HTTP/1.1\r\n" + HOST
                        + "Content-Length: 5, 5\r\n\r\nhello", 400),
                Arguments.of("Content-Length twice, equal", "POST /echo HTTP/1.1\r\n" + HOST
                        + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400),
                Arguments.of("asterisk-form for GET", "GET * HTTP/1.1\r\n" + HOST + "\r\n", 400),
                Arguments.of("authority-form for GET", "GET example.com:80 HTTP/1.1\r\n" + HOST + "\r\n", 400));
    }

    @ParameterizedTest(name = "{0} -> {2}")
    @MethodSource("badRequests")
    void badRequestIsAnsweredAndCloses(String name, String request, int status) {
        HttpConnection c = app();
        feed(c, get("/health") + request + get("/plaintext"));
        assertThat(c.next().reads()).isFalse();
        assertThat(c.state().finished()).as("not before the error is written").isFalse();
        byte[] out = drain(c);
        List<RawResponse> responses = parseAll(out, Set.of());
        assertThat(responses).extracting(RawResponse::status).as("the good request, then the error").containsExactly(200, status);
        RawResponse error = responses.get(1);
        assertThat(error.header("Connection")).isEqualTo("close");
        assertThat(error.bodyText()).startsWith(status + " ");
        assertThat(c.state().finished()).isTrue();
        feed(c, get("/plaintext"));
        assertThat(c.next().writes()).isFalse();
    }

    /**
     * RFC 9112 6.3 (1): a response to HEAD ends with its header section, also when the parser
     * rejects the HEAD request after its request line (here: whitespace before a colon).
     */
    @Test
    void parseErrorAnswerToHeadHasNoBody() {
        HttpConnection c = app();
        feed(c, "HEAD /plaintext HTTP/1.1\r\n" + HOST + "X : y\r\n\r\n");
        byte[] out = drain(c);
        assertThat(new String(out, StandardCharsets.ISO_8859_1)).as("the answer ends with its header section")
                .startsWith("HTTP/1.1 400 ").endsWith("\r\n\r\n");
        List<RawResponse> responses = parseAll(out, Set.of(0));
        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).status()).isEqualTo(400);
        assertThat(responses.get(0).header("Connection")).isEqualTo("close");
    }

    @Test
    void badRequestFedInPiecesClosesAfterItIsWritten() {
        HttpConnection c = app();
        feed(c, "GET /plaintext HTTP/1.1\r\n");
        assertThat(c.next().writes()).isFalse();
        assertThat((c.state() == Connection.State.READING_REQUEST)).isTrue();
        feed(c, "Host : x\r\n");
        RawResponse r = single(peek(c));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(c.state().finished()).isFalse();
        byte[] out = drain(c);
        assertThat(out).isNotEmpty();
        assertThat(c.state().finished()).isTrue();
    }

    /** A partial write keeps the connection open until every byte of the error is out. */
    @Test
    void closeWaitsForAPartialWrite() {
        HttpConnection c = app();
        feed(c, "GET / HTTP/9.9\r\n\r\n");
        int pending = c.outbound().remaining();
        assertThat(pending).isPositive();
        c.written(10);
        assertThat(c.state().finished()).isFalse();
        assertThat(c.outbound().remaining()).isEqualTo(pending - 10);
        c.written(pending - 10);
        assertThat(c.state().finished()).isTrue();
    }


    private static Router failingRoutes() {
        return Router.builder()
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("test: handler failure (expected in this test's log)");
                })
                .get("/half", (req, res) -> {
                    res.header("X-Half", "done").text("partial");
                    throw new IllegalStateException("test: failure after filling the response (expected)");
                })
                .get("/bad", (req, res) -> {
                    throw new HttpException(400, "you asked for it");
                })
                .get("/teapot", (req, res) -> {
                    throw new HttpException(418, "short and stout");
                })
                .get("/ok", (req, res) -> res.text("ok"))
                .build();
    }

    static Stream<Arguments> failingHandlerCases() {
        return Stream.of(
                Arguments.of("RuntimeException -> 500", "/boom", 500),
                Arguments.of("RuntimeException after filling the response -> 500", "/half", 500),
                Arguments.of("HttpException(400)", "/bad", 400),
                Arguments.of("HttpException(418)", "/teapot", 418));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failingHandlerCases")
    void failingHandlerAnswersAnErrorAndKeepsTheConnection(String name, String path, int status) {
        HttpConnection c = new HttpConnection(failingRoutes(), DEFAULTS);
        feed(c, get(path) + get("/ok"));
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).extracting(RawResponse::status).containsExactly(status, 200);
        RawResponse error = responses.get(0);
        assertThat(error.header("Connection")).isNull();
        assertThat(error.header("X-Half")).as("nothing of the failed response leaks").isNull();
        assertThat(error.bodyText()).startsWith(status + " ").doesNotContain("partial");
        assertThat(responses.get(1).bodyText()).isEqualTo("ok");
        assertThat(c.state().finished()).isFalse();
    }


    @Test
    void endOfInputAfterACompleteRequestAnswersThenCloses() {
        HttpConnection c = app();
        feed(c, get("/plaintext"));
        c.endOfInput();
        assertThat(c.state().finished()).as("not before the response is written").isFalse();
        RawResponse r = single(drain(c));
        assertThat(r.bodyText()).isEqualTo("Hello, World!");
        assertThat(c.state().finished()).isTrue();
    }

    @Test
    void endOfInputWithPipelinedRequestsAnswersAllThenCloses() {
        HttpConnection c = app();
        feed(c, get("/users/1") + get("/users/2"));
        c.endOfInput();
        assertThat(parseAll(drain(c))).extracting(RawResponse::bodyText)
                .containsExactly("{\"id\":\"1\"}", "{\"id\":\"2\"}");
        assertThat(c.state().finished()).isTrue();
    }

    @Test
    void endOfInputWithAPartialRequestClosesWithoutAnswer() {
        HttpConnection c = app();
        feed(c, "GET /plaintext HTTP/1.1\r\nHo");
        c.endOfInput();
        assertThat(c.next().writes()).isFalse();
        assertThat(c.state().finished()).isTrue();
    }

    @Test
    void endOfInputWithAPartialBodyClosesWithoutAnswer() {
        HttpConnection c = app();
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 10\r\n\r\nabc");
        c.endOfInput();
        assertThat(c.next().writes()).isFalse();
        assertThat(c.state().finished()).isTrue();
    }

    @Test
    void endOfInputWhenIdleCloses() {
        HttpConnection c = app();
        c.endOfInput();
        assertThat(c.next().writes()).isFalse();
        assertThat(c.state().finished()).isTrue();
    }

    /**
     * Since commit 749d455 the contract is "a connection that is idle is the strategy's to close"
     * (Connection#closeAfterResponse Javadoc): the connection stays idle, and a request that still
     * arrives is answered with {@code Connection: close}.
     */
    @Test
    void closeAfterResponseWhileIdleLeavesTheCloseToTheStrategy() {
        HttpConnection c = app();
        feed(c, get("/plaintext"));
        drain(c);
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
        c.closeAfterResponse();
        assertThat(c.state()).as("idle: the strategy may close it now").isEqualTo(Connection.State.IDLE);
        assertThat(c.next().writes()).isFalse();
        feed(c, get("/json") + get("/health"));
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).header("Connection")).isEqualTo("close");
        assertThat(c.state().finished()).isTrue();
    }

    /**
     * name, client's pause between sends (ms), bytes per send, sends before it stops (0: never),
     * when the connection closes (ms after it began to linger)
     */
    static Stream<Arguments> lingerCases() {
        return Stream.of(
                Arguments.of("the client stops sending after 2 s: closed 500 ms later", 100, 64 << 10, 20, 2_500),
                Arguments.of("the client never stops: closed after 30 s", 100, 64 << 10, 0, 30_000),
                Arguments.of("the client sends 1 GiB quickly: closed once it has", 10, 16 << 20, 0, 650));
    }

    /**
     * An upload refused 413 at its headers while the client still sends it (nginx's lingering
     * close): the connection shuts its output and drops what arrives for as long as the client
     * keeps sending, so that the kernel does not reset the connection under the unread 413, and
     * closes after 500 ms of quiet, 30 s of lingering, or 1 GiB dropped, whichever comes first.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("lingerCases")
    void aRefusedUploadLingersWhileItsClientStillSends(String name, int pauseMillis, int chunk, int sends, int closesAtMillis) {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS.maxBodySize(1024));
        feed(c, "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 100000000000\r\n\r\n");
        RawResponse refused = single(drain(c));
        assertThat(refused.status()).isEqualTo(413);
        assertThat(refused.header("Connection")).isEqualTo("close");
        long start = System.nanoTime();
        c.tick(start);
        assertThat(c.next()).as("lingering once the 413 is out").isEqualTo(Next.LINGER);
        byte[] body = new byte[chunk];
        long pause = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(pauseMillis);
        long closesAt = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(closesAtMillis);
        long t = start;
        for (int sent = 0; c.next() == Next.LINGER; ) {
            t += pause;
            if (sends == 0 || sent < sends) {
                c.received(ByteBuffer.wrap(body));
                sent++;
            }
            c.tick(t);
            if (t - start < closesAt - pause) {
                assertThat(c.next()).as("%d ms after the linger began", (t - start) / 1_000_000).isEqualTo(Next.LINGER);
            }
            assertThat(t - start).as("still lingering").isLessThanOrEqualTo(closesAt + pause);
        }
        assertThat(c.next()).isEqualTo(Next.CLOSE);
        assertThat(c.next().writes()).as("nothing more was sent").isFalse();
    }

    /**
     * drain() on an idle connection: a request within the grace is answered with
     * {@code Connection: close}; with none, the connection shuts its output and lingers once the
     * grace has passed, and not before.
     */
    @Test
    void drainAnswersOneMoreRequestWithCloseOrEndsAnIdleConnectionAfterTheGrace() {
        long grace = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(dev.spindle.core.spi.Connection.DRAIN_IDLE_GRACE_MILLIS);
        HttpConnection answered = app();
        feed(answered, get("/plaintext"));
        drain(answered);
        long now = System.nanoTime();
        answered.drain();
        answered.tick(now);
        answered.tick(now + grace / 2);
        assertThat(answered.next()).as("within the grace").isNotEqualTo(Next.LINGER);
        feed(answered, get("/json"));
        RawResponse r = single(drain(answered));
        assertThat(r.bodyText()).isEqualTo("{\"message\":\"Hello, World!\"}");
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(answered.next()).as("lingers after its closing answer").isEqualTo(Next.LINGER);

        HttpConnection silent = app();
        silent.drain();
        silent.tick(now);
        silent.tick(now + grace - 1);
        assertThat(silent.next()).as("one nanosecond before the grace ends").isNotEqualTo(Next.LINGER);
        assertThat(silent.nanosToTick(now + grace - 1)).as("a blocking strategy's read wakes at the grace's end").isEqualTo(1);
        silent.tick(now + grace);
        assertThat(silent.next().writes()).as("no response for a request never sent").isFalse();
        assertThat(silent.next()).as("output shut, lingering").isEqualTo(Next.LINGER);
    }

    @Test
    void closeAfterResponseDuringARequestClosesAfterItsResponse() {
        HttpConnection c = app();
        feed(c, "GET /plaintext HTTP/1.1\r\n");
        c.closeAfterResponse();
        assertThat(c.state().finished()).isFalse();
        feed(c, HOST + "\r\n" + get("/json"));
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).hasSize(1);
        assertThat(responses.get(0).bodyText()).isEqualTo("Hello, World!");
        assertThat(responses.get(0).header("Connection")).isEqualTo("close");
        assertThat(c.state().finished()).isTrue();
    }


    @Test
    void backPressureStopsProcessingUntilOutputIsWritten() {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS.writeHighWaterMark(1024));
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int i = 0; i < 10; i++) {
            byte[] body = new byte[4096];
            Arrays.fill(body, (byte) ('a' + i));
            batch.writeBytes(bytes("POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: 4096\r\n\r\n"));
            batch.writeBytes(body);
        }
        feed(c, batch.toByteArray());
        List<RawResponse> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            assertThat(c.next().reads()).as("over the high-water mark before response %d is written", i).isFalse();
            List<RawResponse> pending = parseAll(peek(c));
            assertThat(pending).as("only one response pending at step %d", i).hasSize(1);
            all.addAll(pending);
            drain(c);
            if (i < 9) {
                assertThat(c.next().writes()).as("written() resumed processing by itself: response %d is ready", i + 1).isTrue();
            }
        }
        assertThat(c.next().reads()).isTrue();
        assertThat(c.next().writes()).isFalse();
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
        assertThat(all).hasSize(10);
        for (int i = 0; i < 10; i++) {
            byte[] expected = new byte[4096];
            Arrays.fill(expected, (byte) ('a' + i));
            assertThat(all.get(i).body()).as("response %d", i).isEqualTo(expected);
        }
    }

    /** Small responses under the mark are all produced in one go. */
    @Test
    void belowTheHighWaterMarkEverythingIsAnsweredAtOnce() {
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS.writeHighWaterMark(1024));
        feed(c, get("/plaintext").repeat(3));
        assertThat(c.next().reads()).isTrue();
        assertThat(parseAll(drain(c))).hasSize(3);
    }


    /** An executor the test runs by hand, and a wakeup counter. */
    private static final class Manual implements Executor {
        final List<Runnable> tasks = new ArrayList<>();
        final AtomicInteger wakeups = new AtomicInteger();

        @Override
        public void execute(Runnable r) {
            tasks.add(r);
        }

        void runNext() {
            tasks.remove(0).run();
        }
    }

    @Test
    void offloadedBlockingRouteAnswersInOrder() {
        Manual ex = new Manual();
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS, ex, ex.wakeups::incrementAndGet);
        feed(c, get("/blocking/0") + get("/plaintext"));
        assertThat(c.next().writes()).as("nothing before the blocking handler ran").isFalse();
        assertThat((c.state() == Connection.State.HANDLING)).isTrue();
        assertThat(c.next().reads()).isFalse();
        assertThat(c.state()).isNotEqualTo(Connection.State.IDLE);
        assertThat(ex.tasks).hasSize(1);
        assertThat(ex.wakeups.get()).isZero();

        c.resume();
        assertThat(c.next().writes()).as("resume() before the handler finished does nothing").isFalse();
        assertThat((c.state() == Connection.State.HANDLING)).isTrue();

        ex.runNext();
        assertThat(ex.wakeups.get()).isEqualTo(1);
        assertThat(c.next().writes()).as("the driving thread writes only after resume()").isFalse();
        assertThat((c.state() == Connection.State.HANDLING)).isTrue();

        c.resume();
        assertThat((c.state() == Connection.State.HANDLING)).isFalse();
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).extracting(RawResponse::bodyText).containsExactly("{\"slept\":0}", "Hello, World!");
        assertThat(responses.get(0).header("Content-Type")).isEqualTo("application/json");
        assertThat(c.state().finished()).isFalse();
        assertThat(c.state()).isEqualTo(Connection.State.IDLE);
    }

    @Test
    void offloadedRequestSurvivesBufferReuse() {
        Manual ex = new Manual();
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS, ex, ex.wakeups::incrementAndGet);
        feed(c, get("/blocking/0"));
        // Bytes arriving while the handler runs overwrite the receive buffer; the handler has a copy.
        feed(c, get("/users/zzzzzzzzzz"));
        ex.runNext();
        c.resume();
        assertThat(parseAll(drain(c))).extracting(RawResponse::bodyText)
                .containsExactly("{\"slept\":0}", "{\"id\":\"zzzzzzzzzz\"}");
    }

    @Test
    void offloadedHandlerFailureIs500AndKeepsTheConnection() {
        Manual ex = new Manual();
        Router routes = Router.builder()
                .get("/slow-fail", Handler.blocking((req, res) -> {
                    throw new IllegalStateException("test: blocking handler failure (expected)");
                }))
                .get("/ok", (req, res) -> res.text("ok"))
                .build();
        HttpConnection c = new HttpConnection(routes, DEFAULTS, ex, ex.wakeups::incrementAndGet);
        feed(c, get("/slow-fail") + get("/ok"));
        ex.runNext();
        c.resume();
        assertThat(parseAll(drain(c))).extracting(RawResponse::status).containsExactly(500, 200);
        assertThat(c.state().finished()).isFalse();
    }

    @Test
    void rejectedOffloadIs503AndCloses() {
        Executor rejecting = r -> {
            throw new RejectedExecutionException("shutting down");
        };
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS, rejecting, () -> { });
        feed(c, get("/blocking/0") + get("/plaintext"));
        List<RawResponse> responses = parseAll(drain(c));
        assertThat(responses).extracting(RawResponse::status).containsExactly(503);
        assertThat(responses.get(0).header("Connection")).isEqualTo("close");
        assertThat(c.state().finished()).isTrue();
    }

    @Test
    void manyOffloadedRequestsPipelinedKeepTheirOrder() {
        Manual ex = new Manual();
        HttpConnection c = new HttpConnection(TestRoutes.routes(), DEFAULTS, ex, ex.wakeups::incrementAndGet);
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            batch.append(get("/blocking/0")).append(get("/users/" + i));
        }
        feed(c, batch.toString());
        List<RawResponse> all = new ArrayList<>();
        while (!ex.tasks.isEmpty()) {
            ex.runNext();
            c.resume();
            all.addAll(parseAll(drain(c)));
        }
        assertThat(ex.wakeups.get()).isEqualTo(4);
        assertThat(all).extracting(RawResponse::bodyText).containsExactlyElementsOf(IntStream.range(0, 4)
                .boxed().flatMap(i -> Stream.of("{\"slept\":0}", "{\"id\":\"" + i + "\"}")).toList());
    }


    @Test
    void partialWritesAreResumedWhereTheyStopped() {
        HttpConnection c = app();
        feed(c, get("/users/7"));
        ByteBuffer view = c.outbound();
        byte[] all = new byte[view.remaining()];
        view.duplicate().get(all);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        while (c.next().writes()) {
            ByteBuffer b = c.outbound();
            int n = Math.min(7, b.remaining());
            byte[] chunk = new byte[n];
            b.get(chunk);
            written.writeBytes(chunk);
            c.written(n);
        }
        assertThat(written.toByteArray()).isEqualTo(all);
        assertThat(single(all).bodyText()).isEqualTo("{\"id\":\"7\"}");
    }
}
