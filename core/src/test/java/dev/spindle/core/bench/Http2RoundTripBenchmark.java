// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.BodyBudget;
import dev.spindle.core.spi.Connection;
import dev.spindle.core.spi.Next;
import dev.spindle.core.testing.TestRoutes;
import java.nio.ByteBuffer;
import java.util.List;
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
 * One HTTP/2 request through an established h2c connection: the HEADERS frame a client sends
 * for a GET ({@link H2Requests#nextGet}, the header block h2load's HPACK encoder writes once the
 * connection's first request filled its dynamic table) goes in as a socket read delivers it, on a
 * new stream each time; the connection decodes the frame and the block, routes, runs the
 * benchmark app's handler ({@link TestRoutes}) and encodes HEADERS and DATA, which are reported
 * written. The connection is opened as a server opens it ({@link Connection#open}, the protocol
 * switch that becomes HTTP/2 on the preface), and in {@code @Setup} it gets the client's preface,
 * SETTINGS and a connection WINDOW_UPDATE to 2^31-1, the acknowledgement of the server's SETTINGS,
 * and a first request; the answers are decoded and checked.
 *
 * <p>The input is a direct buffer, as the NIO and io_uring strategies' reads leave it (the same as
 * {@link CoreRoundTripBenchmark}); its 4 stream-id bytes are patched for each operation. The
 * client gives the DATA back to the connection's window with a WINDOW_UPDATE every 2^20 requests,
 * as a client gives back what it read, so flow control never stalls and the cost is amortised to
 * nothing. The Netty anchor, {@code dev.spindle.netty.bench.NettyHttp2RoundTripBenchmark}, feeds
 * the same bytes to {@code Http2FrameCodec}; {@code scripts/jmh.sh} puts the two side by side.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class Http2RoundTripBenchmark {
    /** Requests between two connection WINDOW_UPDATEs. */
    static final int WINDOW_UPDATE_EVERY = 1 << 20;

    /** Route: {@code /plaintext} or {@code /json}. */
    @Param({"plaintext", "json"})
    public String route;

    private Connection connection;
    private ByteBuffer request;
    private ByteBuffer windowUpdate;
    private int streamId;
    private int untilWindowUpdate;

    @Setup
    public void setup() {
        open();
    }

    /** Opens the connection, exchanges the prefaces and SETTINGS, and checks two requests' answers. */
    private void open() {
        ServerConfig config = ServerConfig.defaults();
        connection = Connection.open(TestRoutes.routes(), config, null, null, BodyBudget.of(config));
        String path = "/" + route;
        H2Requests.Reader client = new H2Requests.Reader();

        feed(H2Requests.clientStart());
        List<H2Requests.Frame> opening = H2Requests.Reader.frames(take());
        if (opening.stream().noneMatch(f -> f.type() == H2Requests.SETTINGS && !f.has(H2Requests.FLAG_ACK))
                || opening.stream().noneMatch(f -> f.type() == H2Requests.SETTINGS && f.has(H2Requests.FLAG_ACK))) {
            throw new IllegalStateException("no SETTINGS and SETTINGS ACK from the server: " + opening);
        }
        feed(H2Requests.settingsAck());
        feed(H2Requests.firstGet(path, 1));
        H2Requests.check(client.response(take()), 1, route);

        request = ByteBuffer.allocateDirect(64);
        request.put(H2Requests.nextGet(path, 3)).flip();
        windowUpdate = ByteBuffer.allocateDirect(64);
        windowUpdate.put(H2Requests.windowUpdate(0, WINDOW_UPDATE_EVERY * H2Requests.body(route).length())).flip();
        connection.received(request.rewind());
        H2Requests.check(client.response(take()), 3, route);
        Next next = connection.next();
        if (next == Next.CLOSE || next.writes()) {
            throw new IllegalStateException("the connection is not idle after two requests: " + next);
        }
        streamId = 5;
        untilWindowUpdate = WINDOW_UPDATE_EVERY;
    }

    @Benchmark
    public int roundTrip() {
        request.putInt(H2Requests.STREAM_ID_OFFSET, streamId);
        streamId += 2;
        connection.received(request.rewind());
        if (--untilWindowUpdate == 0) {
            untilWindowUpdate = WINDOW_UPDATE_EVERY;
            connection.received(windowUpdate.rewind());
        }
        ByteBuffer out = connection.outbound();
        int n = out.remaining();
        connection.written(n);
        if (streamId < 0) {
            // past 2^31-1: a client opens a new connection
            open();
        }
        return n;
    }

    private void feed(byte[] bytes) {
        connection.received(ByteBuffer.wrap(bytes));
    }

    private byte[] take() {
        ByteBuffer out = connection.outbound();
        byte[] bytes = new byte[out.remaining()];
        out.get(bytes);
        connection.written(bytes.length);
        return bytes;
    }
}
