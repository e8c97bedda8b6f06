// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bytes;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The current date as an HTTP-date (RFC 9110 5.6.7), for the {@code Date} field: shared by all
 * connections and rebuilt at most once a second.
 */
public final class HttpDate {
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private record Line(long second, byte[] bytes, byte[] value) {
    }

    private static volatile Line current = build(System.currentTimeMillis() / 1000);

    private HttpDate() {
    }

    /**
     * The HTTP/1.1 field line, {@code Date: <date>} and CRLF.
     *
     * @return the shared bytes; never modify them
     */
    public static byte[] line() {
        return currentLine().bytes;
    }

    /**
     * The field value alone, for HTTP/2.
     *
     * @return the shared bytes; never modify them
     */
    public static byte[] value() {
        return currentLine().value;
    }

    /**
     * An instant as an HTTP-date ({@code Sun, 06 Nov 1994 08:49:37 GMT}), to the second.
     *
     * @param instant the instant
     * @return the date
     */
    public static String format(Instant instant) {
        return HTTP_DATE.format(instant);
    }

    private static Line currentLine() {
        long second = System.currentTimeMillis() / 1000;
        Line line = current;
        if (line.second != second) {
            line = build(second);
            current = line;
        }
        return line;
    }

    private static Line build(long second) {
        String value = HTTP_DATE.format(Instant.ofEpochSecond(second));
        return new Line(second, ("Date: " + value + "\r\n").getBytes(StandardCharsets.US_ASCII),
                value.getBytes(StandardCharsets.US_ASCII));
    }
}
