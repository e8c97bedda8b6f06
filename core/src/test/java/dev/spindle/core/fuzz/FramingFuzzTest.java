// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.fuzz.Answers.Answer;
import dev.spindle.core.fuzz.Answers.Output;
import dev.spindle.core.http1.FuzzAccess;
import dev.spindle.core.http1.FuzzAccess.Outcome;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import static dev.spindle.core.fuzz.Findings.require;

/**
 * Coverage-guided fuzz test of message framing (issue #7): a request whose body length is
 * ambiguous (Content-Length with Transfer-Encoding, differing or malformed Content-Length,
 * codings other than a single final {@code chunked}, Transfer-Encoding in HTTP/1.0) is never
 * answered with a 2xx, and nothing after it on the connection is answered at all, so a request
 * smuggled in its body cannot get through. Requests framed without ambiguity are answered 200 with
 * their body, so the oracle cannot pass by rejecting everything.
 *
 * <p>The committed seeds are encoded for the order in which {@link #build} consumes its data by
 * {@code scripts/lib/fuzz-seeds.py}; change one with the other.
 */
class FramingFuzzTest {
    private static final Router ROUTES = FuzzRoutes.routes();
    private static final ServerConfig CONFIG = ServerConfig.defaults();
    private static final String SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n";
    private static final List<String> METHODS = List.of("POST", "PUT", "PATCH", "GET");
    private static final List<String> TARGETS = List.of("/echo", "/a/b", "/slow/x", "http://h/x");
    private static final List<String> CONTENT_LENGTH = List.of("Content-Length", "content-length", "CONTENT-LENGTH");
    private static final List<String> TRANSFER_ENCODING = List.of("Transfer-Encoding", "transfer-encoding", "Transfer-encoding");
    private static final List<String> CODINGS = List.of("chunked", "Chunked", "CHUNKED", "gzip", "identity", "deflate", "chunked;q=1", "");
    private static final List<String> SEPARATORS = List.of(", ", ",", " , ", ",,", "\t,");
    private static final List<String> OTHER_FIELDS = List.of("Connection: keep-alive", "Connection: close",
            "Content-Type: text/plain", "Expect: 100-continue", "X-Content-Length: 1", "Trailer: X");
    private static final Pattern LENGTH_LIST = Pattern.compile("[0-9]+([ \t]*,[ \t]*[0-9]+)*");

    /** One request built from the fuzz data, with what an independent reading of its framing says. */
    record Built(byte[] bytes, Framing framing, boolean expectAnswer, byte[] payload) {
    }

    enum Framing { NONE, LENGTH, CHUNKED, AMBIGUOUS }

    @FuzzTest
    void ambiguousFramingIsNeverAnswered2xx(FuzzedDataProvider data) {
        boolean bytewise = data.consumeBoolean();
        boolean offload = data.consumeBoolean();
        Built request = build(data);

        ConnectionDriver driver = new ConnectionDriver(ROUTES, CONFIG, offload, 0, false);
        for (byte[] piece : bytewise ? Controls.bytewise(request.bytes()) : List.of(request.bytes())) {
            if (!driver.receive(piece)) {
                break;
            }
        }
        byte[] written = driver.finish();
        Outcome parsed = FuzzAccess.parse(CONFIG, List.of(request.bytes()));
        Output output = Answers.read(written, i -> ConnectionFuzzTest.answersHead(parsed, i));
        List<Answer> responses = output.responses();
        String text = new String(request.bytes(), StandardCharsets.ISO_8859_1);

        if (request.framing() == Framing.AMBIGUOUS) {
            require(responses.size() == 1, "an ambiguously framed request gets exactly one answer", text, responses);
            Answer r = responses.getFirst();
            require(r.status() == 400 || r.status() == 501, "ambiguous framing must be refused with 400 or 501", text, r);
            require(r.closes(), "the refusal closes the connection", text, r);
            require(parsed.requests().isEmpty() && parsed.failed(), "the parser must refuse it too", text, parsed);
        } else if (request.expectAnswer()) {
            require(!responses.isEmpty() && responses.getFirst().status() == 200,
                    "an unambiguously framed, well-formed request is answered 200", text, responses);
            byte[] body = responses.getFirst().body();
            String echoed = new String(body, StandardCharsets.ISO_8859_1);
            require(echoed.endsWith("\n\n" + new String(request.payload(), StandardCharsets.ISO_8859_1)),
                    "the body arrives as framed", text, echoed);
        }
        ConnectionFuzzTest.checkAnswers(output, parsed, CONFIG, false);
    }

    /**
     * Builds a request line, Host, one to four fields among Content-Length, Transfer-Encoding and
     * harmless ones (values from templates or from raw fuzz text), a body, and maybe a smuggled
     * request after it.
     */
    static Built build(FuzzedDataProvider data) {
        boolean http10 = data.consumeInt(0, 3) == 0;
        String method = data.pickValue(METHODS);
        StringBuilder head = new StringBuilder(method).append(' ').append(data.pickValue(TARGETS))
                .append(http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n").append("Host: h\r\n");
        List<String> lengths = new ArrayList<>();
        List<String> codings = new ArrayList<>();
        boolean clean = true;
        int fields = data.consumeInt(1, 4);
        for (int i = 0; i < fields; i++) {
            switch (data.consumeInt(0, 2)) {
                case 0 -> {
                    FieldValue v = lengthValue(data);
                    clean &= v.clean();
                    lengths.add(v.value());
                    head.append(data.pickValue(CONTENT_LENGTH)).append(':').append(data.pickValue(List.of(" ", "", "\t")))
                            .append(v.value()).append("\r\n");
                }
                case 1 -> {
                    FieldValue v = codingValue(data);
                    clean &= v.clean();
                    codings.add(v.value());
                    head.append(data.pickValue(TRANSFER_ENCODING)).append(": ").append(v.value()).append("\r\n");
                }
                default -> head.append(data.pickValue(OTHER_FIELDS)).append("\r\n");
            }
        }
        head.append("\r\n");
        Framing framing = framing(lengths, codings, http10);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        byte[] payload = new byte[0];
        boolean complete = true;
        switch (framing) {
            case LENGTH -> {
                long declared = declaredLength(lengths);
                payload = data.consumeBytes((int) Math.min(declared, 256));
                complete = payload.length == declared;
                out.writeBytes(payload);
            }
            case CHUNKED -> {
                payload = data.consumeBytes(data.consumeInt(0, 96));
                writeChunked(out, payload, data);
            }
            case NONE -> {
            }
            case AMBIGUOUS -> out.writeBytes(data.consumeBytes(data.consumeInt(0, 64)));
        }
        if (data.consumeBoolean()) {
            out.writeBytes(SMUGGLED.getBytes(StandardCharsets.ISO_8859_1));
        }
        return new Built(out.toByteArray(), framing, clean && complete, payload);
    }

    /** A field value, and whether it came from a template known to be well-formed. */
    record FieldValue(String value, boolean clean) {
    }

    static FieldValue lengthValue(FuzzedDataProvider data) {
        int n = data.consumeInt(0, 40);
        return switch (data.consumeInt(0, 9)) {
            case 0, 1, 2 -> new FieldValue(Integer.toString(n), true);
            case 3 -> new FieldValue(n + ", " + n, true);
            case 4 -> new FieldValue(n + "," + data.consumeInt(0, 40), true);
            case 5 -> new FieldValue("0" + n, true);
            case 6 -> new FieldValue(data.pickValue(List.of("+", "-", " ", "0x", "")) + n, true);
            case 7 -> new FieldValue(n + data.pickValue(List.of(" ", ";", ",", " 5", ".0")), true);
            case 8 -> new FieldValue("99999999999999999999", true);
            default -> new FieldValue(rawText(data), false);
        };
    }

    static FieldValue codingValue(FuzzedDataProvider data) {
        if (data.consumeInt(0, 7) == 0) {
            return new FieldValue(rawText(data), false);
        }
        int count = data.consumeInt(1, 3);
        StringBuilder sb = new StringBuilder(data.pickValue(CODINGS));
        for (int i = 1; i < count; i++) {
            sb.append(data.pickValue(SEPARATORS)).append(data.pickValue(CODINGS));
        }
        return new FieldValue(sb.toString(), true);
    }

    /** Printable ASCII, space and tab only: it stays one field value, whatever the fuzzer makes of it. */
    static String rawText(FuzzedDataProvider data) {
        String s = data.consumeAsciiString(16);
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\t' || c >= 0x20 && c < 0x7F) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * The oracle, written from RFC 9112 6.1-6.3 without looking at the parser, in Spindle's strict
     * reading (as Netty 4.2 and nginx): a body length is unambiguous when there is no
     * Transfer-Encoding and exactly one Content-Length field holding one number (a list, even of
     * equal values, is ambiguous: a proxy may pick another element), or when there is no
     * Content-Length, the request is HTTP/1.1 and the Transfer-Encoding fields together name
     * exactly one coding, {@code chunked}.
     */
    static Framing framing(List<String> lengths, List<String> codings, boolean http10) {
        if (!codings.isEmpty()) {
            if (!lengths.isEmpty() || http10) {
                return Framing.AMBIGUOUS;
            }
            List<String> tokens = new ArrayList<>();
            for (String value : codings) {
                for (String token : value.split(",", -1)) {
                    String t = token.strip();
                    if (!t.isEmpty()) {
                        tokens.add(t.toLowerCase(Locale.ROOT));
                    }
                }
            }
            return tokens.equals(List.of("chunked")) ? Framing.CHUNKED : Framing.AMBIGUOUS;
        }
        if (lengths.isEmpty()) {
            return Framing.NONE;
        }
        if (lengths.size() > 1) {
            return Framing.AMBIGUOUS;
        }
        String v = lengths.getFirst().strip();
        return LENGTH_LIST.matcher(v).matches() && !v.contains(",") ? Framing.LENGTH : Framing.AMBIGUOUS;
    }

    static long declaredLength(List<String> lengths) {
        BigInteger n = new BigInteger(lengths.getFirst().strip().split(",")[0].strip());
        return n.min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    }

    /** Chunks of fuzz-chosen sizes with the odd extension, then the last chunk and maybe a trailer. */
    static void writeChunked(ByteArrayOutputStream out, byte[] payload, FuzzedDataProvider data) {
        int at = 0;
        while (at < payload.length) {
            int n = Math.min(payload.length - at, data.consumeInt(1, 32));
            String size = Integer.toHexString(n);
            out.writeBytes((data.consumeBoolean() ? size.toUpperCase(Locale.ROOT) : size).getBytes(StandardCharsets.ISO_8859_1));
            if (data.consumeInt(0, 3) == 0) {
                out.writeBytes(";ext=1".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.write(payload, at, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            at += n;
        }
        out.writeBytes((data.consumeBoolean() ? "0\r\nX-Trailer: t\r\n\r\n" : "0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
}
