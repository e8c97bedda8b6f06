package dev.spindle.core.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of what a connection wrote: back-to-back HTTP/1.1 responses framed by
 * {@code Content-Length}, with {@code 100 Continue} interim responses between them. Anything else
 * is a finding, reported as an {@link AssertionError}.
 */
final class ResponseReader {
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 ([1-5]\\d\\d) [\\x21-\\x7E][\\x20-\\x7E]*");
    private static final Pattern FIELD = Pattern.compile("([!#$%&'*+.^_`|~0-9A-Za-z-]+): ([\\x21-\\x7E](?:[\\x20-\\x7E]*[\\x21-\\x7E])?)?");
    private static final String CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

    private ResponseReader() {
    }

    record Field(String name, String value) {
    }

    /**
     * A final response and how many {@code 100 Continue} responses came just before it (or, for
     * the list's trailing entry, after the last final one).
     */
    record Response(int status, List<Field> headers, byte[] body, int continuesBefore) {
        String header(String name) {
            String found = null;
            for (Field f : headers) {
                if (f.name().equalsIgnoreCase(name)) {
                    if (found != null) {
                        throw new AssertionError("header " + name + " twice in " + this);
                    }
                    found = f.value();
                }
            }
            return found;
        }

        boolean closes() {
            return "close".equals(header("Connection"));
        }

        /** Status, headers but Date, and body: what must not depend on how the input was split. */
        String withoutDate() {
            StringBuilder sb = new StringBuilder().append(status).append('\n');
            for (Field f : headers) {
                if (!f.name().equalsIgnoreCase("Date")) {
                    sb.append(f.name()).append(": ").append(f.value()).append('\n');
                }
            }
            return sb.append('\n').append(new String(body, StandardCharsets.ISO_8859_1)).toString();
        }

        @Override
        public String toString() {
            String b = new String(body, StandardCharsets.ISO_8859_1);
            return status + " " + headers + " body=" + (b.length() > 200 ? b.substring(0, 200) + "..." : b);
        }
    }

    /** What was written: the final responses, and the count of 100 Continue after the last of them. */
    record Output(List<Response> responses, int trailingContinues) {
    }

    /**
     * Reads every response in {@code out}. {@code bodiless} says, by index among the final
     * responses, which ones answer HEAD and so carry no body whatever their Content-Length.
     */
    static Output read(byte[] out, IntPredicate bodiless) {
        List<Response> responses = new ArrayList<>();
        int continues = 0;
        int pos = 0;
        while (pos < out.length) {
            if (startsWith(out, pos, CONTINUE)) {
                continues++;
                pos += CONTINUE.length();
                continue;
            }
            int headEnd = indexOf(out, pos, "\r\n\r\n");
            if (headEnd < 0) {
                throw new AssertionError("response " + responses.size() + " has no end of header section: " + text(out, pos));
            }
            String[] lines = new String(out, pos, headEnd - pos, StandardCharsets.ISO_8859_1).split("\r\n", -1);
            Matcher status = STATUS_LINE.matcher(lines[0]);
            if (!status.matches()) {
                throw new AssertionError("not a status line: " + lines[0]);
            }
            int code = Integer.parseInt(status.group(1));
            if (code < 200) {
                throw new AssertionError("an interim response other than 100 Continue: " + lines[0]);
            }
            List<Field> headers = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                Matcher f = FIELD.matcher(lines[i]);
                if (!f.matches()) {
                    throw new AssertionError("malformed header line in response " + responses.size() + ": " + lines[i]);
                }
                headers.add(new Field(f.group(1), f.group(2) == null ? "" : f.group(2)));
            }
            pos = headEnd + 4;
            Response head = new Response(code, headers, new byte[0], continues);
            requireOnce(head, "Date");
            if (!"spindle".equals(head.header("Server"))) {
                throw new AssertionError("no Server: spindle in " + head);
            }
            if (head.header("Transfer-Encoding") != null) {
                throw new AssertionError("Transfer-Encoding in " + head);
            }
            String length = head.header("Content-Length");
            if (length == null || !length.matches("0|[1-9][0-9]{0,9}")) {
                throw new AssertionError("missing or malformed Content-Length in " + head);
            }
            int bodyLength = Integer.parseInt(length);
            byte[] body = new byte[0];
            if (!bodiless.test(responses.size()) && code != 204 && code != 304) {
                if (out.length - pos < bodyLength) {
                    throw new AssertionError("response " + responses.size() + " promises " + bodyLength + " body bytes, "
                            + (out.length - pos) + " follow: " + head);
                }
                body = Arrays.copyOfRange(out, pos, pos + bodyLength);
                pos += bodyLength;
            }
            responses.add(new Response(code, headers, body, continues));
            continues = 0;
        }
        return new Output(responses, continues);
    }

    private static void requireOnce(Response r, String name) {
        if (r.header(name) == null) {
            throw new AssertionError("no " + name + " in " + r);
        }
    }

    private static boolean startsWith(byte[] data, int at, String prefix) {
        if (data.length - at < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] data, int from, String needle) {
        for (int i = from; i <= data.length - needle.length(); i++) {
            if (startsWith(data, i, needle)) {
                return i;
            }
        }
        return -1;
    }

    private static String text(byte[] data, int from) {
        String s = new String(data, from, data.length - from, StandardCharsets.ISO_8859_1);
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
