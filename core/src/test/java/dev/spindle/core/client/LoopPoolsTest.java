// SPDX-License-Identifier: Apache-2.0
package dev.spindle.core.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spindle.core.ClientException;
import dev.spindle.core.ClientException.Reason;
import dev.spindle.core.ClientResponse;
import dev.spindle.core.spi.Next;
import dev.spindle.core.spi.OutboundConnection;
import dev.spindle.core.spi.OutboundLoop;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * A loop's pools ({@link LoopPools}) over a loop double that records what it is asked to connect
 * and resume, the test playing the loop's part: reuse of idle connections, the per-destination
 * limit and its bounded queue, the retry of requests a connection never sent, closing.
 */
class LoopPoolsTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    private final RecordingLoop loop = new RecordingLoop();
    private final Destination destination = new Destination("127.0.0.1", 8081, "127.0.0.1:8081");

    private LoopPools pools(int maxConnections, int maxWaiting) {
        return new LoopPools(loop, ClientSettings.defaults(), new LoopPools.PoolLimits(maxConnections, maxWaiting));
    }

    private static String written(OutboundConnection c) {
        StringBuilder s = new StringBuilder();
        for (ByteBuffer out = c.outbound(); out.hasRemaining(); out = c.outbound()) {
            byte[] b = new byte[out.remaining()];
            out.get(b);
            s.append(new String(b, StandardCharsets.ISO_8859_1));
            c.written(b.length);
        }
        return s.toString();
    }

    private static Next answer(OutboundConnection c, String response) {
        return c.received(ByteBuffer.wrap(response.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) throws InterruptedException {
        assertThat(f).isCompletedExceptionally();
        try {
            f.get();
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            return (ClientException) e.getCause();
        }
    }

    @Test
    void anIdleConnectionIsReusedAndTheRequestIsWrittenThroughTheLoop() {
        LoopPools pools = pools(4, 4);
        var first = pools.send(destination, ClientRequest.get("/a"));
        assertThat(loop.connects).hasSize(1);
        assertThat(loop.addresses.get(0)).isEqualTo(new InetSocketAddress("127.0.0.1", 8081));
        OutboundConnection c = loop.connects.get(0);
        c.connected();
        assertThat(written(c)).startsWith("GET /a HTTP/1.1\r\nHost: 127.0.0.1:8081\r\n");
        answer(c, OK);
        assertThat(first.join().bodyText()).isEqualTo("hi");

        var second = pools.send(destination, ClientRequest.get("/b"));
        assertThat(loop.connects).as("the idle connection is reused").hasSize(1);
        assertThat(loop.resumed).as("the loop is told to write").containsExactly(c);
        assertThat(written(c)).startsWith("GET /b HTTP/1.1\r\n");
        answer(c, OK);
        assertThat(second).isCompleted();
        assertThat(pools.connections(destination)).isEqualTo(1);
    }

    @Test
    void beyondTheLimitRequestsWaitThenTheQueueIsFull() throws Exception {
        LoopPools pools = pools(2, 1);
        var a = pools.send(destination, ClientRequest.get("/a"));
        var b = pools.send(destination, ClientRequest.get("/b"));
        var c = pools.send(destination, ClientRequest.get("/c"));
        var d = pools.send(destination, ClientRequest.get("/d"));
        assertThat(loop.connects).as("two connections at most").hasSize(2);
        assertThat(c).isNotDone();
        ClientException full = failure(d);
        assertThat(full.reason()).isEqualTo(Reason.POOL_FULL);
        assertThat(full.getMessage()).contains("GET /d to 127.0.0.1:8081").contains("all 2 connections");

        OutboundConnection first = loop.connects.get(0);
        first.connected();
        assertThat(written(first)).startsWith("GET /a ");
        answer(first, OK);
        assertThat(a).isCompleted();
        assertThat(written(first)).as("the waiting request takes the freed connection").startsWith("GET /c ");
        answer(first, OK);
        assertThat(c).isCompleted();
        assertThat(b).isNotDone();
        assertThat(loop.connects).hasSize(2);
    }

    @Test
    void aRequestTheConnectionNeverSentIsSentOnceMoreOnAnother() {
        LoopPools pools = pools(1, 4);
        var a = pools.send(destination, ClientRequest.get("/a"));
        OutboundConnection first = loop.connects.get(0);
        first.connected();
        written(first);
        answer(first, OK);
        assertThat(a).isCompleted();

        var b = pools.send(destination, ClientRequest.get("/b"));
        // the server closed the idle connection before the request left
        assertThat(first.endOfInput()).isEqualTo(Next.CLOSE);
        first.closed();
        assertThat(b).as("retried, not failed").isNotDone();
        assertThat(loop.connects).hasSize(2);
        OutboundConnection second = loop.connects.get(1);
        second.connected();
        assertThat(written(second)).startsWith("GET /b ");
        answer(second, OK);
        assertThat(b.join().status()).isEqualTo(200);
        assertThat(pools.connections(destination)).as("the closed connection left the pool").isEqualTo(1);
    }

    @Test
    void aRefusedConnectFailsItsRequestAndTheWaitingOnesTryTheirOwn() throws Exception {
        LoopPools pools = pools(1, 4);
        var a = pools.send(destination, ClientRequest.get("/a"));
        var b = pools.send(destination, ClientRequest.get("/b"));
        OutboundConnection first = loop.connects.get(0);
        assertThat(first.connectFailed(new ConnectException("Connection refused"))).isEqualTo(Next.CLOSE);
        first.closed();
        assertThat(failure(a).reason()).isEqualTo(Reason.CONNECT_FAILED);
        assertThat(b).isNotDone();
        assertThat(loop.connects).as("the waiting request opens a connection of its own").hasSize(2);
        loop.connects.get(1).connectFailed(new ConnectException("Connection refused"));
        loop.connects.get(1).closed();
        assertThat(failure(b).reason()).isEqualTo(Reason.CONNECT_FAILED);
        assertThat(pools.connections(destination)).isZero();
    }

    @Test
    void closingFailsTheWaitingAndClosesIdleConnections() throws Exception {
        LoopPools pools = pools(1, 4);
        var a = pools.send(destination, ClientRequest.get("/a"));
        var b = pools.send(destination, ClientRequest.get("/b"));
        OutboundConnection c = loop.connects.get(0);
        c.connected();
        written(c);
        pools.close();
        assertThat(failure(b).reason()).isEqualTo(Reason.NOT_SENT);
        assertThat(failure(b).getMessage()).contains("the client is closed");
        assertThat(answer(c, OK)).as("closes once its request is answered").isEqualTo(Next.CLOSE);
        assertThat(a).isCompleted();
        assertThat(failure(pools.send(destination, ClientRequest.get("/c"))).reason()).isEqualTo(Reason.NOT_SENT);
    }

    /** The loop's part, recorded; the test runs on "the loop". */
    private static final class RecordingLoop implements OutboundLoop {
        final List<OutboundConnection> connects = new ArrayList<>();
        final List<InetSocketAddress> addresses = new ArrayList<>();
        final List<OutboundConnection> resumed = new ArrayList<>();
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void connect(InetSocketAddress remote, OutboundConnection connection) {
            addresses.add(remote);
            connects.add(connection);
        }

        @Override
        public void resume(OutboundConnection connection) {
            resumed.add(connection);
        }

        @Override
        public boolean inLoop() {
            return true;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }
    }
}
