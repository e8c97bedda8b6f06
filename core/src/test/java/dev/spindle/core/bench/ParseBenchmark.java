// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.http1.BenchAccess;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The request parser alone: bytes appended to the connection's input buffer, parsed into the
 * reused request, consumed. Throughput is per request, so {@link #pipelined16} (one buffer with
 * 16 requests, {@code @OperationsPerInvocation(16)}) reads directly against {@link #wrkGet}: equal
 * numbers mean parsing cost stays flat when requests are pipelined.
 *
 * <p>Three forks: from one JVM to the next, C2 compiles {@code RequestParser.parse} into code that
 * runs either near 7M or near 4M requests/s (seen for both benchmarks), so one fork cannot tell
 * "flat" from "unlucky".
 */
@State(Scope.Thread)
@Fork(3)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ParseBenchmark {
    private BenchAccess.Parser parser;
    private ByteBuffer wrk;
    private ByteBuffer pipelined;
    private ByteBuffer browser;

    @Setup
    public void setup() {
        parser = new BenchAccess.Parser(ServerConfig.defaults());
        wrk = Requests.direct(Requests.wrkGet("/plaintext"));
        pipelined = Requests.direct(Requests.repeat(Requests.wrkGet("/plaintext"), 16));
        browser = Requests.direct(Requests.browserGet("/plaintext"));
        check(wrk, 1 + 4);
        check(pipelined, 16 * (1 + 4));
        check(browser, 1 + 20);
    }

    private void check(ByteBuffer src, int expected) {
        int got = parser.parseAll(src.rewind());
        if (got != expected) {
            throw new IllegalStateException("parsed " + got + " (requests + headers), expected " + expected);
        }
    }

    /** {@code GET /plaintext} with Host, User-Agent, Accept and Connection, as wrk sends it. */
    @Benchmark
    public int wrkGet() {
        return parser.parseAll(wrk.rewind());
    }

    /** 16 of those in one read; score is per request. */
    @Benchmark
    @OperationsPerInvocation(16)
    public int pipelined16() {
        return parser.parseAll(pipelined.rewind());
    }

    /** A browser's GET with 20 header fields (cookies, sec-ch-ua, long Accept and User-Agent). */
    @Benchmark
    public int browser20Headers() {
        return parser.parseAll(browser.rewind());
    }
}
