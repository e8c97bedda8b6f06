// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core;

import dev.spindle.core.spi.Connection;
import dev.spindle.core.testing.RawResponse;
import dev.spindle.core.testing.ResponseReader;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bytes in and out of a sans-I/O {@link HttpConnection} for the core's tests: feeding it, draining
 * what it has to write, and reading that back ({@link ResponseReader}) with the headers every
 * Spindle response carries checked.
 */
public final class ConnectionBytes {
    private static final Pattern IMF_DATE =
            Pattern.compile("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");

    private ConnectionBytes() {
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    public static void feed(Connection c, String s) {
        feed(c, bytes(s));
    }

    public static void feed(Connection c, byte[] b) {
        ByteBuffer buf = ByteBuffer.wrap(b);
        c.received(buf);
        assertThat(buf.hasRemaining()).as("received() consumes everything").isFalse();
    }

    /** Takes everything the connection has to write and reports it written. */
    public static byte[] drain(Connection c) {
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
    public static byte[] drainAll(Connection c) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        do {
            all.writeBytes(drain(c));
        } while (c.next().writes() && c.outboundFile() == null);
        return all.toByteArray();
    }

    /** Reads the pending output without reporting it written. */
    public static byte[] peek(Connection c) {
        ByteBuffer view = c.outbound().duplicate();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    public static List<RawResponse> parseAll(byte[] data) {
        return parseAll(data, Set.of());
    }

    /**
     * The back-to-back responses that must use up {@code data} exactly, 1xx ones included. Final
     * responses whose index (not counting 1xx ones) is in {@code bodiless} answer HEAD. Every final
     * response with a {@code Content-Length} passes {@link #assertCommonHeaders}.
     */
    public static List<RawResponse> parseAll(byte[] data, Set<Integer> bodiless) {
        List<RawResponse> responses = ResponseReader.readAll(data, bodiless::contains);
        for (RawResponse r : responses) {
            if (!r.interim() && r.header("Transfer-Encoding") == null) {
                assertCommonHeaders(r);
            }
        }
        return responses;
    }

    /** Every final response carries exactly one Date (IMF-fixdate), Server: spindle and Content-Length. */
    public static void assertCommonHeaders(RawResponse r) {
        assertThat(r.headers("Date")).as("Date of %s", r).hasSize(1);
        assertThat(r.header("Date")).as("Date format").matches(IMF_DATE);
        assertThat(r.headers("Server")).as("Server of %s", r).containsExactly("spindle");
        if (r.status() == 204 || r.status() == 304) {
            // RFC 9110 8.6 and 15.4.5: no body, so no length to announce
            assertThat(r.headers("Content-Length")).as("no Content-Length on %s", r).isEmpty();
        } else {
            assertThat(r.headers("Content-Length")).as("Content-Length of %s", r).hasSize(1);
        }
    }
}
