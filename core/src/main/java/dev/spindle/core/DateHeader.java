package dev.spindle.core;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} header, shared by all connections and rebuilt at most once a second. Public
 * for adapters to other HTTP stacks, which should not format dates per request either.
 */
final class DateHeader {
    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private record Line(long second, String value, byte[] bytes) {
    }

    private static volatile Line current = build(System.currentTimeMillis() / 1000);

    private DateHeader() {
    }

    static byte[] line() {
        return currentLine().bytes;
    }

    /** The current value, e.g. {@code Sun, 22 Nov 2026 10:00:00 GMT}. */
    static String value() {
        return currentLine().value;
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
        return new Line(second, value, ("Date: " + value + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }
}
