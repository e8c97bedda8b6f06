// SPDX-License-Identifier: Apache-2.0
package dev.spindle.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A server in a JVM of its own with {@code -Xmx128m}: a 512 MiB streamed response and a 512 MiB
 * streamed upload (each four times the heap) go through byte-exact, and a client that reads a 1 GiB response slowly does not
 * grow the server's heap (sampled through {@code /heap}, which collects garbage first). A server
 * that buffered a body whole could not do any of it.
 */
public final class LargeTransferCheck implements AutoCloseable {
    /** The size of a transfer: four times the server's heap, so a body held whole cannot fit. */
    public static final long SIZE = 512L << 20;
    private static final long GIB = 1L << 30;
    private final Process process;
    private final int port;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private LargeTransferCheck(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts {@code serverClass} in a new JVM with {@code -Xmx128m} and the given extra JVM options. */
    public static LargeTransferCheck start(Class<?> serverClass, String... jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        // an OutOfMemoryError ends the process, so the check cannot miss one that only killed a thread
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("--sun-misc-unsafe-memory-access=allow");
        command.addAll(List.of(jvmOptions));
        command.add("-cp");
        command.add(ChildJvm.classPath());
        command.add(StreamingServerMain.class.getName());
        command.add(serverClass.getName());
        Path portFile = Files.createTempFile("spindle-large-transfer", ".port");
        Files.delete(portFile);
        command.add(portFile.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Thread.ofVirtual().start(() -> drain(out));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try {
            while (process.isAlive() && System.nanoTime() < deadline) {
                if (Files.exists(portFile)) {
                    return new LargeTransferCheck(process, Integer.parseInt(Files.readString(portFile).trim()));
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            Files.deleteIfExists(portFile);
        }
        process.destroyForcibly();
        throw new IOException(serverClass.getSimpleName() + " did not start in its own JVM");
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // the server's log; read so that it never blocks on a full pipe
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /** GET {@code route}{@value #SIZE} arrives whole and byte-exact. */
    public void downloads(String route) throws Exception {
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + route + SIZE))
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        try (InputStream body = r.body()) {
            assertThat(StreamingRoutes.verify(body)).as("bytes of %s", route).isEqualTo(SIZE);
        }
        assertAlive();
    }

    /** A 512 MiB chunked upload, read as a stream by a blocking handler, arrives byte-exact. */
    public void uploads() throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/upload"))
                .timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new StreamingRoutes.PatternStream(SIZE))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("count:" + SIZE + " mismatches:0");
        assertAlive();
    }

    /**
     * Reads a 1 GiB streamed response at about 20 MiB/s for a few seconds while sampling the
     * server's live heap: it must stay within 32 MiB of what it was before.
     */
    public void slowReaderDoesNotGrowTheHeap() throws Exception {
        long before = heap();
        long most = 0;
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(64 * 1024);
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /writer/" + GIB + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[256 * 1024];
            long read = 0;
            for (int round = 0; round < 12; round++) {
                int n = in.read(buf);
                assertThat(n).as("the response keeps coming").isPositive();
                read += n;
                Thread.sleep(100);
                if (round % 4 == 3) {
                    most = Math.max(most, heap());
                }
            }
            assertThat(read).isPositive();
        }
        assertThat(most - before).as("server heap growth while a client reads 1 GiB slowly (before: %d bytes)", before)
                .isLessThan(32L << 20);
        assertAlive();
    }

    private long heap() throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/heap"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return Long.parseLong(r.body().trim());
    }

    private void assertAlive() {
        assertThat(process.isAlive()).as("the server process survived (no OutOfMemoryError)").isTrue();
    }

    @Override
    public void close() {
        client.close();
        process.destroy();
        try {
            if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
