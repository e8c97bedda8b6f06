// SPDX-License-Identifier: Apache-2.0
package dev.spindle.launch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.conformance.ChildJvm;
import dev.spindle.conformance.RawConnection;
import dev.spindle.core.testing.RawResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real command line under SIGTERM: a server process started through the launcher
 * ({@code java -cp <classpath> dev.spindle.launch.MultiLoopServer 0 1}) with a 2 s blocking request
 * in flight sends that response whole, then exits within the drain timeout.
 */
@Timeout(60)
class SigtermTest {
    private static final Pattern READY = Pattern.compile("MultiLoopServer listening on [^:]+:(\\d+)");
    /** The JVM's exit status after its shutdown hooks ran on SIGTERM: 128 + 15. */
    private static final int SIGTERM_STATUS = 143;

    @Test
    void sigtermLetsTheInFlightRequestFinishAndTheProcessExit() throws Exception {
        Duration drainTimeout = Duration.ofSeconds(6);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Dspindle.drainTimeoutMs=" + drainTimeout.toMillis(),
                "-cp", ChildJvm.classPath(), MultiLoopServer.class.getName(), "0", "1")
                .redirectErrorStream(true)
                .start();
        StringBuffer output = new StringBuffer();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        // reads the process's output to the end, so a full pipe can never block it
        Thread.ofVirtual().start(() -> readOutput(process, output, port));
        try {
            int serverPort = port.get(30, TimeUnit.SECONDS);
            try (RawConnection c = new RawConnection(serverPort)) {
                // One write, one read on the server: once the first answer arrives, the blocking
                // request behind it has been read and started.
                c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\nGET /blocking/2000 HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().bodyText()).isEqualTo("Hello, World!");

                long terminated = System.nanoTime();
                process.destroy(); // SIGTERM on Linux
                RawResponse r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("{\"slept\":2000}");
                assertThat(c.closedByPeer()).as("closed after the in-flight response").isTrue();

                assertThat(process.waitFor(drainTimeout.toMillis(), TimeUnit.MILLISECONDS))
                        .as("exited within the drain timeout; output:%n%s", output).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - terminated)).isLessThan(drainTimeout);
                assertThat(process.exitValue()).as("exit status; output:%n%s", output).isIn(0, SIGTERM_STATUS);
            }
        } finally {
            process.destroyForcibly();
        }
    }

    private static void readOutput(Process process, StringBuffer output, CompletableFuture<Integer> port) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                output.append(line).append('\n');
                Matcher m = READY.matcher(line);
                if (m.find()) {
                    port.complete(Integer.parseInt(m.group(1)));
                }
            }
            port.completeExceptionally(new IOException("the server exited before it was ready:\n" + output));
        } catch (IOException e) {
            port.completeExceptionally(e);
        }
    }
}
