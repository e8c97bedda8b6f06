// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import dev.spindle.core.bytes.Ascii;
import java.nio.charset.StandardCharsets;

/**
 * What a response head's framing fields say, as {@link ResponseParser} meets them: the
 * {@code Content-Length} (RFC 9110 8.6: repeated or listed values must agree), the transfer codings
 * (whether {@code chunked} is there, how often, and last) and the {@code Connection} options
 * ({@code close}, {@code keep-alive}). Invalid values are malformed.
 */
final class FramingFields {
    private static final byte[] CONTENT_LENGTH = lower("content-length");
    private static final byte[] TRANSFER_ENCODING = lower("transfer-encoding");
    private static final byte[] CONNECTION = lower("connection");
    private static final byte[] CHUNKED = lower("chunked");
    private static final byte[] CLOSE = lower("close");
    private static final byte[] KEEP_ALIVE = lower("keep-alive");

    /** -1 until a Content-Length is seen. */
    long contentLength = -1;
    boolean transferEncoding;
    int chunkedCodings;
    boolean chunkedLast;
    boolean connectionClose;
    boolean connectionKeepAlive;

    void reset() {
        contentLength = -1;
        transferEncoding = false;
        chunkedCodings = 0;
        chunkedLast = false;
        connectionClose = false;
        connectionKeepAlive = false;
    }

    /** A head field line: its name at {@code buf[name, name + len)}, its value at {@code buf[vs, ve)}. */
    void field(byte[] buf, int name, int len, int vs, int ve) {
        if (len == CONTENT_LENGTH.length && equalsLower(buf, name, CONTENT_LENGTH)) {
            contentLengthValues(buf, vs, ve);
        } else if (len == TRANSFER_ENCODING.length && equalsLower(buf, name, TRANSFER_ENCODING)) {
            transferCodings(buf, vs, ve);
        } else if (len == CONNECTION.length && equalsLower(buf, name, CONNECTION)) {
            connectionOptions(buf, vs, ve);
        }
    }

    /** RFC 9110 8.6: a list or repetition of one value is that value; differing or invalid values are malformed. */
    private void contentLengthValues(byte[] buf, int vs, int ve) {
        int i = vs;
        while (true) {
            while (i < ve && Ascii.isWhitespace(buf[i])) {
                i++;
            }
            long value = 0;
            int digits = i;
            while (i < ve && digit(buf[i])) {
                if (value > (Long.MAX_VALUE - 9) / 10) {
                    throw ResponseException.malformed("Content-Length overflows");
                }
                value = value * 10 + (buf[i] - '0');
                i++;
            }
            while (i < ve && Ascii.isWhitespace(buf[i])) {
                i++;
            }
            if (i == digits || i < ve && buf[i] != ',') {
                throw ResponseException.malformed("invalid Content-Length: " + ascii(buf, vs, ve));
            }
            if (contentLength >= 0 && contentLength != value) {
                throw ResponseException.malformed("Content-Length values differ: " + contentLength + " and " + value);
            }
            contentLength = value;
            if (i == ve) {
                return;
            }
            i++;
        }
    }

    /** The codings in order; only whether chunked is there, how often, and last, matters for framing. */
    private void transferCodings(byte[] buf, int vs, int ve) {
        transferEncoding = true;
        int elements = 0;
        for (int i = vs; i < ve; ) {
            while (i < ve && (Ascii.isWhitespace(buf[i]) || buf[i] == ',')) {
                i++;
            }
            if (i == ve) {
                break;
            }
            int s = i;
            while (i < ve && Ascii.isTchar(buf[i])) {
                i++;
            }
            if (i == s) {
                throw ResponseException.malformed("malformed Transfer-Encoding: " + ascii(buf, vs, ve));
            }
            boolean chunked = i - s == CHUNKED.length && equalsLower(buf, s, CHUNKED);
            // transfer parameters (";" name "=" value), skipped: only the coding's name matters here
            while (i < ve && buf[i] != ',') {
                i++;
            }
            elements++;
            if (chunked) {
                chunkedCodings++;
            }
            chunkedLast = chunked;
        }
        if (elements == 0) {
            throw ResponseException.malformed("empty Transfer-Encoding");
        }
    }

    private void connectionOptions(byte[] buf, int vs, int ve) {
        for (int i = vs; i < ve; ) {
            while (i < ve && (Ascii.isWhitespace(buf[i]) || buf[i] == ',')) {
                i++;
            }
            int s = i;
            while (i < ve && buf[i] != ',' && !Ascii.isWhitespace(buf[i])) {
                i++;
            }
            if (i - s == CLOSE.length && equalsLower(buf, s, CLOSE)) {
                connectionClose = true;
            } else if (i - s == KEEP_ALIVE.length && equalsLower(buf, s, KEEP_ALIVE)) {
                connectionKeepAlive = true;
            }
        }
    }

    private static boolean equalsLower(byte[] buf, int at, byte[] lower) {
        for (int i = 0; i < lower.length; i++) {
            int c = buf[at + i];
            if (c >= 'A' && c <= 'Z') {
                c += 32;
            }
            if (c != lower[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static String ascii(byte[] buf, int from, int to) {
        return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private static byte[] lower(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
