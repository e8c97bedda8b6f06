// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.ClientException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Table-driven tests of {@link ResponseParser}: every row is fed whole (from a heap and from a
 * direct buffer), split into two pieces at every index, and one byte at a time, and must give the
 * same responses, or the same failure, each way (as {@code RequestParserTest} does for requests).
 */
class ResponseParserTest {
    private static final ClientSettings DEFAULTS = ClientSettings.defaults();
    /** Small head limits, so rows at the limits stay short enough to split at every index. */
    private static final ClientSettings SMALL = DEFAULTS.headLimits(32, 96, 4);

    record Field(String name, String value) {
        @Override
        public String toString() {
            return name + ": " + value;
        }
    }

    /** A completed response, copied out of the parser's reused buffers at once. */
    record Parsed(int status, boolean http10, String reason, List<Field> fields, String body, List<Field> trailers,
            boolean reusable, ResponseParser.Framing framing) {
    }

    /** What feeding a row produced: the completed responses, then a failure (null: none), and whether a response was left unfinished. */
    record Outcome(List<Parsed> responses, Reason failure, String message, boolean partialLeft) {
    }

    /** Collects what the parser reports; after each response it expects the next, as a connection does. */
    static final class Recorder implements ResponseParser.Listener {
        final List<Parsed> done = new ArrayList<>();
        final boolean[] heads;
        final ResponseParser parser;
        int status;
        boolean http10;
        String reason;
        List<Field> fields;
        boolean reusable;
        ResponseParser.Framing framing;
        StringBuilder body;
        boolean inResponse;
        /** The most body bytes taken per call: fewer than offered pauses the parser, as a full streamed body does. */
        final int takeAtMost;

        Recorder(ResponseParser parser, boolean[] heads, int takeAtMost) {
            this.parser = parser;
            this.heads = heads;
            this.takeAtMost = takeAtMost;
        }

        boolean headFor(int response) {
            return response < heads.length && heads[response];
        }

        @Override
        public void head(ResponseParser p) {
            assertThat(inResponse).as("head() once per response").isFalse();
            inResponse = true;
            status = p.status();
            http10 = p.http10();
            reason = new String(p.buffer(), p.reasonStart(), p.reasonEnd() - p.reasonStart(), StandardCharsets.ISO_8859_1);
            fields = fields(p);
            reusable = p.reusable();
            framing = p.framing();
            body = new StringBuilder();
        }

        @Override
        public int body(ByteBuffer data) {
            assertThat(inResponse).as("body() after head()").isTrue();
            assertThat(data.hasRemaining()).as("body() hands on at least one byte").isTrue();
            byte[] b = new byte[Math.min(data.remaining(), takeAtMost)];
            data.get(data.position(), b);
            body.append(new String(b, StandardCharsets.ISO_8859_1));
            return b.length;
        }

        @Override
        public void end(ResponseParser p) {
            assertThat(inResponse).as("end() after head()").isTrue();
            inResponse = false;
            done.add(new Parsed(status, http10, reason, fields, body.toString(), fields(p), reusable, framing));
            parser.begin(headFor(done.size()));
        }

        static List<Field> fields(ResponseParser p) {
            List<Field> list = new ArrayList<>();
            int[] f = p.fieldOffsets();
            for (int i = 0; i < p.fieldCount(); i++) {
                list.add(new Field(latin1(p.buffer(), f[i * 4], f[i * 4 + 1]), latin1(p.buffer(), f[i * 4 + 2], f[i * 4 + 3])));
            }
            return List.copyOf(list);
        }

        static String latin1(byte[] b, int from, int to) {
            return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        }
    }

    /** A row: the bytes, which responses answer HEAD requests, whether the input ends after them, and the limits. */
    record Input(byte[] raw, boolean[] heads, boolean eof, ClientSettings settings) {
    }

    static Outcome feed(Input input, List<ByteBuffer> pieces) {
        return feed(input, pieces, Integer.MAX_VALUE);
    }

    static Outcome feed(Input input, List<ByteBuffer> pieces, int takeAtMost) {
        ResponseParser parser = new ResponseParser(input.settings());
        Recorder recorder = new Recorder(parser, input.heads(), takeAtMost);
        parser.begin(recorder.headFor(0));
        try {
            for (ByteBuffer piece : pieces) {
                while (piece.hasRemaining()) {
                    int result = parser.parse(piece, recorder);
                    assertThat(result == ResponseParser.COMPLETE || !piece.hasRemaining()
                            || result == ResponseParser.PAUSED && takeAtMost < Integer.MAX_VALUE)
                            .as("parse() returns early only at the end of a response, or paused by the listener").isTrue();
                }
            }
            if (input.eof()) {
                parser.endOfInput(recorder);
            }
        } catch (ResponseException e) {
            return new Outcome(recorder.done, e.reason(), e.getMessage(), true);
        }
        return new Outcome(recorder.done, null, null, parser.started());
    }

    static List<ByteBuffer> whole(byte[] raw) {
        return List.of(ByteBuffer.wrap(raw));
    }

    static List<ByteBuffer> wholeDirect(byte[] raw) {
        return List.of(ByteBuffer.allocateDirect(raw.length).put(raw).flip());
    }

    /** Two pieces; the second sits at an offset within a larger array, as a strategy's read buffer would. */
    static List<ByteBuffer> split(byte[] raw, int at) {
        byte[] padded = new byte[raw.length - at + 7];
        System.arraycopy(raw, at, padded, 3, raw.length - at);
        return List.of(ByteBuffer.wrap(Arrays.copyOfRange(raw, 0, at)), ByteBuffer.wrap(padded, 3, raw.length - at).slice());
    }

    static List<ByteBuffer> bytewise(byte[] raw) {
        List<ByteBuffer> pieces = new ArrayList<>(raw.length);
        for (byte b : raw) {
            pieces.add(ByteBuffer.wrap(new byte[] {b}));
        }
        return pieces;
    }

    static void assertValid(Outcome o, List<Parsed> expected, String how) {
        if (o.failure() != null) {
            fail("%s: expected %d response(s) but the parser failed with %s (%s) after %s", how, expected.size(), o.failure(),
                    o.message(), o.responses());
        }
        assertThat(o.responses()).as(how).containsExactlyElementsOf(expected);
        assertThat(o.partialLeft()).as("%s: no partial response left over", how).isFalse();
    }

    static void assertFailure(Outcome o, Reason reason, String message, int completedBefore, String how) {
        assertThat(o.failure()).as("%s: failure (message: %s; completed before it: %s)", how, o.message(), o.responses())
                .isEqualTo(reason);
        assertThat(o.message()).as("%s: message", how).contains(message);
        assertThat(o.responses()).as("%s: responses completed before the failure", how).hasSize(completedBefore);
    }

    /** Builder of an expected response. */
    static final class R {
        private final int status;
        private boolean http10;
        private String reason = "OK";
        private final List<Field> fields = new ArrayList<>();
        private final List<Field> trailers = new ArrayList<>();
        private String body = "";
        private boolean reusable = true;
        private ResponseParser.Framing framing = ResponseParser.Framing.NONE;

        R(int status) {
            this.status = status;
        }

        R http10() { http10 = true; return this; }
        R reason(String r) { reason = r; return this; }
        R h(String name, String value) { fields.add(new Field(name, value)); return this; }
        R t(String name, String value) { trailers.add(new Field(name, value)); return this; }
        R body(String b) { body = b; return this; }
        R closes() { reusable = false; return this; }
        R framing(ResponseParser.Framing f) { framing = f; return this; }
        R length(String b) { body = b; framing = ResponseParser.Framing.LENGTH; return this; }
        R chunked(String b) { body = b; framing = ResponseParser.Framing.CHUNKED; return this; }
        R untilClose(String b) { body = b; framing = ResponseParser.Framing.CLOSE; reusable = false; return this; }

        Parsed build() {
            return new Parsed(status, http10, reason, List.copyOf(fields), body, List.copyOf(trailers), reusable, framing);
        }
    }

    static R r(int status) {
        return new R(status);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static final boolean[] NO_HEAD = new boolean[0];

    static Arguments valid(String name, String raw, R... expected) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, false, DEFAULTS), Stream.of(expected).map(R::build).toList());
    }

    /** A row whose input ends after the bytes (a body delimited by the close). */
    static Arguments validEof(String name, String raw, R... expected) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, true, DEFAULTS), Stream.of(expected).map(R::build).toList());
    }

    static Arguments validHeads(String name, boolean[] heads, String raw, R... expected) {
        return Arguments.of(name, new Input(bytes(raw), heads, false, DEFAULTS), Stream.of(expected).map(R::build).toList());
    }

    static Arguments validWith(String name, ClientSettings settings, String raw, R... expected) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, false, settings), Stream.of(expected).map(R::build).toList());
    }

    static Arguments bad(String name, String raw, String message) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, false, DEFAULTS), Reason.MALFORMED_RESPONSE, message, 0);
    }

    static Arguments badAfter(String name, int completedBefore, String raw, String message) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, false, DEFAULTS), Reason.MALFORMED_RESPONSE, message,
                completedBefore);
    }

    static Arguments badWith(String name, ClientSettings settings, String raw, String message) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, false, settings), Reason.MALFORMED_RESPONSE, message, 0);
    }

    static Arguments closedEarly(String name, String raw, String message) {
        return Arguments.of(name, new Input(bytes(raw), NO_HEAD, true, DEFAULTS), Reason.CONNECTION_CLOSED, message, 0);
    }

    static final String OK = "HTTP/1.1 200 OK\r\n";

    static Stream<Arguments> validCases() {
        // exactly at the SMALL limits: a 32-byte status line, a 96-byte header section, 4 fields
        String longStatus = "HTTP/1.1 200 " + "r".repeat(32 - 13);
        String pad = "p".repeat(96 - "Content-Length: 0\r\n".length() - "X-P: \r\n".length() - 2);
        return Stream.of(
                valid("Content-Length body",
                        OK + "Content-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
                        r(200).h("Content-Length", "5").h("Content-Type", "text/plain").length("hello")),
                valid("empty reason phrase",
                        "HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok",
                        r(200).reason("").h("Content-Length", "2").length("ok")),
                valid("reason with spaces, a tab and obs-text",
                        "HTTP/1.1 404 Not \tFound \u00e9\u00ff\r\nContent-Length: 0\r\n\r\n",
                        r(404).reason("Not \tFound \u00e9\u00ff").h("Content-Length", "0")),
                valid("status 599 with an unknown reason",
                        "HTTP/1.1 599 Whatever\r\nContent-Length: 0\r\n\r\n",
                        r(599).reason("Whatever").h("Content-Length", "0")),
                valid("204 has no body and keeps the connection",
                        "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n",
                        r(204).reason("No Content").h("X-A", "1")),
                valid("304 ignores its Content-Length",
                        "HTTP/1.1 304 Not Modified\r\nContent-Length: 42\r\nETag: \"x\"\r\n\r\n",
                        r(304).reason("Not Modified").h("Content-Length", "42").h("ETag", "\"x\"")),
                valid("204 ignores Transfer-Encoding",
                        "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n",
                        r(204).reason("No Content").h("Transfer-Encoding", "chunked")),
                validHeads("HEAD response: no body despite Content-Length, then the next response",
                        new boolean[] {true, false},
                        OK + "Content-Length: 11\r\n\r\n" + OK + "Content-Length: 3\r\n\r\nabc",
                        r(200).h("Content-Length", "11"),
                        r(200).h("Content-Length", "3").length("abc")),
                validHeads("HEAD response with Transfer-Encoding: chunked has no body either",
                        new boolean[] {true},
                        OK + "Transfer-Encoding: chunked\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked")),
                valid("Content-Length: 0",
                        OK + "Content-Length: 0\r\n\r\n",
                        r(200).h("Content-Length", "0")),
                valid("Content-Length with leading zeros",
                        OK + "Content-Length: 007\r\n\r\n1234567",
                        r(200).h("Content-Length", "007").length("1234567")),
                valid("Content-Length repeated with one value",
                        OK + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
                        r(200).h("Content-Length", "3").h("Content-Length", "3").length("abc")),
                valid("Content-Length listed with one value",
                        OK + "Content-Length: 3 , 3,3\r\n\r\nabc",
                        r(200).h("Content-Length", "3 , 3,3").length("abc")),
                valid("chunked",
                        OK + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("hello world")),
                valid("chunked, sizes in upper case with leading zeros",
                        OK + "Transfer-Encoding: chunked\r\n\r\n000A\r\n0123456789\r\n00\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("0123456789")),
                valid("chunked with extensions, quoted and bare, after whitespace",
                        OK + "Transfer-Encoding: chunked\r\n\r\n3;a=b;c\r\nabc\r\n2 ; name=\"x;y=z\"\r\nde\r\n0;last\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("abcde")),
                valid("chunked with trailers",
                        OK + "Transfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n4\r\nwiki\r\n0\r\nX-Sum: 42\r\nX-Empty:\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").h("Trailer", "X-Sum").chunked("wiki")
                                .t("X-Sum", "42").t("X-Empty", "")),
                valid("chunked with no data",
                        OK + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("")),
                valid("chunked in one-byte chunks",
                        OK + "Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n1\r\nb\r\n1\r\nc\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("abc")),
                valid("chunked body holding CRLFs and NULs",
                        OK + "Transfer-Encoding: chunked\r\n\r\n6\r\n\r\n\0\r\n\0\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("\r\n\0\r\n\0")),
                valid("Transfer-Encoding wins over Content-Length, and the connection is not reused",
                        OK + "Content-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
                        r(200).h("Content-Length", "100").h("Transfer-Encoding", "chunked").chunked("hi").closes()),
                valid("gzip then chunked: chunked framing, the coded bytes handed on",
                        OK + "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n\u001f\u008b\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "gzip, chunked").chunked("\u001f\u008b")),
                valid("Transfer-Encoding split over two fields, chunked last",
                        OK + "Transfer-Encoding: gzip\r\nTransfer-Encoding: CHUNKED\r\n\r\n1\r\nz\r\n0\r\n\r\n",
                        r(200).h("Transfer-Encoding", "gzip").h("Transfer-Encoding", "CHUNKED").chunked("z")),
                validEof("chunked not last: the body runs to the close",
                        OK + "Transfer-Encoding: chunked, gzip\r\n\r\nraw bytes",
                        r(200).h("Transfer-Encoding", "chunked, gzip").untilClose("raw bytes")),
                validEof("a coding other than chunked: the body runs to the close",
                        OK + "Transfer-Encoding: gzip\r\n\r\nzz",
                        r(200).h("Transfer-Encoding", "gzip").untilClose("zz")),
                validEof("no length: the body runs to the close",
                        OK + "Content-Type: text/plain\r\n\r\nuntil the end\r\n\r\nand more",
                        r(200).h("Content-Type", "text/plain").untilClose("until the end\r\n\r\nand more")),
                validEof("no length and no body before the close",
                        OK + "\r\n",
                        r(200).untilClose("")),
                valid("Connection: close",
                        OK + "Connection: close\r\nContent-Length: 1\r\n\r\nx",
                        r(200).h("Connection", "close").h("Content-Length", "1").length("x").closes()),
                valid("Connection options in any case, close among them",
                        OK + "Connection: Keep-Alive, CLOSE\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("Connection", "Keep-Alive, CLOSE").h("Content-Length", "0").closes()),
                valid("Connection: keep-alive on HTTP/1.1",
                        OK + "Connection: keep-alive\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("Connection", "keep-alive").h("Content-Length", "0")),
                valid("HTTP/1.0 with a length is not reused",
                        "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
                        r(200).http10().h("Content-Length", "2").length("ok").closes()),
                valid("HTTP/1.0 with keep-alive and a length is reused",
                        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
                        r(200).http10().h("Connection", "keep-alive").h("Content-Length", "2").length("ok")),
                validEof("HTTP/1.0 with keep-alive but no length runs to the close",
                        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody",
                        r(200).http10().h("Connection", "keep-alive").untilClose("body")),
                valid("100 Continue skipped",
                        "HTTP/1.1 100 Continue\r\n\r\n" + OK + "Content-Length: 1\r\n\r\n!",
                        r(200).h("Content-Length", "1").length("!")),
                valid("103 Early Hints with fields skipped",
                        "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nLink: </b.js>; rel=preload\r\n\r\n"
                                + "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n",
                        r(201).reason("Created").h("Content-Length", "0")),
                valid("102 then 100 then the final response",
                        "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n" + OK + "Content-Length: 0\r\n\r\n",
                        r(200).h("Content-Length", "0")),
                valid("several Set-Cookie fields stay apart",
                        OK + "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2, c=3\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("Set-Cookie", "a=1; Path=/").h("Set-Cookie", "b=2, c=3").h("Content-Length", "0")),
                valid("values with inner tabs, surrounding whitespace trimmed",
                        OK + "X-Tabs:\t a\tb  c \t\r\nX-None:   \r\nContent-Length: 0\r\n\r\n",
                        r(200).h("X-Tabs", "a\tb  c").h("X-None", "").h("Content-Length", "0")),
                valid("obs-text in a value",
                        OK + "X-Latin: caf\u00e9 \u0080\u00ff\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("X-Latin", "caf\u00e9 \u0080\u00ff").h("Content-Length", "0")),
                valid("field names of every token character",
                        OK + "X-!#$%&'*+.^_`|~09az: v\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("X-!#$%&'*+.^_`|~09az", "v").h("Content-Length", "0")),
                valid("field name case kept",
                        OK + "content-LENGTH: 1\r\n\r\nq",
                        r(200).h("content-LENGTH", "1").length("q")),
                valid("two pipelined responses in one input",
                        OK + "Content-Length: 1\r\n\r\na" + OK + "Content-Length: 1\r\n\r\nb",
                        r(200).h("Content-Length", "1").length("a"),
                        r(200).h("Content-Length", "1").length("b")),
                valid("pipelined: a length, a chunked body, a 204",
                        OK + "Content-Length: 2\r\n\r\nab"
                                + OK + "Transfer-Encoding: chunked\r\n\r\n2\r\ncd\r\n0\r\n\r\n"
                                + "HTTP/1.1 204 No Content\r\n\r\n",
                        r(200).h("Content-Length", "2").length("ab"),
                        r(200).h("Transfer-Encoding", "chunked").chunked("cd"),
                        r(204).reason("No Content")),
                validWith("at the limits: status line, header section and field count",
                        SMALL,
                        longStatus + "\r\nContent-Length: 0\r\nX-P: " + pad + "\r\n\r\n",
                        r(200).reason("r".repeat(19)).h("Content-Length", "0").h("X-P", pad)),
                validWith("at the limits: four trailer fields",
                        SMALL,
                        OK + "Transfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
                        r(200).h("Transfer-Encoding", "chunked").chunked("").t("A", "1").t("B", "2").t("C", "3").t("D", "4")),
                valid("a value that is only a comma list of spaces in Connection",
                        OK + "Connection: ,  ,\r\nContent-Length: 0\r\n\r\n",
                        r(200).h("Connection", ",  ,").h("Content-Length", "0")));
    }

    static Stream<Arguments> failureCases() {
        String chunked = OK + "Transfer-Encoding: chunked\r\n\r\n";
        return Stream.of(
                bad("no space after the status code", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", "no space after the status code"),
                bad("HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", "unsupported HTTP version HTTP/2.0"),
                bad("HTTP/1.2", "HTTP/1.2 200 OK\r\n\r\n", "unsupported HTTP version HTTP/1.2"),
                bad("lower-case version", "http/1.1 200 OK\r\n\r\n", "does not start with HTTP/1.1 or HTTP/1.0"),
                bad("garbage instead of a status line", "garbage\r\n\r\n", "does not start with HTTP/1.1 or HTTP/1.0"),
                bad("an empty line before the status line", "\r\n" + OK + "Content-Length: 0\r\n\r\n",
                        "does not start with HTTP/1.1 or HTTP/1.0"),
                bad("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", "no three-digit status code"),
                bad("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", "no space after the status code"),
                bad("status below 100", "HTTP/1.1 099 Low\r\n\r\n", "status code 99 out of range"),
                bad("status above 599", "HTTP/1.1 600 High\r\n\r\n", "status code 600 out of range"),
                bad("two spaces after the version", "HTTP/1.1  200 OK\r\n\r\n", "no three-digit status code"),
                bad("control character in the reason", "HTTP/1.1 200 O\u0001K\r\n\r\n", "invalid character in the reason phrase"),
                bad("bare LF after the status line", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "line not terminated by CRLF"),
                bad("bare LF after a field", OK + "Content-Length: 0\n\r\n", "line not terminated by CRLF"),
                bad("bare LF ending the header section", OK + "Content-Length: 0\r\n\n", "line not terminated by CRLF"),
                bad("bare CR in a value", OK + "X-A: a\rb\r\nContent-Length: 0\r\n\r\n", "invalid character"),
                bad("NUL in a value", OK + "X-A: a\0b\r\nContent-Length: 0\r\n\r\n", "invalid character"),
                bad("DEL in a value", OK + "X-A: a\u007fb\r\nContent-Length: 0\r\n\r\n", "invalid character"),
                bad("whitespace before the colon", OK + "Content-Length : 0\r\n\r\n", "whitespace between a field name and its colon"),
                bad("obs-fold", OK + "X-A: a\r\n  b\r\nContent-Length: 0\r\n\r\n", "obsolete line folding"),
                bad("empty field name", OK + ": v\r\nContent-Length: 0\r\n\r\n", "empty field name"),
                bad("a field line without a colon", OK + "NoColon\r\n\r\n", "malformed field line"),
                bad("a non-token character in a name", OK + "X(y): v\r\n\r\n", "malformed field line"),
                bad("Content-Length values that differ", OK + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
                        "Content-Length values differ: 3 and 4"),
                bad("a Content-Length list that differs", OK + "Content-Length: 3, 4\r\n\r\nabc", "Content-Length values differ"),
                bad("Content-Length not a number", OK + "Content-Length: abc\r\n\r\n", "invalid Content-Length: abc"),
                bad("negative Content-Length", OK + "Content-Length: -1\r\n\r\n", "invalid Content-Length"),
                bad("Content-Length with a sign", OK + "Content-Length: +5\r\n\r\n", "invalid Content-Length"),
                bad("Content-Length of two numbers", OK + "Content-Length: 5 5\r\n\r\n", "invalid Content-Length"),
                bad("Content-Length with an empty element", OK + "Content-Length: 5,\r\n\r\n", "invalid Content-Length"),
                bad("empty Content-Length", OK + "Content-Length:\r\n\r\n", "invalid Content-Length"),
                bad("Content-Length overflows", OK + "Content-Length: 99999999999999999999\r\n\r\n", "Content-Length overflows"),
                bad("Transfer-Encoding in HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        "Transfer-Encoding in an HTTP/1.0 response"),
                bad("chunked twice", OK + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", "chunked applied more than once"),
                bad("empty Transfer-Encoding", OK + "Transfer-Encoding: , ,\r\n\r\n", "empty Transfer-Encoding"),
                bad("101 without an upgrade", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
                        "101 Switching Protocols, but no request asked to switch"),
                bad("too many interim responses", "HTTP/1.1 100 Continue\r\n\r\n".repeat(33) + OK + "Content-Length: 0\r\n\r\n",
                        "more than 32 interim (1xx) responses"),
                bad("chunk size not hex", chunked + "xyz\r\n", "invalid chunk size"),
                bad("empty chunk size", chunked + "\r\n", "invalid chunk size"),
                bad("chunk size overflows", chunked + "10000000000000000\r\n", "chunk size overflows"),
                bad("chunk data not followed by CRLF", chunked + "5\r\nhelloX\r\n0\r\n\r\n", "chunk data not followed by CRLF"),
                bad("chunk data followed by CR alone", chunked + "5\r\nhello\rX0\r\n\r\n", "chunk data not followed by CRLF"),
                bad("chunk-size line ended by a bare LF", chunked + "5\nhello\r\n0\r\n\r\n", "chunk-size line not terminated by CRLF"),
                bad("chunk-size line with a CR but no LF", chunked + "5\rhello\r\n0\r\n\r\n", "chunk-size line not terminated by CRLF"),
                bad("whitespace after a chunk size without an extension", chunked + "5 \r\nhello\r\n0\r\n\r\n",
                        "whitespace after a chunk size without an extension"),
                bad("control character in a chunk extension", chunked + "5;a=\u0001\r\nhello\r\n0\r\n\r\n",
                        "invalid character in a chunk extension"),
                bad("chunk-size line too long", chunked + "5;" + "e".repeat(ResponseParser.MAX_CHUNK_LINE) + "\r\nhello\r\n",
                        "chunk-size line longer than 4096 bytes"),
                bad("obs-fold in the trailers", chunked + "0\r\nX-T: a\r\n b\r\n\r\n", "obsolete line folding"),
                bad("bare LF in the trailers", chunked + "0\r\nX-T: a\n\r\n", "line not terminated by CRLF"),
                badWith("status line one byte too long", SMALL, "HTTP/1.1 200 " + "r".repeat(20) + "\r\n\r\n",
                        "status line longer than 32 bytes"),
                badWith("header section one byte too large", SMALL,
                        OK + "X-P: " + "p".repeat(96 - "X-P: \r\n".length() - 1) + "\r\n\r\n", "header section larger than 96 bytes"),
                badWith("five header fields", SMALL, OK + "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", "more than 4 header fields"),
                badWith("five trailer fields", SMALL,
                        chunked + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", "more trailer fields than 4"),
                badWith("trailer section one byte too large", SMALL,
                        chunked + "0\r\nX-P: " + "p".repeat(96 - "X-P: \r\n".length() - 1) + "\r\n\r\n",
                        "trailer section larger than 96 bytes"),
                badAfter("a malformed response after a good one", 1,
                        OK + "Content-Length: 1\r\n\r\na" + "HTTP/1.1 200 OK\r\nBad/Name: x\r\n\r\n", "malformed field line"),
                closedEarly("closed in the status line", "HTTP/1.1 20", "in the middle of the response's head"),
                closedEarly("closed in the header section", OK + "Content-Length: 5\r\n", "in the middle of the response's head"),
                closedEarly("closed after an interim response", "HTTP/1.1 100 Continue\r\n\r\n", "in the middle of the response's head"),
                closedEarly("closed in a Content-Length body", OK + "Content-Length: 10\r\n\r\nabc", "after 3 of 10 body bytes"),
                closedEarly("closed in a chunk", chunked + "5\r\nhel", "in the middle of the chunked body, after 3 body bytes"),
                closedEarly("closed before the last chunk", chunked + "5\r\nhello\r\n", "in the middle of the chunked body, after 5"),
                closedEarly("closed in the trailers", chunked + "0\r\nX-T: 1\r\n", "in the middle of the chunked body"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validWhole(String name, Input input, List<Parsed> expected) {
        assertValid(feed(input, whole(input.raw())), expected, "whole");
        assertValid(feed(input, wholeDirect(input.raw())), expected, "whole, direct buffer");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validSplitAtEveryIndex(String name, Input input, List<Parsed> expected) {
        for (int at = 1; at < input.raw().length; at++) {
            assertValid(feed(input, split(input.raw(), at)), expected, "split at " + at);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validByteByByte(String name, Input input, List<Parsed> expected) {
        assertValid(feed(input, bytewise(input.raw())), expected, "byte by byte");
    }

    /** A consumer with little room (a streamed body's full window): the parser pauses and resumes where it stopped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("validCases")
    void validTakenAFewBodyBytesAtATime(String name, Input input, List<Parsed> expected) {
        assertValid(feed(input, whole(input.raw()), 3), expected, "whole, 3 body bytes taken per call");
        assertValid(feed(input, split(input.raw(), input.raw().length / 2), 1), expected, "split, 1 body byte taken per call");
    }

    @ParameterizedTest(name = "{0} -> {2}: {3}")
    @MethodSource("failureCases")
    void failureWhole(String name, Input input, Reason reason, String message, int before) {
        assertFailure(feed(input, whole(input.raw())), reason, message, before, "whole");
        assertFailure(feed(input, wholeDirect(input.raw())), reason, message, before, "whole, direct buffer");
    }

    @ParameterizedTest(name = "{0} -> {2}: {3}")
    @MethodSource("failureCases")
    void failureSplitAtEveryIndex(String name, Input input, Reason reason, String message, int before) {
        for (int at = 1; at < input.raw().length; at++) {
            assertFailure(feed(input, split(input.raw(), at)), reason, message, before, "split at " + at);
        }
    }

    @ParameterizedTest(name = "{0} -> {2}: {3}")
    @MethodSource("failureCases")
    void failureByteByByte(String name, Input input, Reason reason, String message, int before) {
        assertFailure(feed(input, bytewise(input.raw())), reason, message, before, "byte by byte");
    }

    @ParameterizedTest(name = "{0} -> {2}: {3}")
    @MethodSource("failureCases")
    void failureTakenAFewBodyBytesAtATime(String name, Input input, Reason reason, String message, int before) {
        assertFailure(feed(input, whole(input.raw()), 3), reason, message, before, "whole, 3 body bytes taken per call");
    }

    @Test
    void theTableHasAtLeastFiftyRows() {
        assertThat(validCases().count() + failureCases().count()).isGreaterThanOrEqualTo(50);
    }

    /**
     * Every valid row with one byte changed, inserted or removed, fed in random pieces: the parser
     * either parses it or fails with a {@link ResponseException}, never with anything else (an
     * index out of bounds, a negative length), and a given input gives the same outcome however
     * it is split.
     */
    @Test
    void damagedInputFailsCleanlyAndTheSameWayHoweverSplit() {
        java.util.Random random = new java.util.Random(28);
        byte[] interesting = bytes("\r\n:; \t,0123456789abcdefABCDEF-\u0000\u007f\u00ffHTTP/1.");
        List<Input> rows = validCases().map(a -> (Input) a.get()[1]).toList();
        for (int round = 0; round < 4000; round++) {
            Input row = rows.get(random.nextInt(rows.size()));
            byte[] raw = row.raw();
            int at = random.nextInt(raw.length);
            byte b = random.nextBoolean() ? interesting[random.nextInt(interesting.length)] : (byte) random.nextInt(256);
            byte[] damaged = switch (random.nextInt(3)) {
                case 0 -> {
                    byte[] d = raw.clone();
                    d[at] = b;
                    yield d;
                }
                case 1 -> {
                    byte[] d = new byte[raw.length + 1];
                    System.arraycopy(raw, 0, d, 0, at);
                    d[at] = b;
                    System.arraycopy(raw, at, d, at + 1, raw.length - at);
                    yield d;
                }
                default -> {
                    byte[] d = new byte[raw.length - 1];
                    System.arraycopy(raw, 0, d, 0, at);
                    System.arraycopy(raw, at + 1, d, at, raw.length - at - 1);
                    yield d;
                }
            };
            Input input = new Input(damaged, row.heads(), row.eof(), row.settings());
            Outcome whole = feed(input, whole(damaged));
            List<ByteBuffer> pieces = new ArrayList<>();
            for (int i = 0; i < damaged.length; ) {
                int n = 1 + random.nextInt(Math.min(16, damaged.length - i));
                pieces.add(ByteBuffer.wrap(damaged, i, n).slice());
                i += n;
            }
            Outcome split = feed(input, pieces);
            assertThat(split).as("round %d: %s", round, new String(damaged, StandardCharsets.ISO_8859_1)).isEqualTo(whole);
        }
    }

    /** Body bytes are slices of the caller's input, not copies: the listener sees the very array fed in. */
    @Test
    void bodyBytesAreSlicesOfTheInput() {
        byte[] raw = bytes(OK + "Content-Length: 5\r\n\r\nhello");
        ResponseParser parser = new ResponseParser(DEFAULTS);
        parser.begin(false);
        List<ByteBuffer> seen = new ArrayList<>();
        ByteBuffer src = ByteBuffer.wrap(raw);
        int result = parser.parse(src, new ResponseParser.Listener() {
            @Override
            public void head(ResponseParser p) {
            }

            @Override
            public int body(ByteBuffer data) {
                assertThat(data.hasArray() && data.array() == raw).as("the input's own array").isTrue();
                assertThat(data.position()).isEqualTo(raw.length - 5);
                assertThat(data.remaining()).isEqualTo(5);
                seen.add(data);
                return data.remaining();
            }

            @Override
            public void end(ResponseParser p) {
            }
        });
        assertThat(result).isEqualTo(ResponseParser.COMPLETE);
        assertThat(seen).hasSize(1);
        assertThat(src.position()).as("the input is consumed to the end of the response").isEqualTo(raw.length);
        assertThat(src.limit()).as("and its limit is restored").isEqualTo(raw.length);
    }

    /** A large body in large pieces: handed on as it arrives, never gathered by the parser. */
    @Test
    void aLargeBodyIsHandedOnInPieces() {
        int size = 3 << 20;
        byte[] head = bytes(OK + "Content-Length: " + size + "\r\n\r\n");
        ResponseParser parser = new ResponseParser(DEFAULTS);
        parser.begin(false);
        long[] received = {0};
        int[] calls = {0};
        boolean[] ended = {false};
        ResponseParser.Listener listener = new ResponseParser.Listener() {
            @Override
            public void head(ResponseParser p) {
            }

            @Override
            public int body(ByteBuffer data) {
                received[0] += data.remaining();
                calls[0]++;
                return data.remaining();
            }

            @Override
            public void end(ResponseParser p) {
                ended[0] = true;
            }
        };
        assertThat(parser.parse(ByteBuffer.wrap(head), listener)).isEqualTo(ResponseParser.NEED_MORE);
        byte[] piece = new byte[64 * 1024];
        for (int sent = 0; sent < size; sent += piece.length) {
            parser.parse(ByteBuffer.wrap(piece), listener);
        }
        assertThat(received[0]).isEqualTo(size);
        assertThat(calls[0]).isEqualTo(size / piece.length);
        assertThat(ended[0]).isTrue();
        assertThat(parser.expecting()).isFalse();
    }

    @Test
    void parsingWithoutBeginIsAnError() {
        ResponseParser parser = new ResponseParser(DEFAULTS);
        assertThatThrownBy(() -> parser.parse(ByteBuffer.wrap(bytes(OK)), null))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void endOfInputBeforeAnyByteReportsNothingBegun() {
        ResponseParser parser = new ResponseParser(DEFAULTS);
        parser.begin(false);
        assertThat(parser.started()).isFalse();
        assertThat(parser.endOfInput(null)).isFalse();
    }
}
