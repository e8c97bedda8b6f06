package dev.spindle.core.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;

/** Reads large responses the way a slow client does, for back-pressure tests of the strategies. */
public final class SlowReader {
    private SlowReader() {
    }

    /**
     * Reads one 200 response whose Content-Length body must be {@code expectedLength} bytes;
     * {@code slowly}: 64 KiB at a time with a pause after each.
     */
    public static byte[] readOk(InputStream in, int expectedLength, boolean slowly) throws IOException, InterruptedException {
        assertThat(line(in)).startsWith("HTTP/1.1 200 ");
        int length = -1;
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        assertThat(length).isEqualTo(expectedLength);
        byte[] data = new byte[length];
        for (int off = 0; off < length; ) {
            int n = in.readNBytes(data, off, Math.min(64 * 1024, length - off));
            if (n == 0) {
                throw new IOException("connection closed inside a body");
            }
            off += n;
            if (slowly) {
                Thread.sleep(10);
            }
        }
        return data;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed inside a header");
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
