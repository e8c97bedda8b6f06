// SPDX-License-Identifier: Apache-2.0
package dev.spindle.references.support;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} header's value (an IMF-fixdate, RFC 9110 5.6.7) for the references whose
 * framework writes none: formatted once a second by {@link #now()}, not per response.
 */
public final class HttpDate {
    // RFC_1123_DATE_TIME would drop the day's leading zero, which IMF-fixdate keeps
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private record Stamp(long second, String text) {
    }

    private volatile Stamp current = new Stamp(-1, "");

    /**
     * The IMF-fixdate of a second.
     *
     * @param epochSecond seconds since the epoch
     * @return e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}
     */
    public static String format(long epochSecond) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond));
    }

    /** {@return the current second's IMF-fixdate, formatted again only when the second has changed} */
    public String now() {
        long second = System.currentTimeMillis() / 1000;
        Stamp stamp = current;
        if (stamp.second() != second) {
            stamp = new Stamp(second, format(second));
            current = stamp;
        }
        return stamp.text();
    }
}
