// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.OutputBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What {@link RequestEncoder} writes for a {@link ClientRequest}, and what a request refuses to hold. */
class RequestEncoderTest {
    private static final String AUTHORITY = "api.test:8443";

    static String encode(ClientRequest request) {
        OutputBuffer out = new OutputBuffer(16);
        RequestEncoder.encode(request, AUTHORITY, out);
        ByteBuffer view = out.view();
        byte[] b = new byte[view.remaining()];
        view.get(b);
        assertThat(out.pending()).isEqualTo(b.length);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    static Stream<Arguments> encodings() {
        return Stream.of(
                Arguments.of("bodiless GET: no Content-Length",
                        (Supplier<ClientRequest>) () -> ClientRequest.get("/a?b=c"),
                        "GET /a?b=c HTTP/1.1\r\nHost: api.test:8443\r\n\r\n"),
                Arguments.of("bodiless HEAD",
                        (Supplier<ClientRequest>) () -> new ClientRequest("HEAD", "/"),
                        "HEAD / HTTP/1.1\r\nHost: api.test:8443\r\n\r\n"),
                Arguments.of("POST with a body",
                        (Supplier<ClientRequest>) () -> new ClientRequest("POST", "/echo").header("Content-Type", "text/plain")
                                .body("hello".getBytes(StandardCharsets.US_ASCII)),
                        "POST /echo HTTP/1.1\r\nHost: api.test:8443\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"),
                Arguments.of("bodiless POST says Content-Length: 0",
                        (Supplier<ClientRequest>) () -> new ClientRequest("POST", "/ingest"),
                        "POST /ingest HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 0\r\n\r\n"),
                Arguments.of("bodiless PUT and PATCH too",
                        (Supplier<ClientRequest>) () -> new ClientRequest("PATCH", "/p"),
                        "PATCH /p HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 0\r\n\r\n"),
                Arguments.of("GET with an empty body says so",
                        (Supplier<ClientRequest>) () -> ClientRequest.get("/g").body(new byte[0]),
                        "GET /g HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 0\r\n\r\n"),
                Arguments.of("fields in order, repeated names kept, Latin-1 and tabs in values",
                        (Supplier<ClientRequest>) () -> ClientRequest.get("/f").header("Accept", "a/b").header("X-R", "1")
                                .header("x-r", "2").header("X-L", "caf\u00e9\tok"),
                        "GET /f HTTP/1.1\r\nHost: api.test:8443\r\nAccept: a/b\r\nX-R: 1\r\nx-r: 2\r\nX-L: caf\u00e9\tok\r\n\r\n"),
                Arguments.of("the caller's Host replaces the destination's",
                        (Supplier<ClientRequest>) () -> ClientRequest.get("/").header("host", "virtual.test"),
                        "GET / HTTP/1.1\r\nhost: virtual.test\r\n\r\n"),
                Arguments.of("Connection: close when asked",
                        (Supplier<ClientRequest>) () -> new ClientRequest("PUT", "/x").body(new byte[] {'1'}).closeConnection(),
                        "PUT /x HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 1\r\nConnection: close\r\n\r\n1"),
                Arguments.of("OPTIONS *",
                        (Supplier<ClientRequest>) () -> new ClientRequest("OPTIONS", "*"),
                        "OPTIONS * HTTP/1.1\r\nHost: api.test:8443\r\n\r\n"),
                Arguments.of("an extension method",
                        (Supplier<ClientRequest>) () -> new ClientRequest("PROPFIND", "/dav"),
                        "PROPFIND /dav HTTP/1.1\r\nHost: api.test:8443\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("encodings")
    void encodes(String name, Supplier<ClientRequest> request, String expected) {
        assertThat(encode(request.get())).isEqualTo(expected);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("CR in a value", (Runnable) () -> ClientRequest.get("/").header("X-A", "a\rb"),
                        "the value of header X-A holds a CR at index 1"),
                Arguments.of("LF in a value", (Runnable) () -> ClientRequest.get("/").header("X-A", "a\nSet-Cookie: x"),
                        "the value of header X-A holds an LF at index 1"),
                Arguments.of("NUL in a value", (Runnable) () -> ClientRequest.get("/").header("X-A", "\0"),
                        "the value of header X-A holds a NUL at index 0"),
                Arguments.of("other control character in a value", (Runnable) () -> ClientRequest.get("/").header("X-A", "\u0007"),
                        "holds U+0007 at index 0"),
                Arguments.of("a character beyond Latin-1", (Runnable) () -> ClientRequest.get("/").header("X-A", "\u20ac"),
                        "field values are Latin-1"),
                Arguments.of("a name that is not a token", (Runnable) () -> ClientRequest.get("/").header("X A", "v"),
                        "header name must be a token (RFC 9110 5.1), got \"X A\""),
                Arguments.of("a name with a colon", (Runnable) () -> ClientRequest.get("/").header("X:", "v"),
                        "header name must be a token"),
                Arguments.of("an empty name", (Runnable) () -> ClientRequest.get("/").header("", "v"), "header name must be a token"),
                Arguments.of("Content-Length", (Runnable) () -> ClientRequest.get("/").header("content-length", "5"),
                        "header content-length is the client's to write: it follows from the body"),
                Arguments.of("Transfer-Encoding", (Runnable) () -> ClientRequest.get("/").header("Transfer-Encoding", "chunked"),
                        "is the client's to write"),
                Arguments.of("Connection", (Runnable) () -> ClientRequest.get("/").header("Connection", "close"),
                        "use closeConnection()"),
                Arguments.of("Upgrade", (Runnable) () -> ClientRequest.get("/").header("Upgrade", "h2c"),
                        "the client does not switch protocols"),
                Arguments.of("Host twice", (Runnable) () -> ClientRequest.get("/").header("Host", "a").header("HOST", "b"),
                        "header Host given twice"),
                Arguments.of("a method that is not a token", (Runnable) () -> new ClientRequest("GE T", "/"),
                        "the method must be a token"),
                Arguments.of("a target that is not origin-form", (Runnable) () -> ClientRequest.get("http://x/"),
                        "the target must be origin-form"),
                Arguments.of("an empty target", (Runnable) () -> ClientRequest.get(""), "the target must be origin-form"),
                Arguments.of("a space in the target", (Runnable) () -> ClientRequest.get("/a b"),
                        "the target holds a space at index 2"),
                Arguments.of("a CRLF in the target", (Runnable) () -> ClientRequest.get("/a\r\nX: y"),
                        "the target holds a CR at index 2"),
                Arguments.of("a fragment in the target", (Runnable) () -> ClientRequest.get("/a#frag"),
                        "the target holds '#' at index 2"),
                Arguments.of("asterisk-form for GET", (Runnable) () -> ClientRequest.get("*"), "the target * is for OPTIONS only"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refuses(String name, Runnable build, String message) {
        assertThatThrownBy(build::run).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void describesLongTargetsShort() {
        ClientRequest r = ClientRequest.get("/" + "a".repeat(300));
        assertThat(r.describe()).hasSize("GET ".length() + 200 + 3).endsWith("...");
        assertThat(ClientRequest.get("/x").describe()).isEqualTo("GET /x");
    }

    @Test
    void aLargeBodyGrowsTheBufferOnce() {
        byte[] body = new byte[100_000];
        String encoded = encode(new ClientRequest("POST", "/big").body(body));
        assertThat(encoded).startsWith("POST /big HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 100000\r\n\r\n");
        assertThat(encoded).hasSize("POST /big HTTP/1.1\r\nHost: api.test:8443\r\nContent-Length: 100000\r\n\r\n".length() + 100_000);
    }
}
