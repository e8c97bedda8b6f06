// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.http1.BenchAccess;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The response encoder alone: the {@code /plaintext} answer (status line, Server, Date, Content-Type, Content-Length, body). */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EncodeBenchmark {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private BenchAccess.Encoding encoding;

    @Setup
    public void setup() {
        encoding = new BenchAccess.Encoding();
        String s = encoding.encodeToString(HELLO);
        if (!s.startsWith("HTTP/1.1 200 OK\r\n") || !s.endsWith("\r\n\r\nHello, World!")) {
            throw new IllegalStateException("unexpected encoding: " + s);
        }
    }

    @Benchmark
    public int plaintext() {
        return encoding.encodePlaintext(HELLO);
    }
}
