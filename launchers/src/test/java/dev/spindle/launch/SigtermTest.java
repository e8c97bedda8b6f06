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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real command line under SIGTERM: a server process started through the launcher
 * ({@code java -cp <classpath> dev.spindle.launch.MultiLoopServer 0 1}) with a 2 s blocking request
 * in flight sends that response whole, then exits within the drain timeout; with a drain delay,
 * its readiness probe answers 503 at once while new connections are still served, then it drains.
 */
@Timeout(60)
class SigtermTest {
    private static final Pattern READY = Pattern.compile("MultiLoopServer listening on [^:]+:(\\d+)");
    /** The JVM's exit status after its shutdown hooks ran on SIGTERM: 128 + 15. */
    private static final int SIGTERM_STATUS = 143;

    /** A launcher process with {@code properties} ({@code -Dname=value} arguments), its output read into {@code output}. */
    private static Process launch(StringBuffer output, CompletableFuture<Integer> port, String... properties) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(List.of(properties));
        command.addAll(List.of("-cp", ChildJvm.classPath(), MultiLoopServer.class.getName(), "0", "1"));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // reads the process's output to the end, so a full pipe can never block it
        Thread.ofVirtual().start(() -> readOutput(process, output, port));
        return process;
    }

    @Test
    void sigtermLetsTheInFlightRequestFinishAndTheProcessExit() throws Exception {
        Duration drainTimeout = Duration.ofSeconds(6);
        StringBuffer output = new StringBuffer();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Process process = launch(output, port, "-Dspindle.drainTimeoutMs=" + drainTimeout.toMillis());
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

    @Test
    void withADrainDelaySigtermTurnsReadinessDownAndServesOnBeforeTheDrain() throws Exception {
        Duration delay = Duration.ofSeconds(4);
        Duration drainTimeout = Duration.ofSeconds(6);
        StringBuffer output = new StringBuffer();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Process process = launch(output, port, "-Dspindle.drainDelayMs=" + delay.toMillis(),
                "-Dspindle.drainTimeoutMs=" + drainTimeout.toMillis());
        try {
            int serverPort = port.get(30, TimeUnit.SECONDS);
            assertThat(get(serverPort, "/health/ready").status()).as("ready before SIGTERM").isEqualTo(200);

            long terminated = System.nanoTime();
            process.destroy(); // SIGTERM on Linux: the shutdown hook closes the server
            RawResponse ready = get(serverPort, "/health/ready");
            while (ready.status() == 200 && System.nanoTime() - terminated < TimeUnit.SECONDS.toNanos(3)) {
                Thread.sleep(10);
                ready = get(serverPort, "/health/ready");
            }
            assertThat(ready.status()).as("readiness once SIGTERM began the close").isEqualTo(503);
            assertThat(ready.bodyText()).contains("draining");
            RawResponse served = get(serverPort, "/plaintext");
            assertThat(System.nanoTime() - terminated).as("probed and served within the delay").isLessThan(delay.toNanos());
            assertThat(served.status()).as("a new connection during the delay").isEqualTo(200);
            assertThat(served.closes()).as("served as usual, not drained").isFalse();
            assertThat(process.isAlive()).as("still serving out the delay").isTrue();

            assertThat(process.waitFor(delay.plus(drainTimeout).toMillis(), TimeUnit.MILLISECONDS))
                    .as("exited within the delay and the drain timeout; output:%n%s", output).isTrue();
            assertThat(System.nanoTime() - terminated).as("exited after the delay").isGreaterThanOrEqualTo(delay.toNanos());
            assertThat(process.exitValue()).as("exit status; output:%n%s", output).isIn(0, SIGTERM_STATUS);
        } finally {
            process.destroyForcibly();
        }
    }

    /** One request on a connection of its own. */
    private static RawResponse get(int port, String target) throws IOException {
        try (RawConnection c = new RawConnection(port)) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
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
