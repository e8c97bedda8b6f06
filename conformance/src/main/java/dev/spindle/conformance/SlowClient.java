// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.testing.RawResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.SocketFactory;

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
        servedWithin(port, count, Duration.ofSeconds(15));
    }

    /** {@code count} requests on a fresh connection, all answered within {@code within}. */
    public static void servedWithin(int port, int count, Duration within) throws IOException {
        servedWithin(SocketFactory.getDefault(), port, count, within);
    }

    /** {@code count} requests on a fresh connection from {@code sockets} (TLS ones, say), all answered within {@code within}. */
    public static void servedWithin(SocketFactory sockets, int port, int count, Duration within) throws IOException {
        servedWithin(sockets, "127.0.0.1", port, count, within);
    }

    /** {@code count} requests on a fresh connection to {@code host:port}, all answered within {@code within}. */
    public static void servedWithin(SocketFactory sockets, String host, int port, int count, Duration within) throws IOException {
        long started = System.nanoTime();
        try (RawConnection c = new RawConnection(host, port, sockets)) {
            c.socket().setSoTimeout((int) within.toMillis());
            for (int i = 0; i < count; i++) {
                RawResponse r = c.send("GET /users/" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("{\"id\":\"" + i + "\"}");
            }
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to serve %d requests", count).isLessThanOrEqualTo(within);
    }

    /**
     * Bytes {@code client} has written that the server's application has not read: what waits in
     * the client's send queue plus the server socket's receive queue, as the kernel reports them
     * (Linux {@code /proc/net/tcp} and {@code tcp6}; both ends are on this host). Empty where that
     * cannot be read, or once the connection is gone.
     */
    public static OptionalLong unreadByServer(Socket client) {
        int clientPort = client.getLocalPort();
        int serverPort = client.getPort();
        long queued = 0;
        int found = 0;
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException e) {
                continue;
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                // sl local_address rem_address st tx_queue:rx_queue ...
                String[] f = line.trim().split("\\s+");
                int local = port(f[1]);
                int remote = port(f[2]);
                String[] queues = f[4].split(":");
                if (local == clientPort && remote == serverPort) {
                    queued += Long.parseLong(queues[0], 16);
                    found++;
                } else if (local == serverPort && remote == clientPort) {
                    queued += Long.parseLong(queues[1], 16);
                    found++;
                }
            }
        }
        return found == 2 ? OptionalLong.of(queued) : OptionalLong.empty();
    }

    /**
     * The most the kernel can hold of what {@code client} sends and the server has not read: the
     * client's send buffer plus the largest receive buffer TCP autotuning may give the server
     * ({@code tcp_rmem} max; 32 MiB where that cannot be read).
     */
    public static long kernelBufferBound(Socket client) throws IOException {
        long receiveMax = 32L << 20;
        try {
            String[] rmem = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_rmem")).trim().split("\\s+");
            receiveMax = Long.parseLong(rmem[2]);
        } catch (IOException | RuntimeException e) {
            // not Linux: keep the common default
        }
        return receiveMax + client.getSendBufferSize();
    }

    private static int port(String hexAddressAndPort) {
        return Integer.parseInt(hexAddressAndPort.substring(hexAddressAndPort.indexOf(':') + 1), 16);
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
