// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.Compression;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A 4 KiB JSON answer through a keep-alive HTTP/1.1 {@link Connection}, as {@link CoreRoundTripBenchmark}
 * drives it: on a router without compression ({@code off}), on one that compresses but a request
 * that does not ask for it ({@code identity}: the negotiation and {@code Vary} only), and gzipped
 * ({@code gzip}: a pooled deflater at level 6). Its gc profile is the cost of compression per
 * answer in bytes allocated.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CompressionRoundTripBenchmark {
    /** About 4 KiB of JSON, as an API's list answer is. */
    static final String JSON = "{\"items\":[" + "{\"id\":12345,\"name\":\"item\",\"tags\":[\"a\",\"b\"],\"price\":9.99},".repeat(70)
            + "{}]}";

    @Param({"off", "identity", "gzip"})
    public String coding;

    private Connection connection;
    private ByteBuffer request;

    @Setup
    public void setup() {
        Router.Builder routes = Router.builder().get("/json", (req, res) -> res.jsonText(JSON));
        if (!coding.equals("off")) {
            routes.compression(Compression.defaults());
        }
        String get = Requests.wrkGet("/json");
        if (coding.equals("gzip")) {
            get = get.replace("\r\n\r\n", "\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n");
        }
        ServerConfig config = ServerConfig.defaults();
        connection = Connection.open(routes.build(), config, null, null, BodyBudget.of(config));
        request = Requests.direct(get);
        connection.received(request.rewind());
        ByteBuffer out = connection.outbound();
        String response = StandardCharsets.ISO_8859_1.decode(out.duplicate()).toString();
        connection.written(out.remaining());
        boolean gzipped = response.contains("\r\nContent-Encoding: gzip\r\n");
        if (!response.startsWith("HTTP/1.1 200 OK\r\n") || gzipped != coding.equals("gzip")
                || response.contains("Vary: Accept-Encoding") == coding.equals("off")
                || connection.next() == Next.CLOSE || connection.next().writes()) {
            throw new IllegalStateException("unexpected response: " + response);
        }
    }

    @Benchmark
    public int roundTrip() {
        connection.received(request.rewind());
        ByteBuffer out = connection.outbound();
        int n = out.remaining();
        connection.written(n);
        return n;
    }
}
