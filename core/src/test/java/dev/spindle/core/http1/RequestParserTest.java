// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.http1;

import dev.spindle.core.HttpException;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.exchange.RequestState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Table-driven tests of {@link RequestParser}. Every row is fed whole, split into two pieces at
 * every index, and one byte at a time, and must give the same result each way (picohttpparser's
 * {@code test.c} rows, Undertow's {@code ParserResumeTestCase}).
 */
class RequestParserTest {
    private static final ServerConfig DEFAULTS = ServerConfig.defaults();


    record Field(String name, String value) {
    }

    /** A completed request, copied out of the reused buffers at once. */
    record Parsed(String method, String target, String path, String query, String version, List<Field> headers,
            String body, boolean keepAlive, boolean expectContinue) {
        static Parsed capture(RequestState r) {
            List<Field> headers = new ArrayList<>();
            for (int i = 0; i < r.api.headerCount(); i++) {
                headers.add(new Field(r.api.headerName(i), r.api.headerValue(i)));
            }
            return new Parsed(r.api.methodName(), r.api.target(), r.api.path(), r.api.query(), r.api.version(), List.copyOf(headers),
                    new String(r.api.bodyBytes(), StandardCharsets.ISO_8859_1), r.api.isKeepAliveRequested(), r.expectContinue);
        }

        @Override
        public String toString() {
            String b = body.length() > 80 ? body.substring(0, 80) + "...(" + body.length() + ")" : body;
            String h = headers.size() > 8 ? headers.subList(0, 8) + "...(" + headers.size() + " fields)" : headers.toString();
            return method + " " + target + " " + version + " path=" + path + " query=" + query + " keepAlive=" + keepAlive
                    + " expect100=" + expectContinue + " headers=" + h + " body=" + b;
        }
    }

    /** What feeding a byte sequence produced: the completed requests, then an error status (0: none). */
    record Outcome(List<Parsed> requests, int errorStatus, String errorMessage, boolean partialLeft) {
    }

    /** Feeds {@code pieces} in order through an InputBuffer, collecting every completed request. */
    static Outcome feed(ServerConfig config, List<byte[]> pieces) {
        RequestParser parser = new RequestParser(config);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        List<Parsed> done = new ArrayList<>();
        try {
            for (byte[] piece : pieces) {
                in.append(ByteBuffer.wrap(piece));
                while (parser.parseBuffered(in, req) == RequestParser.COMPLETE) {
                    done.add(Parsed.capture(req));
                    assertThat(parser.consumed()).as("consumed() after COMPLETE").isPositive();
                    in.consume(parser.consumed());
                }
            }
        } catch (HttpException e) {
            return new Outcome(done, e.status(), e.getMessage(), true);
        }
        return new Outcome(done, 0, null, parser.inProgress(in));
    }

    static List<byte[]> whole(byte[] raw) {
        return List.of(raw);
    }

    static List<byte[]> split(byte[] raw, int at) {
        return List.of(Arrays.copyOfRange(raw, 0, at), Arrays.copyOfRange(raw, at, raw.length));
    }

    static List<byte[]> bytewise(byte[] raw) {
        List<byte[]> pieces = new ArrayList<>(raw.length);
        for (byte b : raw) {
            pieces.add(new byte[] {b});
        }
        return pieces;
    }

    static void assertValid(Outcome o, List<Parsed> expected, String how) {
        if (o.errorStatus() != 0) {
            fail("%s: expected %d request(s) but the parser failed with %d (%s) after %s", how, expected.size(),
                    o.errorStatus(), o.errorMessage(), o.requests());
        }
        assertThat(o.requests()).as(how).containsExactlyElementsOf(expected);
        assertThat(o.partialLeft()).as("%s: no partial request left over", how).isFalse();
    }

    static void assertError(Outcome o, int status, String how) {
        assertThat(o.errorStatus()).as("%s: error status (message: %s; completed before it: %s; partial left: %s)",
                how, o.errorMessage(), o.requests(), o.partialLeft()).isEqualTo(status);
    }


    /** Builder of an expected request; path and query follow from an origin-form target. */
    static final class E {
        private final String method;
        private final String target;
        private final String version;
        private String path;
        private String query;
        private boolean keepAlive;
        private String body = "";
        private boolean expectContinue;
        private final List<Field> headers = new ArrayList<>();

        E(String method, String target, String version) {
            this.method = method;
            this.target = target;
            this.version = version;
            int q = target.indexOf('?');
            this.path = q < 0 ? target : target.substring(0, q);
            this.query = q < 0 ? null : target.substring(q + 1);
            this.keepAlive = version.equals("HTTP/1.1");
        }

        E path(String p) { path = p; return this; }
        E query(String q) { query = q; return this; }
        E keepAlive(boolean k) { keepAlive = k; return this; }
        E body(String b) { body = b; return this; }
        E expectContinue() { expectContinue = true; return this; }
        E h(String name, String value) { headers.add(new Field(name, value)); return this; }

        Parsed build() {
            return new Parsed(method, target, path, query, version, List.copyOf(headers), body, keepAlive, expectContinue);
        }
    }

    static E r11(String method, String target) {
        return new E(method, target, "HTTP/1.1");
    }

    static E r10(String method, String target) {
        return new E(method, target, "HTTP/1.0");
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static Arguments valid(String name, String raw, E... expected) {
        return Arguments.of(name, bytes(raw), Stream.of(expected).map(E::build).toList());
    }

    static Arguments bad(String name, String raw, int status) {
        return bad(name, DEFAULTS, raw, status);
    }

    static Arguments bad(String name, ServerConfig config, String raw, int status) {
        return Arguments.of(name, config, bytes(raw), status);
    }

    static String repeat(char c, int n) {
        return String.valueOf(c).repeat(n);
    }


    static Stream<Arguments> validCases() {
        String latin = "caf\u00e9 \u0080\u00ff\u00a0end";
        // Exactly at the limits: a request line of 8192 bytes, a header section of 32768 bytes, 128 fields.
        String longTarget = "/" + repeat('a', 8192 - "GET ".length() - " HTTP/1.1".length() - 1);
        String longLine = "GET " + longTarget + " HTTP/1.1";
        String pad = repeat('p', 32768 - "Host: h\r\n".length() - "X-Pad: \r\n".length() - 2);
        StringBuilder fields = new StringBuilder("Host: h\r\n");
        E many = r11("GET", "/many").h("Host", "h");
        for (int i = 1; i < 128; i++) {
            fields.append("X-F").append(i).append(": v").append(i).append("\r\n");
            many.h("X-F" + i, "v" + i);
        }
        return Stream.of(
                valid("simple GET",
                        "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
                        r11("GET", "/").h("Host", "example.com")),
                valid("GET with query",
                        "GET /search?q=a%20b&x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
                        r11("GET", "/search?q=a%20b&x=1").h("Host", "h").h("Accept", "*/*")),
                valid("absolute-form target",
                        "GET http://example.com/a?b=c HTTP/1.1\r\nHost: example.com\r\n\r\n",
                        r11("GET", "http://example.com/a?b=c").path("/a").query("b=c").h("Host", "example.com")),
                valid("absolute-form target with port and no query",
                        "GET http://example.com:8080/x/y HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
                        r11("GET", "http://example.com:8080/x/y").path("/x/y").h("Host", "example.com:8080")),
                valid("HEAD",
                        "HEAD /plaintext HTTP/1.1\r\nHost: h\r\n\r\n",
                        r11("HEAD", "/plaintext").h("Host", "h")),
                valid("extension method",
                        "PURGE /cache HTTP/1.1\r\nHost: h\r\n\r\n",
                        r11("PURGE", "/cache").h("Host", "h")),
                valid("OPTIONS asterisk-form",
                        "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
                        r11("OPTIONS", "*").h("Host", "h")),
                valid("POST with Content-Length",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world",
                        r11("POST", "/echo").h("Host", "h").h("Content-Type", "text/plain").h("Content-Length", "11")
                                .body("hello world")),
                valid("POST with Content-Length 0",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
                        r11("POST", "/echo").h("Host", "h").h("Content-Length", "0")),
                valid("body with CR, LF and NUL bytes is opaque",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 8\r\n\r\n\r\n\0\r\nGET",
                        r11("POST", "/echo").h("Host", "h").h("Content-Length", "8").body("\r\n\0\r\nGET")),
                valid("chunked with extensions and trailers",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "5;name=value\r\nhello\r\n"
                                + "6 ; q=\"a;b\" ;x\r\n world\r\n"
                                + "0;last=1\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n",
                        r11("POST", "/echo").h("Host", "h").h("Transfer-Encoding", "chunked").body("hello world")),
                valid("chunked with uppercase and lowercase hex sizes",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "A\r\n0123456789\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n00a\r\nABCDEFGHIJ\r\n000\r\n\r\n",
                        r11("POST", "/echo").h("Host", "h").h("Transfer-Encoding", "chunked")
                                .body("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ")),
                valid("chunked with an empty body",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        r11("POST", "/echo").h("Host", "h").h("Transfer-Encoding", "chunked")),
                valid("pipelined GETs with a POST and a chunked POST between them",
                        "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"
                                + "GET /3?a=b HTTP/1.1\r\nHost: h\r\n\r\n"
                                + "POST /4 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"
                                + "GET /5 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
                        r11("GET", "/1").h("Host", "h"),
                        r11("POST", "/2").h("Host", "h").h("Content-Length", "3").body("xyz"),
                        r11("GET", "/3?a=b").h("Host", "h"),
                        r11("POST", "/4").h("Host", "h").h("Transfer-Encoding", "chunked").body("ab"),
                        r11("GET", "/5").h("Host", "h").h("Connection", "close").keepAlive(false)),
                valid("HTTP/1.0 without keep-alive",
                        "GET / HTTP/1.0\r\n\r\n",
                        r10("GET", "/").keepAlive(false)),
                valid("HTTP/1.0 with Connection: keep-alive",
                        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                        r10("GET", "/").h("Connection", "keep-alive").keepAlive(true)),
                valid("HTTP/1.0 with Connection: Keep-Alive in another case",
                        "GET / HTTP/1.0\r\nHost: h\r\nconnection: Keep-Alive\r\n\r\n",
                        r10("GET", "/").h("Host", "h").h("connection", "Keep-Alive").keepAlive(true)),
                valid("HTTP/1.1 Connection: close",
                        "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
                        r11("GET", "/").h("Host", "h").h("Connection", "close").keepAlive(false)),
                valid("HTTP/1.1 HttpConnection list containing close",
                        "GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade , CLOSE\r\n\r\n",
                        r11("GET", "/").h("Host", "h").h("Connection", "Upgrade , CLOSE").keepAlive(false)),
                valid("surrounding OWS trimmed, inner whitespace kept",
                        "GET / HTTP/1.1\r\nHost:h\r\nX-A:   spaced  value \t \r\nX-B:\tv\r\n\r\n",
                        r11("GET", "/").h("Host", "h").h("X-A", "spaced  value").h("X-B", "v")),
                valid("empty header values",
                        "GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Blank:   \t\r\n\r\n",
                        r11("GET", "/").h("Host", "h").h("X-Empty", "").h("X-Blank", "")),
                valid("leading CRLFs before the request line",
                        "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
                        r11("GET", "/").h("Host", "h")),
                valid("obs-text bytes in a header value",
                        "GET / HTTP/1.1\r\nHost: h\r\nX-Latin: " + latin + "\r\n\r\n",
                        r11("GET", "/").h("Host", "h").h("X-Latin", latin)),
                valid("Expect: 100-continue",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
                        r11("POST", "/echo").h("Host", "h").h("Expect", "100-continue").h("Content-Length", "2")
                                .body("ok").expectContinue()),
                valid("Expect: 100-Continue is case-insensitive",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nexpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok",
                        r11("POST", "/echo").h("Host", "h").h("expect", "100-Continue").h("Content-Length", "2")
                                .body("ok").expectContinue()),
                valid("case-insensitive content-LENGTH",
                        "POST /echo HTTP/1.1\r\nhOsT: h\r\ncontent-LENGTH: 3\r\n\r\nabc",
                        r11("POST", "/echo").h("hOsT", "h").h("content-LENGTH", "3").body("abc")),
                valid("case-insensitive TRANSFER-ENCODING: Chunked",
                        "POST /echo HTTP/1.1\r\nHost: h\r\nTRANSFER-ENCODING: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                        r11("POST", "/echo").h("Host", "h").h("TRANSFER-ENCODING", "Chunked").body("abc")),
                valid("request line of exactly 8192 bytes",
                        longLine + "\r\nHost: h\r\n\r\n",
                        r11("GET", longTarget).h("Host", "h")),
                valid("header section of exactly 32768 bytes",
                        "GET /big HTTP/1.1\r\nHost: h\r\nX-Pad: " + pad + "\r\n\r\n",
                        r11("GET", "/big").h("Host", "h").h("X-Pad", pad)),
                valid("128 header fields",
                        "GET /many HTTP/1.1\r\n" + fields + "\r\n",
                        many));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validWhole(String name, byte[] raw, List<Parsed> expected) {
        assertValid(feed(DEFAULTS, whole(raw)), expected, "whole");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validSplitAtEveryIndex(String name, byte[] raw, List<Parsed> expected) {
        for (int at = 1; at < raw.length; at++) {
            assertValid(feed(DEFAULTS, split(raw, at)), expected, "split at " + at);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validByteByByte(String name, byte[] raw, List<Parsed> expected) {
        assertValid(feed(DEFAULTS, bytewise(raw)), expected, "byte by byte");
    }


    static Stream<Arguments> errorCases() {
        String host = "Host: h\r\n";
        StringBuilder fields129 = new StringBuilder(host);
        for (int i = 1; i < 129; i++) {
            fields129.append("X-F").append(i).append(": v\r\n");
        }
        StringBuilder manyBigFields = new StringBuilder(host);
        for (int i = 0; i < 100; i++) {
            manyBigFields.append("X-F").append(i).append(": ").append(repeat('v', 400)).append("\r\n");
        }
        String pad = repeat('p', 32768 - host.length() - "X-Pad: \r\n".length() - 2 + 1);
        String longTarget = "/" + repeat('a', 8192 - "GET ".length() - " HTTP/1.1".length());
        ServerConfig tenByteBodies = DEFAULTS.maxBodySize(10);
        String post = "POST /echo HTTP/1.1\r\nHost: h\r\n";
        String chunked = post + "Transfer-Encoding: chunked\r\n\r\n";
        return Stream.of(
                // limits
                bad("request line of 8193 bytes", "GET " + longTarget + " HTTP/1.1\r\n" + host + "\r\n", 414),
                bad("request line far over 8 KiB", "GET /" + repeat('b', 9000) + " HTTP/1.1\r\n" + host + "\r\n", 414),
                bad("request line over 8 KiB without any line end", "GET /" + repeat('c', 8300), 414),
                bad("header section of 32769 bytes", "GET / HTTP/1.1\r\n" + host + "X-Pad: " + pad + "\r\n\r\n", 431),
                bad("header section over 32 KiB in many fields", "GET / HTTP/1.1\r\n" + manyBigFields + "\r\n", 431),
                bad("129 header fields", "GET / HTTP/1.1\r\n" + fields129 + "\r\n", 431),
                bad("Content-Length over 16 MiB", post + "Content-Length: 16777217\r\n\r\n", 413),
                bad("chunk size over 16 MiB", chunked + "1000001\r\n", 413),
                bad("chunks together over maxBodySize", tenByteBodies, chunked + "6\r\nabcdef\r\n5\r\nghijk\r\n0\r\n\r\n", 413),
                bad("Content-Length over maxBodySize", tenByteBodies, post + "Content-Length: 11\r\n\r\n01234567890", 413),
                bad("too many empty lines before the request line", "\r\n".repeat(9) + "GET / HTTP/1.1\r\n" + host + "\r\n", 400),
                // transfer codings
                // like Netty 4.2 and nginx: a proxy in front may pick another element of a list
                bad("Content-Length list of equal values", post + "Content-Length: 5,5\r\n\r\nabcde", 400),
                bad("Content-Length list of equal values with a space", post + "Content-Length: 11, 11\r\n\r\nhello world", 400),
                bad("Content-Length twice with equal values", post + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nabcde", 400),
                bad("asterisk-form for GET", "GET * HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("authority-form for GET", "GET example.com:443 HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("CONNECT with origin-form", "CONNECT / HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("malformed percent-escape in the path", "GET /a%zz HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("trailing percent in the path", "GET /a% HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("percent with one hex digit", "GET /a%4 HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("malformed percent-escape in the query", "GET /s?q=%g1 HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("Transfer-Encoding: gzip", post + "Transfer-Encoding: gzip\r\n\r\n", 501),
                bad("Transfer-Encoding: gzip, chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501),
                bad("Transfer-Encoding: chunked, gzip", post + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400),
                bad("Transfer-Encoding: chunked, chunked", post + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400),
                bad("chunked in two Transfer-Encoding fields", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                bad("Content-Length with Transfer-Encoding", post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                bad("Transfer-Encoding with Content-Length", post + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400),
                bad("Transfer-Encoding with Content-Length: 0", post + "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n", 400),
                bad("HTTP/1.0 with Transfer-Encoding", "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                // versions
                bad("HTTP/2.0", "GET / HTTP/2.0\r\n" + host + "\r\n", 505),
                bad("HTTP/3.0", "GET / HTTP/3.0\r\n" + host + "\r\n", 505),
                bad("HTTP/0.9 style version HTTP/0.9", "GET / HTTP/0.9\r\n" + host + "\r\n", 505),
                // Content-Length values
                bad("differing Content-Length fields", post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef", 400),
                bad("differing Content-Length list", post + "Content-Length: 5, 6\r\n\r\nabcdef", 400),
                bad("Content-Length: abc", post + "Content-Length: abc\r\n\r\n", 400),
                bad("Content-Length: -1", post + "Content-Length: -1\r\n\r\n", 400),
                bad("Content-Length: +5", post + "Content-Length: +5\r\n\r\nabcde", 400),
                bad("Content-Length: 5 5", post + "Content-Length: 5 5\r\n\r\nabcde", 400),
                bad("Content-Length: empty", post + "Content-Length:\r\n\r\n", 400),
                bad("Content-Length: 99999999999999999999999", post + "Content-Length: 99999999999999999999999\r\n\r\n", 400),
                // header syntax
                bad("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
                bad("tab before colon", "GET / HTTP/1.1\r\n" + host + "X-A\t: v\r\n\r\n", 400),
                bad("obs-fold with a space", "GET / HTTP/1.1\r\n" + host + "X-A: v\r\n w\r\n\r\n", 400),
                bad("obs-fold with a tab", "GET / HTTP/1.1\r\n" + host + "X-A: v\r\n\tw\r\n\r\n", 400),
                bad("whitespace before the first field", "GET / HTTP/1.1\r\n " + host + "\r\n", 400),
                bad("field without a colon", "GET / HTTP/1.1\r\n" + host + "X-A v\r\n\r\n", 400),
                bad("empty field name", "GET / HTTP/1.1\r\n" + host + ": v\r\n\r\n", 400),
                bad("NUL in a value", "GET / HTTP/1.1\r\n" + host + "X-A: a\0b\r\n\r\n", 400),
                bad("bare CR in a value", "GET / HTTP/1.1\r\n" + host + "X-A: a\rb\r\n\r\n", 400),
                bad("CTL 0x01 in a value", "GET / HTTP/1.1\r\n" + host + "X-A: a\u0001b\r\n\r\n", 400),
                bad("DEL in a value", "GET / HTTP/1.1\r\n" + host + "X-A: a\u007Fb\r\n\r\n", 400),
                bad("NUL in a field name", "GET / HTTP/1.1\r\n" + host + "X\0A: v\r\n\r\n", 400),
                bad("missing Host on HTTP/1.1", "GET / HTTP/1.1\r\nX-A: v\r\n\r\n", 400),
                bad("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
                bad("two identical Host fields", "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", 400),
                bad("Expect: something-else", post + "Expect: something-else\r\nContent-Length: 1\r\n\r\nx", 417),
                // line endings
                bad("bare LF line endings everywhere", "GET / HTTP/1.1\nHost: h\n\n", 400),
                bad("bare LF after a header", "GET / HTTP/1.1\r\nHost: h\nX-A: v\r\n\r\n", 400),
                bad("bare LF ending the header section", "GET / HTTP/1.1\r\nHost: h\r\n\n", 400),
                bad("bare LF as leading empty line", "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
                // RequestParser.requestLine() takes the byte before the LF to be the CR without checking it.
                bad("request line ending in 'x' + bare LF", "GET / HTTP/1.1x\n" + host + "\r\n", 400),
                bad("request line ending in space + bare LF", "GET / HTTP/1.1 \n" + host + "\r\n", 400),
                bad("bare LF after the last chunk-size line", chunked + "0\n\r\n", 400),
                bad("bare LF ending the trailers", chunked + "0\r\n\n", 400),
                // request lines
                bad("request line without version", "GET /\r\n" + host + "\r\n", 400),
                bad("two spaces after the method", "GET  / HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("lowercase http version", "GET / http/1.1\r\n" + host + "\r\n", 400),
                bad("text after the version", "GET / HTTP/1.1 x\r\n" + host + "\r\n", 400),
                bad("trailing space after the version", "GET / HTTP/1.1 \r\n" + host + "\r\n", 400),
                bad("tab between method and target", "GET\t/ HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("tab between target and version", "GET /\tHTTP/1.1\r\n" + host + "\r\n", 400),
                bad("empty method", " / HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("method with a non-token character", "GE(T / HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("version HTTP/11", "GET / HTTP/11\r\n" + host + "\r\n", 400),
                bad("version HTTP/1.x", "GET / HTTP/1.x\r\n" + host + "\r\n", 400),
                bad("version HTTP/1.10", "GET / HTTP/1.10\r\n" + host + "\r\n", 400),
                // targets
                bad("control character in the target", "GET /a\u0001b HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("DEL in the target", "GET /a\u007Fb HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("space in the target", "GET /a b HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("non-ASCII in the target", "GET /caf\u00e9 HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("fragment in the target", "GET /a#frag HTTP/1.1\r\n" + host + "\r\n", 400),
                bad("target neither origin- nor absolute-form", "GET a/b HTTP/1.1\r\n" + host + "\r\n", 400),
                // chunked framing
                bad("chunk size zz", chunked + "zz\r\nab\r\n0\r\n\r\n", 400),
                bad("empty chunk size", chunked + "\r\nab\r\n0\r\n\r\n", 400),
                bad("negative chunk size", chunked + "-1\r\nab\r\n0\r\n\r\n", 400),
                // Found by RequestParserFuzzTest: 16 hex digits shifted into the sign bit and passed as a negative size.
                bad("chunk size of 16 hex digits", chunked + "ffffffffffffffff\r\nab\r\n0\r\n\r\n", 400),
                bad("chunk size of 19 hex digits", chunked + "fffffffffffffffffff\r\n", 400),
                bad("chunk size 8000000000000000", chunked + "8000000000000000\r\nab\r\n", 400),
                bad("chunk data not followed by CRLF", chunked + "3\r\nabcX\r\n0\r\n\r\n", 400),
                bad("chunk data followed by bare LF", chunked + "3\r\nabc\n0\r\n\r\n", 400),
                bad("control character in a chunk extension", chunked + "3;a\u0001\r\nabc\r\n0\r\n\r\n", 400),
                bad("malformed trailer field", chunked + "0\r\nX-T : v\r\n\r\n", 400));
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @MethodSource("errorCases")
    void errorWhole(String name, ServerConfig config, byte[] raw, int status) {
        assertError(feed(config, whole(raw)), status, "whole");
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @MethodSource("errorCases")
    void errorSplitAtEveryIndex(String name, ServerConfig config, byte[] raw, int status) {
        for (int at = 1; at < raw.length; at++) {
            assertError(feed(config, split(raw, at)), status, "split at " + at);
        }
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @MethodSource("errorCases")
    void errorByteByByte(String name, ServerConfig config, byte[] raw, int status) {
        assertError(feed(config, bytewise(raw)), status, "byte by byte");
    }


    /**
     * Not a timing test: a 30 KiB header section fed one byte at a time must complete (a parser
     * that rescans from the start on every call would still pass, but slowly; one that loses its
     * place would not).
     */
    @Test
    void thirtyKiBHeaderSectionOneByteAtATime() {
        StringBuilder sb = new StringBuilder("GET /big HTTP/1.1\r\nHost: h\r\n");
        int fields = 0;
        while (sb.length() < 30 * 1024) {
            sb.append("X-Field-").append(fields++).append(": ").append(repeat('v', 1000)).append("\r\n");
        }
        sb.append("\r\n");
        byte[] raw = bytes(sb.toString());

        RequestParser parser = new RequestParser(DEFAULTS);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        for (int i = 0; i < raw.length - 1; i++) {
            in.append(ByteBuffer.wrap(raw, i, 1));
            assertThat(parser.parseBuffered(in, req)).as("byte %d of %d", i, raw.length).isEqualTo(RequestParser.NEED_MORE);
        }
        in.append(ByteBuffer.wrap(raw, raw.length - 1, 1));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.COMPLETE);
        assertThat(parser.consumed()).isEqualTo(raw.length);
        assertThat(req.api.headerCount()).isEqualTo(fields + 1);
        assertThat(req.api.headerValue(fields)).isEqualTo(repeat('v', 1000));
    }

    /** A parse that finds no new bytes keeps its place: calling it again changes nothing. */
    @Test
    void parsingAgainWithoutNewBytesIsHarmless() {
        byte[] raw = bytes("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        RequestParser parser = new RequestParser(DEFAULTS);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        for (int i = 0; i < raw.length - 1; i++) {
            in.append(ByteBuffer.wrap(raw, i, 1));
            for (int repeat = 0; repeat < 3; repeat++) {
                assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.NEED_MORE);
            }
        }
        in.append(ByteBuffer.wrap(raw, raw.length - 1, 1));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.COMPLETE);
        assertThat(req.api.bodyText()).isEqualTo("abc");
    }

    /**
     * Lent memory is parsed where it lies (the request refers to it, not to a copy); ending the
     * loan copies exactly the unfinished request, and parsing resumes on that copy.
     */
    @Test
    void lentMemoryIsParsedInPlaceAndOnlyThePartialRequestIsKept() {
        String complete = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
        String partial = "GET /b HTTP/1.1\r\nHo";
        byte[] raw = bytes(complete + partial);
        MemorySegment lent = MemorySegment.ofArray(raw);
        RequestParser parser = new RequestParser(DEFAULTS);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();

        in.lend(lent, raw, 0, raw.length);
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.COMPLETE);
        assertThat(req.data).as("parsed in place").isSameAs(lent);
        assertThat(req.api.path()).isEqualTo("/a");
        in.consume(parser.consumed());
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.NEED_MORE);

        in.keepTail();
        assertThat(in.isLent()).isFalse();
        assertThat(in.available()).as("only the partial request is copied").isEqualTo(partial.length());
        lent.fill((byte) 0);
        in.append(ByteBuffer.wrap(bytes("st: h\r\n\r\n")));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.COMPLETE);
        assertThat(req.data).isNotSameAs(lent);
        assertThat(req.api.path()).isEqualTo("/b");
        assertThat(req.api.header("host")).isEqualTo("h");
    }

    /** inBody() is what the connection uses to decide on 100 Continue. */
    @Test
    void inBodyAfterTheHeaderSection() {
        RequestParser parser = new RequestParser(DEFAULTS);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        in.append(ByteBuffer.wrap(bytes("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n")));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.NEED_MORE);
        assertThat(parser.inBody()).isFalse();
        in.append(ByteBuffer.wrap(bytes("\r\nab")));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.NEED_MORE);
        assertThat(parser.inBody()).isTrue();
        in.append(ByteBuffer.wrap(bytes("c")));
        assertThat(parser.parseBuffered(in, req)).isEqualTo(RequestParser.COMPLETE);
        in.consume(parser.consumed());
        assertThat(parser.inBody()).isFalse();
        assertThat(parser.inProgress(in)).isFalse();
    }

    /** What streaming the body of the one request in a byte sequence produced: what the sink got, then an error status (0: none). */
    record Streamed(String body, int errorStatus, boolean complete) {
    }

    /** Feeds {@code pieces} in order, streaming the body of the request they hold to a sink that takes everything. */
    static Streamed stream(ServerConfig config, List<byte[]> pieces) {
        RequestParser parser = new RequestParser(config);
        InputBuffer in = new InputBuffer(256);
        RequestState req = new RequestState();
        StringBuilder body = new StringBuilder();
        BodyDecoder.BodySink sink = (data, array, offset, length) -> {
            body.append(new String(data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1));
            return length;
        };
        boolean streaming = false;
        try {
            for (byte[] piece : pieces) {
                in.append(ByteBuffer.wrap(piece));
                if (!streaming) {
                    int result = parser.parse(in, req);
                    if (result == RequestParser.NEED_MORE) {
                        continue;
                    }
                    assertThat(result).as("a request with a body stops at its header section").isEqualTo(RequestParser.HEADERS);
                    parser.beginStreaming(in, req);
                    streaming = true;
                }
                if (parser.streamBody(in, sink) == RequestParser.COMPLETE) {
                    assertThat(parser.inProgress(in)).as("nothing left after the body").isFalse();
                    return new Streamed(body.toString(), 0, true);
                }
            }
        } catch (HttpException e) {
            return new Streamed(body.toString(), e.status(), false);
        }
        return new Streamed(body.toString(), 0, false);
    }

    /**
     * The trailer section (its fields and the empty line ending it) is limited like the header
     * section: 431 one byte over, whether the body is buffered or streamed, whole or byte by byte.
     */
    @ParameterizedTest(name = "{0} bytes of trailers, streamed: {1} -> {2}")
    @CsvSource({"200, false, 0", "201, false, 431", "200, true, 0", "201, true, 431"})
    void trailerSectionIsLimitedLikeTheHeaderSection(int trailerBytes, boolean streamed, int status) {
        ServerConfig config = DEFAULTS.maxHeaderSize(200);
        String first = "X-A: " + repeat('a', 50) + "\r\n";
        String second = "X-B: " + repeat('b', trailerBytes - first.length() - "X-B: \r\n".length() - 2) + "\r\n";
        String head = "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
        byte[] raw = bytes(head + "3;x=y\r\nabc\r\n0\r\n" + first + second + "\r\n");
        for (List<byte[]> pieces : List.of(whole(raw), bytewise(raw))) {
            String how = pieces.size() == 1 ? "whole" : "byte by byte";
            if (streamed) {
                Streamed s = stream(config, pieces);
                assertThat(s.errorStatus()).as(how).isEqualTo(status);
                assertThat(s.complete()).as(how).isEqualTo(status == 0);
                assertThat(s.body()).as(how).isEqualTo("abc");
            } else if (status == 0) {
                assertValid(feed(config, pieces), List.of(r11("POST", "/echo").h("Host", "h")
                        .h("Transfer-Encoding", "chunked").body("abc").build()), how);
            } else {
                assertError(feed(config, pieces), status, how);
            }
        }
    }
}
