// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.TestRoutes;
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
 * One request through a keep-alive {@link Connection}: the bytes a socket read delivered (a direct
 * buffer) go in, the connection parses, routes, runs the benchmark app's handler (as
 * {@link TestRoutes} has it) and encodes; the response bytes it hands out are reported written.
 * The Netty anchor, {@code dev.spindle.netty.bench.NettyRoundTripBenchmark}, does the same through
 * {@code HttpServerCodec}; {@code scripts/jmh.sh} puts the two side by side.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CoreRoundTripBenchmark {
    /** Request target per route: {@code /plaintext}, {@code /json}, {@code /users/{id}}. */
    @Param({"plaintext", "json", "users"})
    public String route;

    private Connection connection;
    private ByteBuffer request;

    @Setup
    public void setup() {
        String target = switch (route) {
            case "plaintext" -> "/plaintext";
            case "json" -> "/json";
            case "users" -> "/users/12345";
            default -> throw new IllegalArgumentException(route);
        };
        String expectedBody = switch (route) {
            case "plaintext" -> "Hello, World!";
            case "json" -> "{\"message\":\"Hello, World!\"}";
            default -> "{\"id\":\"12345\"}";
        };
        // as a server opens it: with the server's budget for buffered bodies (a GET never touches it)
        ServerConfig config = ServerConfig.defaults();
        connection = Connection.open(TestRoutes.routes(), config, null, null, BodyBudget.of(config));
        request = Requests.direct(Requests.wrkGet(target));
        connection.received(request.rewind());
        ByteBuffer out = connection.outbound();
        String response = StandardCharsets.ISO_8859_1.decode(out.duplicate()).toString();
        connection.written(out.remaining());
        if (!response.startsWith("HTTP/1.1 200 OK\r\n") || !response.endsWith("\r\n\r\n" + expectedBody)
                || (connection.next() == Next.CLOSE) || connection.next().writes()) {
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
