package dev.spindle.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A tiny, strict HTTP/1.1 response reader for the sans-I/O tests: status line, header fields and
 * a body framed by {@code Content-Length}. 1xx responses and responses listed as body-less (HEAD)
 * carry no body. It also drains a {@link Connection}'s output.
 */
final class TestResponses {
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) ([^\\r\\n]*)");
    private static final Pattern IMF_DATE =
            Pattern.compile("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");

    private TestResponses() {
    }

    record Field(String name, String value) {
    }

    record HttpResponse(int status, String reason, List<Field> headers, byte[] body) {
        /** The first value of a header, matched case-insensitively, or null. */
        String header(String name) {
            for (Field f : headers) {
                if (f.name().equalsIgnoreCase(name)) {
                    return f.value();
                }
            }
            return null;
        }

        List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (Field f : headers) {
                if (f.name().equalsIgnoreCase(name)) {
                    values.add(f.value());
                }
            }
            return values;
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** Status, headers without Date, and body: comparable across runs. */
        String withoutDate() {
            StringBuilder sb = new StringBuilder().append(status).append(' ').append(reason).append('\n');
            for (Field f : headers) {
                if (!f.name().equalsIgnoreCase("Date")) {
                    sb.append(f.name()).append(": ").append(f.value()).append('\n');
                }
            }
            return sb.append('\n').append(new String(body, StandardCharsets.ISO_8859_1)).toString();
        }

        @Override
        public String toString() {
            return "HttpResponse[" + status + " " + reason + ", " + headers + ", body="
                    + new String(body, StandardCharsets.ISO_8859_1) + "]";
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static void feed(HttpConnection c, String s) {
        feed(c, bytes(s));
    }

    static void feed(HttpConnection c, byte[] b) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        c.received(buf);
        assertThat(buf.hasRemaining()).as("received() consumes everything").isFalse();
    }

    /** Takes everything the connection has to write and reports it written. */
    static byte[] drain(HttpConnection c) {
        ByteBuffer view = c.outbound();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        if (out.length > 0) {
            c.written(out.length);
        }
        return out;
    }

    /**
     * {@link #drain} until nothing is pending: also a body the connection sends from where the
     * request left it (a large echo), which it hands out after the head.
     */
    static byte[] drainAll(HttpConnection c) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        do {
            all.writeBytes(drain(c));
        } while (c.hasOutbound() && c.outboundFile() == null);
        return all.toByteArray();
    }

    /** Reads the pending output without reporting it written. */
    static byte[] peek(HttpConnection c) {
        ByteBuffer view = c.outbound().duplicate();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    static List<HttpResponse> parseAll(byte[] data) {
        return parseAll(data, Set.of());
    }

    /**
     * Parses back-to-back responses that must use up {@code data} exactly. Responses whose index
     * (counting 1xx ones) is in {@code bodiless} are answers to HEAD: no body whatever the length.
     */
    static List<HttpResponse> parseAll(byte[] data, Set<Integer> bodiless) {
        List<HttpResponse> out = new ArrayList<>();
        int pos = 0;
        while (pos < data.length) {
            int headEnd = indexOf(data, pos, "\r\n\r\n");
            assertThat(headEnd).as("end of response head at or after offset %d in %s", pos, text(data)).isGreaterThanOrEqualTo(0);
            String head = new String(data, pos, headEnd - pos, StandardCharsets.ISO_8859_1);
            String[] lines = head.split("\r\n", -1);
            var m = STATUS_LINE.matcher(lines[0]);
            assertThat(m.matches()).as("status line %s", lines[0]).isTrue();
            int status = Integer.parseInt(m.group(1));
            List<Field> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i];
                int colon = line.indexOf(':');
                assertThat(colon).as("header line %s", line).isPositive();
                String name = line.substring(0, colon);
                assertThat(name).as("header name").doesNotContain(" ", "\t");
                headers.add(new Field(name, line.substring(colon + 1).strip()));
            }
            pos = headEnd + 4;
            byte[] body = new byte[0];
            boolean noBody = status < 200 || status == 204 || status == 304 || bodiless.contains(out.size());
            if (!noBody) {
                String cl = null;
                boolean chunked = false;
                for (Field f : headers) {
                    if (f.name().equalsIgnoreCase("Content-Length")) {
                        cl = f.value();
                    }
                    chunked |= f.name().equalsIgnoreCase("Transfer-Encoding") && f.value().equalsIgnoreCase("chunked");
                }
                if (chunked) {
                    java.io.ByteArrayOutputStream decoded = new java.io.ByteArrayOutputStream();
                    while (true) {
                        int lineEnd = indexOf(data, pos, "\r\n");
                        assertThat(lineEnd).as("chunk size line of response %d", out.size()).isGreaterThan(pos);
                        int size = Integer.parseInt(new String(data, pos, lineEnd - pos, StandardCharsets.ISO_8859_1).strip(), 16);
                        pos = lineEnd + 2;
                        if (size == 0) {
                            assertThat(indexOf(data, pos, "\r\n")).as("no trailers, then the end").isEqualTo(pos);
                            pos += 2;
                            break;
                        }
                        decoded.write(data, pos, size);
                        pos += size;
                        assertThat(new String(data, pos, 2, StandardCharsets.ISO_8859_1)).as("CRLF after chunk data").isEqualTo("\r\n");
                        pos += 2;
                    }
                    HttpResponse r = new HttpResponse(status, m.group(2), headers, decoded.toByteArray());
                    out.add(r);
                    continue;
                }
                assertThat(cl).as("Content-Length of response %d", out.size()).isNotNull();
                int len = Integer.parseInt(cl);
                assertThat(data.length - pos).as("body bytes available for response %d", out.size()).isGreaterThanOrEqualTo(len);
                body = java.util.Arrays.copyOfRange(data, pos, pos + len);
                pos += len;
            }
            HttpResponse r = new HttpResponse(status, m.group(2), headers, body);
            if (status >= 200) {
                assertCommonHeaders(r);
            }
            out.add(r);
        }
        return out;
    }

    /** Every final response carries exactly one Date (IMF-fixdate), Server: spindle and Content-Length. */
    static void assertCommonHeaders(HttpResponse r) {
        assertThat(r.headers("Date")).as("Date of %s", r).hasSize(1);
        assertThat(r.header("Date")).as("Date format").matches(IMF_DATE);
        assertThat(r.headers("Server")).as("Server of %s", r).containsExactly("spindle");
        if (r.status() == 204 || r.status() == 304) {
            // RFC 9110 8.6 and 15.4.5: no body, so no length to announce
            assertThat(r.headers("Content-Length")).as("no Content-Length on %s", r).isEmpty();
        } else {
            assertThat(r.headers("Content-Length")).as("Content-Length of %s", r).hasSize(1);
        }
        assertThat(r.headers("Transfer-Encoding")).as("no Transfer-Encoding with Content-Length").isEmpty();
    }

    static int indexOf(byte[] data, int from, String needle) {
        byte[] n = bytes(needle);
        outer:
        for (int i = from; i <= data.length - n.length; i++) {
            for (int j = 0; j < n.length; j++) {
                if (data[i + j] != n[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static String text(byte[] data) {
        String s = new String(data, StandardCharsets.ISO_8859_1);
        return s.length() > 400 ? s.substring(0, 400) + "...(" + s.length() + " chars)" : s;
    }
}
