// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sans-I/O multipart parser, table-driven: each well-formed body gives the same parts fed
 * whole, split at every byte, and one byte at a time; each malformed one fails with its status
 * and reason however it is split.
 */
class MultipartParserTest {
    private static final String B = "xYz-boundary";
    private static final String CD = "Content-Disposition: form-data; name=";

    /** Parts as {@code name[filename;type]=content}, the filename part left out for fields. */
    static List<String> parse(String boundary, byte[] body, MultipartOptions options, int[] cuts) {
        MultipartParser parser = new MultipartParser(boundary, options);
        List<String> parts = new ArrayList<>();
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        String[] current = new String[1];
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : body.length;
            // a chunk of its own, reused after each NEED_INPUT: what the parser keeps must be its own
            byte[] chunk = Arrays.copyOfRange(body, from, to);
            parser.feed(chunk, 0, chunk.length);
            for (int event; (event = parser.next()) != MultipartParser.NEED_INPUT; ) {
                switch (event) {
                    case MultipartParser.PART -> {
                        Part p = parser.part();
                        current[0] = p.name() + (p.isFile() ? "[" + p.filename() + ";" + p.contentType() + "]" : "");
                        content.reset();
                    }
                    case MultipartParser.DATA -> {
                        assertThat(parser.dataLength()).isPositive();
                        content.write(parser.dataArray(), parser.dataOffset(), parser.dataLength());
                    }
                    case MultipartParser.PART_END -> parts.add(current[0] + "=" + content.toString(StandardCharsets.ISO_8859_1));
                    case MultipartParser.END -> parts.add("END");
                    default -> throw new AssertionError(event);
                }
            }
            Arrays.fill(chunk, (byte) '#');
            from = to;
        }
        parser.finish();
        return parts;
    }

    static List<String> parse(String boundary, String body, int... cuts) {
        return parse(boundary, body.getBytes(StandardCharsets.ISO_8859_1), MultipartOptions.defaults(), cuts);
    }

    /** A name, a boundary, a body (ISO-8859-1 text), and the parts it holds. */
    static Stream<Arguments> wellFormed() {
        String simple = "--" + B + "\r\n" + CD + "\"a\"\r\n\r\nhello\r\n--" + B + "--\r\n";
        return Stream.of(
                Arguments.of("one field", B, simple, List.of("a=hello", "END")),
                Arguments.of("two fields and a file", B, "--" + B + "\r\n" + CD + "\"a\"\r\n\r\n1\r\n--" + B + "\r\n"
                        + CD + "\"b\"\r\n\r\ntwo\r\n--" + B + "\r\n" + CD + "\"f\"; filename=\"r.csv\"\r\nContent-Type: text/csv\r\n\r\n"
                        + "x,y\r\n1,2\r\n\r\n--" + B + "--\r\n",
                        List.of("a=1", "b=two", "f[r.csv;text/csv]=x,y\r\n1,2\r\n", "END")),
                Arguments.of("preamble and epilogue", B, "This is the preamble.\r\n-- not it\r\n--xYz-boundar\r\n--" + B + "\r\n"
                        + CD + "a\r\n\r\nv\r\n--" + B + "--\r\nthe epilogue\r\n--" + B + "\r\nignored",
                        List.of("a=v", "END")),
                Arguments.of("preamble of a bare CRLF", B, "\r\n--" + B + "\r\n" + CD + "a\r\n\r\nv\r\n--" + B + "--", List.of("a=v", "END")),
                Arguments.of("transport padding", B, "--" + B + " \t \r\n" + CD + "a\r\n\r\nv\r\n--" + B + "\t\r\n" + CD + "b\r\n\r\nw\r\n--"
                        + B + "--  \r\n", List.of("a=v", "b=w", "END")),
                Arguments.of("no CRLF after the close delimiter", B, "--" + B + "\r\n" + CD + "a\r\n\r\nv\r\n--" + B + "--",
                        List.of("a=v", "END")),
                Arguments.of("empty content", B, "--" + B + "\r\n" + CD + "a\r\n\r\n\r\n--" + B + "\r\n" + CD + "b\r\n\r\n\r\n--" + B + "--",
                        List.of("a=", "b=", "END")),
                Arguments.of("content like a delimiter but not one", B, "--" + B + "\r\n" + CD + "a\r\n\r\n"
                        + "x--" + B + "\n--" + B + "\r-" + B + "\r\n-" + B + "\r\n--xYz-bound!\r\r\n\r\n--xYz-boundar\r\n\r\n\r\n--" + B + "--",
                        List.of("a=x--" + B + "\n--" + B + "\r-" + B + "\r\n-" + B + "\r\n--xYz-bound!\r\r\n\r\n--xYz-boundar\r\n\r\n", "END")),
                Arguments.of("the delimiter right after the header section", B, "--" + B + "\r\n" + CD + "a\r\n\r\n--" + B + "\r\n"
                        + CD + "b\r\n\r\nv\r\n--" + B + "--", List.of("a=", "b=v", "END")),
                Arguments.of("content beginning with dashes", B, "--" + B + "\r\n" + CD + "a\r\n\r\n--xYz-bou\r\n--" + B + "--",
                        List.of("a=--xYz-bou", "END")),
                Arguments.of("content ending in CRs", B, "--" + B + "\r\n" + CD + "a\r\n\r\n\r\r\r\r\n--" + B + "--", List.of("a=\r\r\r", "END")),
                Arguments.of("no parts", B, "--" + B + "--\r\n", List.of("END")),
                Arguments.of("one-character boundary", "q", "--q\r\n" + CD + "a\r\n\r\nq-q\r\n-q\r\n--q--", List.of("a=q-q\r\n-q", "END")),
                Arguments.of("70-character boundary with spaces and specials", "'()+_,-./:=? " + "a".repeat(57),
                        "--'()+_,-./:=? " + "a".repeat(57) + "\r\n" + CD + "a\r\n\r\nv\r\n--'()+_,-./:=? " + "a".repeat(57) + "--",
                        List.of("a=v", "END")),
                Arguments.of("header names in any case, folded, no Content-Type", B, "--" + B + "\r\nCONTENT-disposition: form-data;\r\n"
                        + "\tname=\"a\"; filename=\"x.bin\"\r\nX-Other: 1\r\n\r\nv\r\n--" + B + "--",
                        List.of("a[x.bin;text/plain]=v", "END")),
                Arguments.of("filename* over filename", B, "--" + B + "\r\n" + CD + "\"f\"; filename=\"EURO rates.txt\"; "
                        + "filename*=UTF-8''%e2%82%ac%20rates.txt\r\n\r\nv\r\n--" + B + "--",
                        List.of("f[\u20ac rates.txt;text/plain]=v", "END")),
                Arguments.of("filename* in ISO-8859-1", B, "--" + B + "\r\n" + CD + "\"f\"; filename*=iso-8859-1'de'%E4rger.txt\r\n\r\nv\r\n--"
                        + B + "--", List.of("f[\u00e4rger.txt;text/plain]=v", "END")),
                Arguments.of("filename* in another charset: filename", B, "--" + B + "\r\n" + CD + "\"f\"; filename*=x-unknown''%41;"
                        + " filename=\"plain.txt\"\r\n\r\nv\r\n--" + B + "--", List.of("f[plain.txt;text/plain]=v", "END")),
                Arguments.of("directories stripped", B, "--" + B + "\r\n" + CD + "\"f\"; filename=\"../../etc/passwd\"\r\n\r\nv\r\n--"
                        + B + "\r\n" + CD + "\"g\"; filename=\"C:\\Users\\ada\\notes.txt\"\r\n\r\nw\r\n--"
                        + B + "\r\n" + CD + "\"h\"; filename=\"..\"\r\n\r\n\r\n--"
                        + B + "\r\n" + CD + "\"i\"; filename=\"\"\r\n\r\n\r\n--" + B + "--",
                        List.of("f[passwd;text/plain]=v", "g[notes.txt;text/plain]=w", "h[;text/plain]=", "i[;text/plain]=", "END")),
                Arguments.of("UTF-8 file name sent raw", B, "--" + B + "\r\n" + CD + "\"f\"; filename=\"\u00c3\u00a9t\u00c3\u00a9.txt\"\r\n\r\nv\r\n--"
                        + B + "--", List.of("f[\u00e9t\u00e9.txt;text/plain]=v", "END")),
                Arguments.of("quoted pairs", B, "--" + B + "\r\n" + CD + "\"a\\\"b\\\\c\"; filename=\"q\\\"uote\"\r\n\r\nv\r\n--" + B + "--",
                        List.of("a\"b\\c[q\"uote;text/plain]=v", "END")),
                Arguments.of("binary content", B, "--" + B + "\r\n" + CD + "a\r\n\r\n\u0000\u00ff\r\u00fe\n\r\n--" + B + "--",
                        List.of("a=\u0000\u00ff\r\u00fe\n", "END")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wellFormed")
    void wellFormedBodiesParseTheSameHoweverSplit(String name, String boundary, String body, List<String> parts) {
        assertThat(parse(boundary, body)).as("whole").isEqualTo(parts);
        for (int cut = 0; cut <= body.length(); cut++) {
            assertThat(parse(boundary, body, cut)).as("split at %d", cut).isEqualTo(parts);
        }
        for (int a = 0; a <= body.length(); a += 3) {
            for (int b = a; b <= body.length(); b += 5) {
                assertThat(parse(boundary, body, a, b)).as("split at %d and %d", a, b).isEqualTo(parts);
            }
        }
        int[] everyByte = new int[body.length()];
        Arrays.setAll(everyByte, i -> i);
        assertThat(parse(boundary, body, everyByte)).as("byte by byte").isEqualTo(parts);
    }

    private static final byte[] CRLF = {'\r', '\n'};
    private static final String OK_HEAD = "--" + B + "\r\n" + CD + "a\r\n\r\n";

    /** A name, a body, the options, the status and a part of the message. */
    static Stream<Arguments> malformed() {
        MultipartOptions d = MultipartOptions.defaults();
        String part = "--" + B + "\r\n" + CD + "a\r\n\r\nv\r\n";
        return Stream.of(
                Arguments.of("no boundary line", "just text\r\n", d, 400, "no boundary line"),
                Arguments.of("empty body", "", d, 400, "no boundary line"),
                Arguments.of("no closing boundary", OK_HEAD + "v", d, 400, "ends before its closing boundary"),
                Arguments.of("no closing boundary after a whole part", part, d, 400, "ends before its closing boundary"),
                Arguments.of("ends inside the header section", "--" + B + "\r\n" + CD + "a\r\n", d, 400, "ends before its closing boundary"),
                Arguments.of("ends after a boundary", "--" + B, d, 400, "ends before its closing boundary"),
                Arguments.of("text after the boundary", "--" + B + "x\r\n" + CD + "a\r\n\r\nv\r\n--" + B + "--", d, 400, "text after the boundary"),
                Arguments.of("a delimiter inside content, then text", OK_HEAD + "v\r\n--" + B + "x--", d, 400, "text after the boundary"),
                Arguments.of("a single dash after the boundary", part + "--" + B + "-x", d, 400, "single '-'"),
                Arguments.of("CR without LF after the boundary", "--" + B + "\rX", d, 400, "CR without LF"),
                Arguments.of("bare LF after the boundary", "--" + B + "\n" + CD + "a\r\n\r\nv\r\n--" + B + "--", d, 400, "text after the boundary"),
                Arguments.of("header line without a colon", "--" + B + "\r\nContent-Disposition form-data\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "not a token"),
                Arguments.of("space before the colon", "--" + B + "\r\nContent-Disposition : form-data; name=a\r\n\r\nv\r\n--" + B + "--", d,
                        400, "not a token"),
                Arguments.of("empty field name", "--" + B + "\r\n: x\r\n" + CD + "a\r\n\r\nv\r\n--" + B + "--", d, 400, "no field name"),
                Arguments.of("bare LF in the headers", "--" + B + "\r\n" + CD + "a\nX: y\r\n\r\nv\r\n--" + B + "--", d, 400, "bare CR, LF"),
                Arguments.of("continuation first", "--" + B + "\r\n " + CD + "a\r\n\r\nv\r\n--" + B + "--", d, 400, "continuation"),
                Arguments.of("no Content-Disposition", "--" + B + "\r\nContent-Type: text/plain\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "without Content-Disposition"),
                Arguments.of("no header at all", "--" + B + "\r\n\r\nv\r\n--" + B + "--", d, 400, "without Content-Disposition"),
                Arguments.of("not form-data", "--" + B + "\r\nContent-Disposition: attachment; name=a\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "not form-data"),
                Arguments.of("no name", "--" + B + "\r\nContent-Disposition: form-data; filename=x\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "has no name"),
                Arguments.of("unterminated quote", "--" + B + "\r\n" + CD + "\"a\r\n\r\nv\r\n--" + B + "--", d, 400, "unterminated"),
                Arguments.of("parameter without a value", "--" + B + "\r\n" + CD + "a; filename\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "without a value"),
                Arguments.of("malformed filename*", "--" + B + "\r\n" + CD + "a; filename*=UTF-8%41\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "malformed filename*"),
                Arguments.of("bad escape in filename*", "--" + B + "\r\n" + CD + "a; filename*=UTF-8''%4\r\n\r\nv\r\n--" + B + "--", d, 400,
                        "percent-encoding"),
                Arguments.of("header section too large", "--" + B + "\r\n" + CD + "a\r\nX: " + "y".repeat(200) + "\r\n\r\nv\r\n--" + B + "--",
                        d.maxHeaderSize(128), 413, "header section is larger than 128 bytes"),
                Arguments.of("header section without its blank line", "--" + B + "\r\n" + CD + "a\r\n" + "X: y\r\n".repeat(40),
                        d.maxHeaderSize(128), 413, "header section is larger than 128 bytes"),
                Arguments.of("too many header fields", "--" + B + "\r\n" + CD + "a\r\n" + "X: y\r\n".repeat(4) + "\r\nv\r\n--" + B + "--",
                        d.maxHeaderCount(4), 413, "more than 4 header fields"),
                Arguments.of("too many parts", part.repeat(4) + "--" + B + "--", d.maxParts(3), 413, "more than 3 parts"),
                Arguments.of("part too large", OK_HEAD + "0123456789x\r\n--" + B + "--", d.maxPartSize(10), 413,
                        "part 'a' is larger than 10 bytes"),
                Arguments.of("body too large", part.repeat(3) + "--" + B + "--", d.maxRequestSize(100), 413,
                        "multipart body is larger than 100 bytes"));
    }

    @ParameterizedTest(name = "{0} -> {3}")
    @MethodSource("malformed")
    void malformedBodiesFailWithTheirStatusHoweverSplit(String name, String body, MultipartOptions options, int status, String why) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        int[] everyByte = new int[bytes.length];
        Arrays.setAll(everyByte, i -> i);
        List<int[]> splits = new ArrayList<>(List.of(new int[0], everyByte));
        for (int cut = 0; cut <= bytes.length; cut += 7) {
            splits.add(new int[] {cut});
        }
        for (int[] cuts : splits) {
            assertThatThrownBy(() -> parse(B, bytes, options, cuts)).as("%s, cut at %s", name, Arrays.toString(cuts))
                    .isInstanceOfSatisfying(HttpException.class, e -> {
                        assertThat(e.status()).isEqualTo(status);
                        assertThat(e.getMessage()).contains(why);
                    });
        }
    }

    @Test
    void limitsAreInclusive() {
        MultipartOptions o = MultipartOptions.defaults().maxParts(2).maxPartSize(5).maxHeaderCount(1);
        String body = "--" + B + "\r\n" + CD + "a\r\n\r\n12345\r\n--" + B + "\r\n" + CD + "b\r\n\r\n\r\n--" + B + "--";
        assertThat(parse(B, body.getBytes(StandardCharsets.ISO_8859_1), o.maxRequestSize(body.length()), new int[0]))
                .containsExactly("a=12345", "b=", "END");
    }

    /** A boundary of a request's Content-Type, or the status its absence or malformation gets. */
    static Stream<Arguments> contentTypes() {
        return Stream.of(
                Arguments.of("multipart/form-data; boundary=abc", "abc"),
                Arguments.of("Multipart/Form-Data;boundary=\"a b:c\"", "a b:c"),
                Arguments.of("multipart/form-data; charset=utf-8; BOUNDARY=----WebKitFormBoundary7MA4YWxkTrZu0gW",
                        "----WebKitFormBoundary7MA4YWxkTrZu0gW"),
                Arguments.of("multipart/form-data; boundary=" + "b".repeat(70), "b".repeat(70)),
                Arguments.of("multipart/form-data; boundary=" + "b".repeat(71), "400"),
                Arguments.of("multipart/form-data; boundary=\"ends with space \"", "400"),
                Arguments.of("multipart/form-data; boundary=\"\"", "400"),
                Arguments.of("multipart/form-data; boundary=a\u00e9", "400"),
                Arguments.of("multipart/form-data; boundary=\"a\\\"b\"", "400"),
                Arguments.of("multipart/form-data", "400"),
                Arguments.of("multipart/form-data; charset=utf-8", "400"),
                Arguments.of("multipart/mixed; boundary=abc", "415"),
                Arguments.of("application/x-www-form-urlencoded", "415"),
                Arguments.of(null, "415"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("contentTypes")
    void theBoundaryComesFromTheContentType(String contentType, String expected) {
        if (expected.equals("400") || expected.equals("415")) {
            assertThatThrownBy(() -> MultipartHeaders.boundary(contentType))
                    .isInstanceOfSatisfying(HttpException.class, e -> assertThat(e.status()).isEqualTo(Integer.parseInt(expected)));
        } else {
            assertThat(MultipartHeaders.boundary(contentType)).isEqualTo(expected);
        }
    }

    /**
     * Random parts whose content is made of the delimiter's own bytes (CR, LF, dashes and the
     * boundary's letters) but never the delimiter, at random splits: the content comes back exact.
     */
    @Test
    void randomContentOfTheDelimitersBytesSurvivesRandomSplits() {
        Random random = new Random(7);
        String boundary = "ab-a";
        byte[] alphabet = "\r\n-ab".getBytes(StandardCharsets.US_ASCII);
        byte[] delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);
        for (int round = 0; round < 300; round++) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            List<String> expected = new ArrayList<>();
            int parts = 1 + random.nextInt(4);
            for (int p = 0; p < parts; p++) {
                byte[] content;
                do {
                    content = new byte[random.nextInt(60)];
                    for (int i = 0; i < content.length; i++) {
                        content[i] = alphabet[random.nextInt(alphabet.length)];
                    }
                } while (indexOf(concat(concat(CRLF, content), delimiter), delimiter) < CRLF.length + content.length);
                body.writeBytes(("--" + boundary + "\r\n" + CD + "p" + p + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                body.writeBytes(content);
                body.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
                expected.add("p" + p + "=" + new String(content, StandardCharsets.ISO_8859_1));
            }
            body.writeBytes(("--" + boundary + "--").getBytes(StandardCharsets.US_ASCII));
            expected.add("END");
            byte[] bytes = body.toByteArray();
            int[] cuts = random.ints(random.nextInt(8), 0, bytes.length + 1).sorted().toArray();
            assertThat(parse(boundary, bytes, MultipartOptions.defaults(), cuts)).as("round %d, cuts %s", round, Arrays.toString(cuts))
                    .isEqualTo(expected);
        }
    }

    /** A part far larger than any buffer passes in chunks while the parser holds only its delimiter's length. */
    @Test
    void aLargePartStreamsThroughInChunks() {
        MultipartParser parser = new MultipartParser(B, MultipartOptions.defaults());
        byte[] head = (OK_HEAD).getBytes(StandardCharsets.US_ASCII);
        parser.feed(head, 0, head.length);
        assertThat(parser.next()).isEqualTo(MultipartParser.PART);
        assertThat(parser.next()).isEqualTo(MultipartParser.NEED_INPUT);
        byte[] chunk = new byte[64 * 1024];
        new Random(1).nextBytes(chunk);
        chunk[chunk.length - 2] = '\r';
        chunk[chunk.length - 1] = '\n';
        long content = 0;
        for (int i = 0; i < 1000; i++) {
            parser.feed(chunk, 0, chunk.length);
            for (int e; (e = parser.next()) != MultipartParser.NEED_INPUT; ) {
                assertThat(e).isEqualTo(MultipartParser.DATA);
                content += parser.dataLength();
            }
        }
        byte[] tail = ("--" + B + "--").getBytes(StandardCharsets.US_ASCII);
        parser.feed(tail, 0, tail.length);
        assertThat(parser.next()).isEqualTo(MultipartParser.PART_END);
        assertThat(parser.next()).isEqualTo(MultipartParser.END);
        parser.finish();
        assertThat(content).as("every byte but the last chunk's CRLF, which was the delimiter's").isEqualTo(1000L * chunk.length - 2);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
