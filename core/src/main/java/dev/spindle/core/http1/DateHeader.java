package dev.spindle.core.http1;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} header, shared by all connections and rebuilt at most once a second.
 */
final class DateHeader {
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private record Line(long second, byte[] bytes) {
    }

    private static volatile Line current = build(System.currentTimeMillis() / 1000);

    private DateHeader() {
    }

    static byte[] line() {
        return currentLine().bytes;
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
        return new Line(second, ("Date: " + value + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }
}
