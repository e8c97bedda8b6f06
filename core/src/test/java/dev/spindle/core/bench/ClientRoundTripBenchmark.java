// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.bench;

import dev.spindle.core.Client;
import dev.spindle.core.ClientConfig;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.client.ClientConnection;
import dev.spindle.core.client.ClientRequest;
import dev.spindle.core.client.ClientSettings;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.spi.OutboundLoops;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One client call on a kept-alive connection, without a socket: what a handler's call costs the
 * event loop besides the reads and writes. {@link #connection} is the sans-I/O core alone: a
 * {@code GET} is sent, its encoded bytes taken as written, a canned keep-alive response fed in (a
 * direct buffer, as a socket read delivers it) and the future completed. {@link #api} is the
 * public path on a loop: {@code client.get(url).send()} (the address parsed, the destination
 * found, the request built), the loop's pool for the destination, the pooled connection and the
 * future per call, on a fake {@link OutboundLoop} bound to the benchmark thread whose socket
 * answers each request at once with the same canned response.
 */
@State(Scope.Thread)
@Fork(1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClientRoundTripBenchmark {
    private static final String BODY = "Hello, World!";
    /** As a Spindle server answers {@code /plaintext}: a date, a type and a length. */
    private static final String RESPONSE = "HTTP/1.1 200 OK\r\nContent-Length: " + BODY.length()
            + "\r\nContent-Type: text/plain\r\nDate: Fri, 27 Nov 2026 08:00:00 GMT\r\n\r\n" + BODY;
    private static final String AUTHORITY = "127.0.0.1:8081";
    private static final String URL = "http://" + AUTHORITY + "/plaintext";

    private ClientConnection core;
    private ClientRequest request;
    private ByteBuffer response;
    private CannedLoop loop;
    private Client client;

    @Setup(Level.Trial)
    public void setup() {
        response = Requests.direct(RESPONSE);
        core = new ClientConnection(AUTHORITY, ClientSettings.defaults());
        core.connected();
        request = ClientRequest.get("/plaintext");
        for (int i = 0; i < 3; i++) {
            check(connection(), "core");
        }

        loop = new CannedLoop(response);
        OutboundLoops.bind(loop);
        client = Client.create(ClientConfig.defaults());
        for (int i = 0; i < 3; i++) {
            check(api(), "api");
        }
        if (loop.connects != 1 || loop.requests != 3) {
            throw new IllegalStateException("the pool opened " + loop.connects + " connections for " + loop.requests
                    + " requests: the connection is not reused");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        loop.runPending();
        OutboundLoops.unbind();
    }

    private static void check(ClientResponse r, String path) {
        if (r == null || r.status() != 200 || !r.bodyText().equals(BODY)) {
            throw new IllegalStateException(path + ": unexpected response " + r);
        }
    }

    @Benchmark
    public ClientResponse connection() {
        CompletableFuture<ClientResponse> answer = core.send(request);
        core.written(core.outbound().remaining());
        core.received(response.rewind());
        return answer.getNow(null);
    }

    @Benchmark
    public ClientResponse api() {
        CompletableFuture<ClientResponse> answer = client.get(URL).send().toCompletableFuture();
        // a name lookup runs on another thread and hands its answer back through the loop's tasks
        while (!answer.isDone()) {
            loop.runPending();
        }
        return answer.getNow(null);
    }

    /**
     * An event loop on the benchmark thread whose sockets connect at once and answer each request
     * written on them (a write that ends a request head) with the canned response, read at once.
     * Resumed connections are driven when {@link #runPending} runs, as a loop does after the task
     * that resumed them.
     */
    static final class CannedLoop implements OutboundLoop {
        private final ByteBuffer answer;
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final List<OutboundConnection> resumed = new ArrayList<>();
        int connects;
        int requests;

        CannedLoop(ByteBuffer answer) {
            this.answer = answer;
        }

        @Override
        public void connect(InetSocketAddress remote, OutboundConnection connection) {
            connects++;
            drive(connection, connection.connected());
        }

        @Override
        public void resume(OutboundConnection connection) {
            if (!resumed.contains(connection)) {
                resumed.add(connection);
            }
        }

        @Override
        public boolean inLoop() {
            return true;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runPending() {
            for (Runnable task; (task = tasks.poll()) != null; ) {
                task.run();
            }
            while (!resumed.isEmpty()) {
                OutboundConnection c = resumed.removeLast();
                drive(c, c.resume());
            }
        }

        private void drive(OutboundConnection c, Next next) {
            while (next != Next.CLOSE && next.writes()) {
                ByteBuffer out = c.outbound();
                int n = out.remaining();
                boolean endsRequest = n >= 4 && out.get(out.limit() - 1) == '\n' && out.get(out.limit() - 3) == '\n';
                next = c.written(n);
                if (endsRequest) {
                    requests++;
                    next = c.received(answer.rewind());
                }
            }
            if (next == Next.CLOSE) {
                c.closed();
            }
        }
    }
}
