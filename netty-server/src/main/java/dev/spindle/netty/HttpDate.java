package dev.spindle.netty;

import io.netty.handler.codec.DateFormatter;
import io.netty.util.AsciiString;
import java.util.Date;

/** The {@code Date} header value, shared by all event loops and formatted at most once a second. */
final class HttpDate {
    private record Value(long second, AsciiString text) {
    }

    private static volatile Value current = format(System.currentTimeMillis() / 1000);

    private HttpDate() {
    }

    static AsciiString now() {
        long second = System.currentTimeMillis() / 1000;
        Value v = current;
        if (v.second != second) {
            v = format(second);
            current = v;
        }
        return v.text;
    }

    private static Value format(long second) {
        return new Value(second, new AsciiString(DateFormatter.format(new Date(second * 1000))));
    }
}
