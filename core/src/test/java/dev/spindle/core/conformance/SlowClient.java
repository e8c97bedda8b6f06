package dev.spindle.core.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** A client that floods a server with large requests and reads the answers slowly, for back-pressure tests. */
public final class SlowClient {
    private SlowClient() {
    }

    /** A writer pipelining {@code count} POST /echo requests of one body while nobody reads the answers. */
    public record EchoFlood(Thread writer, AtomicLong bodyBytesSent, AtomicReference<Throwable> failure, long totalBytes) {
    }

    public static EchoFlood startEchoFlood(Socket socket, byte[] body, int count) {
        byte[] head = ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        AtomicLong sent = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                for (int i = 0; i < count; i++) {
                    out.write(head);
                    for (int off = 0; off < body.length; off += 64 * 1024) {
                        int n = Math.min(64 * 1024, body.length - off);
                        out.write(body, off, n);
                        sent.addAndGet(n);
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        return new EchoFlood(writer, sent, failure, (long) count * (head.length + body.length));
    }

    /** {@code count} requests on a fresh connection, each answered within the client's read timeout. */
    public static void servedPromptly(int port, int count) throws IOException {
        try (RawConnection c = new RawConnection(port)) {
            for (int i = 0; i < count; i++) {
                RawConnection.RawResponse r = c.send("GET /users/" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
            }
        }
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
