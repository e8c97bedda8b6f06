// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;

/**
 * The tests' one reader of HTTP/1.1 responses, strict about the syntax of RFC 9112: a status line
 * {@code HTTP/1.1 NNN reason}, field lines {@code token ":" OWS value OWS} without control
 * characters, every line ended by CRLF. The body is framed as a client must frame it: none for
 * HEAD, 1xx, 204 and 304; chunked when the last transfer coding is chunked (trailers dropped);
 * else {@code Content-Length}; else up to the end of the stream.
 *
 * <p>It reads a socket's stream one response at a time ({@link #read(boolean)}, for the
 * conformance suite's {@code RawConnection}) or a sans-I/O connection's whole output at once
 * ({@link #readAll}).
 * Anything malformed is an {@link IOException} saying what and where.
 */
public final class ResponseReader {
    /** Longer lines are refused, so a server that never ends one cannot exhaust the test's heap. */
    private static final int MAX_LINE = 64 * 1024;

    private final InputStream in;

    public ResponseReader(InputStream in) {
        this.in = in;
    }

    /**
     * Reads the next response, an interim one (1xx) included; {@code head} when it answers a HEAD
     * request, so no body follows whatever the header fields say.
     */
    public RawResponse read(boolean head) throws IOException {
        String statusLine = line(true);
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = status(statusLine);
        String reason = statusLine.length() > 13 ? statusLine.substring(13) : "";
        List<RawResponse.Field> fields = new ArrayList<>();
        for (String line = line(false); !line.isEmpty(); line = line(false)) {
            fields.add(field(line));
        }
        RawResponse noBody = new RawResponse(status, reason, List.copyOf(fields), new byte[0]);
        if (head || status < 200 || status == 204 || status == 304) {
            return noBody;
        }
        return new RawResponse(status, reason, noBody.headers(), body(noBody));
    }

    /**
     * Reads back-to-back responses that use up {@code data} exactly. {@code bodiless} says, by
     * index among the final (non-1xx) responses, which ones answer HEAD.
     *
     * @throws AssertionError when the bytes are not such responses, with what was wrong and where
     */
    public static List<RawResponse> readAll(byte[] data, IntPredicate bodiless) {
        ByteArrayInputStream bytes = new ByteArrayInputStream(data);
        ResponseReader reader = new ResponseReader(bytes);
        List<RawResponse> out = new ArrayList<>();
        int finals = 0;
        while (bytes.available() > 0) {
            int at = data.length - bytes.available();
            try {
                RawResponse r = reader.read(bodiless.test(finals));
                out.add(r);
                if (!r.interim()) {
                    finals++;
                }
            } catch (IOException e) {
                throw new AssertionError("response " + out.size() + " at offset " + at + ": " + e.getMessage()
                        + " in " + excerpt(data, at), e);
            }
        }
        return out;
    }

    private static int status(String line) throws IOException {
        boolean ok = line.startsWith("HTTP/1.1 ") && line.length() >= 12
                && line.charAt(9) >= '1' && line.charAt(9) <= '5' && isDigit(line.charAt(10)) && isDigit(line.charAt(11))
                && (line.length() == 12 || line.charAt(12) == ' ' && printable(line, 13));
        if (!ok) {
            throw new IOException("malformed status line: " + line);
        }
        return Integer.parseInt(line, 9, 12, 10);
    }

    private static RawResponse.Field field(String line) throws IOException {
        int colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line, colon) || !printable(line, colon + 1)) {
            throw new IOException("malformed header line: " + line);
        }
        return new RawResponse.Field(line.substring(0, colon), stripOws(line.substring(colon + 1)));
    }

    private byte[] body(RawResponse head) throws IOException {
        List<String> codings = head.headers("Transfer-Encoding");
        if (!codings.isEmpty()) {
            String last = codings.getLast();
            int comma = last.lastIndexOf(',');
            if (stripOws(last.substring(comma + 1)).toLowerCase(Locale.ROOT).equals("chunked")) {
                return chunked();
            }
            return in.readAllBytes();
        }
        long length = contentLength(head);
        if (length < 0) {
            return in.readAllBytes();
        }
        if (length > Integer.MAX_VALUE - 8) {
            throw new IOException("Content-Length " + length + " is more than a test reads");
        }
        byte[] body = in.readNBytes((int) length);
        if (body.length < length) {
            throw new IOException("the body ended after " + body.length + " of its " + length + " bytes (Content-Length)");
        }
        return body;
    }

    /** The length every Content-Length value agrees on, or -1 when there is none. */
    private static long contentLength(RawResponse head) throws IOException {
        long length = -1;
        for (String value : head.headers("Content-Length")) {
            for (String item : value.split(",", -1)) {
                String digits = stripOws(item);
                if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(ResponseReader::isDigit)) {
                    throw new IOException("malformed Content-Length: " + value);
                }
                long n = Long.parseLong(digits);
                if (length >= 0 && n != length) {
                    throw new IOException("differing Content-Length values: " + head.headers("Content-Length"));
                }
                length = n;
            }
        }
        return length;
    }

    private byte[] chunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = line(false);
            int end = sizeLine.indexOf(';');
            String hex = stripOws(end < 0 ? sizeLine : sizeLine.substring(0, end));
            int size;
            try {
                size = hex.isEmpty() || hex.length() > 7 ? -1 : Integer.parseInt(hex, 16);
            } catch (NumberFormatException e) {
                size = -1;
            }
            if (size < 0) {
                throw new IOException("malformed chunk size line: " + sizeLine);
            }
            if (size == 0) {
                for (String trailer = line(false); !trailer.isEmpty(); trailer = line(false)) {
                    field(trailer);
                }
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length < size) {
                throw new IOException("a chunk ended after " + chunk.length + " of its " + size + " bytes");
            }
            body.writeBytes(chunk);
            String after = line(false);
            if (!after.isEmpty()) {
                throw new IOException("chunk data of " + size + " bytes not followed by CRLF but by: " + after);
            }
        }
    }

    /** A line without its CRLF; null only when {@code endOk} and the stream ends before its first byte. */
    private String line(boolean endOk) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int n = sb.length();
                if (n == 0 || sb.charAt(n - 1) != '\r') {
                    throw new IOException("a line ended by a bare LF: " + sb);
                }
                return sb.substring(0, n - 1);
            }
            if (sb.length() == MAX_LINE) {
                throw new IOException("a line longer than " + MAX_LINE + " bytes");
            }
            sb.append((char) c);
        }
        if (sb.isEmpty() && endOk) {
            return null;
        }
        throw new IOException(sb.isEmpty() ? "connection closed inside a response" : "connection closed inside the line: " + sb);
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isToken(String s, int end) {
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            boolean tchar = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }

    /** No control character but HTAB from {@code from} on (VCHAR, SP, HTAB and obs-text only). */
    private static boolean printable(String s, int from) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 && c != '\t' || c == 0x7F) {
                return false;
            }
        }
        return true;
    }

    private static String stripOws(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
            end--;
        }
        return s.substring(start, end);
    }

    private static String excerpt(byte[] data, int from) {
        String s = new String(data, from, data.length - from, StandardCharsets.ISO_8859_1);
        return s.length() > 400 ? s.substring(0, 400) + "...(" + s.length() + " chars)" : s;
    }
}
