// SPDX-License-Identifier: Apache-2.0
package dev.spindle.iouring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spindle.conformance.RawConnection;
import dev.spindle.core.Handler;
import dev.spindle.core.Router;
import dev.spindle.core.ServerConfig;
import dev.spindle.core.spi.OutboundLoop;
import dev.spindle.core.spi.OutboundLoops;
import dev.spindle.core.testing.Await;
import dev.spindle.core.testing.FixedBytesConnection;
import dev.spindle.core.testing.FullAcceptQueue;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ring opens sockets of its own ({@link OutboundLoop#connect}, {@code IORING_OP_CONNECT}) and
 * drives a connection on them like an accepted one, on its own thread, beside the connections it
 * serves. The connection here is a test double that sends fixed bytes and collects the answer: the
 * ring knows no HTTP. The cases are those of nio-servers' {@code OutboundConnectTest}, with the same
 * double ({@link FixedBytesConnection}, from core's test-jar); and a few of the ring's own: a large
 * answer over many provided buffers, and a connect still pending when the ring ends.
 */
@Timeout(60)
class IoUringOutboundConnectTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BIG = 1 << 20;

    /** Released by a test: the gated route's answers wait for it. */
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final AtomicInteger gatedArrived = new AtomicInteger();
    private final AtomicReference<OutboundLoop> loopSeenByHandler = new AtomicReference<>();
    private final AtomicReference<Thread> handlerThread = new AtomicReference<>();
    private final List<IoUringServer> servers = new ArrayList<>();
    private final List<AutoCloseable> sockets = new ArrayList<>();
    /** The server whose ring opens the outbound sockets: one ring, so inbound and outbound share it. */
    private IoUringServer server;
    private OutboundLoop loop;
    private Thread loopThread;

    @BeforeEach
    void start() throws Exception {
        IoUringTests.assumeAvailable();
        server = start(newLoopServer(ServerConfig.defaults().port(0).workers(1).drainTimeout(Duration.ofSeconds(20)), routes()));
        loop = loopOf(server);
        loopThread = handlerThread.get();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable socket : sockets) {
            socket.close();
        }
        servers.forEach(IoUringServer::close);
    }

    /** The server whose ring opens the outbound sockets, with the ring settings this class tests. */
    IoUringServer newLoopServer(ServerConfig config, Router router) {
        return new IoUringServer(config, router, Tuning.defaults(config));
    }

    private Router routes() {
        return Router.builder()
                .get("/hello", (req, res) -> res.text("Hello"))
                .get("/big", (req, res) -> res.text("x".repeat(BIG)))
                .get("/loop", (req, res) -> {
                    loopSeenByHandler.set(OutboundLoops.current());
                    handlerThread.set(Thread.currentThread());
                    res.text("ok");
                })
                .get("/gated/{id}", Handler.async((req, res) -> {
                    gatedArrived.incrementAndGet();
                    String id = req.pathParam("id");
                    return gate.thenRun(() -> res.text("answer " + id));
                }))
                .build();
    }

    private IoUringServer start(IoUringServer s) throws IOException {
        servers.add(s);
        s.start();
        return s;
    }

    /** The loop that serves a request to {@code s}, as its handler sees it. */
    private OutboundLoop loopOf(IoUringServer s) throws IOException {
        try (RawConnection c = new RawConnection(s.port())) {
            assertThat(c.send("GET /loop HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        return loopSeenByHandler.get();
    }

    private void connect(InetSocketAddress remote, FixedBytesConnection connection) {
        loop.execute(() -> loop.connect(remote, connection));
    }

    private static InetSocketAddress at(int port) {
        return new InetSocketAddress(LOOPBACK, port);
    }

    private static String get(String path, boolean close) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n";
    }

    @Test
    void handlersAndTasksFindTheirRingAndOtherThreadsNone() throws Exception {
        assertThat(loop).isNotNull();
        assertThat(loop).isSameAs(server.workers().get(0));
        assertThat(loopThread.getName()).isEqualTo("IoUringServer-ring-0");
        assertThat(OutboundLoops.current()).isNull();
        assertThat(loop.inLoop()).isFalse();

        var seen = new CompletableFuture<List<Object>>();
        loop.execute(() -> seen.complete(List.of(Thread.currentThread(), OutboundLoops.current(), loop.inLoop())));
        assertThat(seen.get(10, TimeUnit.SECONDS)).containsExactly(loopThread, loop, true);

        assertThatThrownBy(() -> loop.connect(at(server.port()), new FixedBytesConnection(get("/hello", true))))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aConnectionTheRingDrivesAlreadyIsRefused() throws Exception {
        var connection = new FixedBytesConnection(get("/hello", false));
        var second = new CompletableFuture<Throwable>();
        loop.execute(() -> {
            loop.connect(at(server.port()), connection);
            try {
                loop.connect(at(server.port()), connection);
                second.complete(null);
            } catch (RuntimeException e) {
                second.complete(e);
            }
        });
        assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
        connection.awaitReceived("Hello");
        assertThat(connection.events).containsExactly("connected");
    }

    @Test
    void tasksRunInOrderAndAFailingOneDoesNotStopTheRing() throws Exception {
        List<Integer> order = new CopyOnWriteArrayList<>();
        var done = new CompletableFuture<Void>();
        loop.execute(() -> order.add(1));
        loop.execute(() -> {
            throw new IllegalStateException("a task failing on purpose");
        });
        loop.execute(() -> order.add(2));
        loop.execute(() -> done.complete(null));
        done.get(10, TimeUnit.SECONDS);
        assertThat(order).containsExactly(1, 2);
        try (RawConnection c = new RawConnection(server.port())) {
            assertThat(c.send(get("/hello", false)).read().status()).isEqualTo(200);
        }
    }

    @Test
    void getsAnHttpResponseFromAnotherServerOnTheRingThread() throws Exception {
        IoUringServer other = start(new IoUringServer(ServerConfig.defaults().port(0).workers(2), routes()));
        var connection = new FixedBytesConnection(get("/hello", true));
        connect(at(other.port()), connection);

        connection.closed.get(10, TimeUnit.SECONDS);
        assertThat(connection.received()).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\nHello");
        assertThat(connection.events).containsExactly("connected", "endOfInput", "closed");
        assertThat(connection.threads).containsExactly(loopThread);
        // sent as soon as connected, not when a tick (the first a scan after the connect) happens to look
        assertThat(connection.ticksBeforeSending).isZero();
    }

    @Test
    void aLargeAnswerArrivesWhole() throws Exception {
        IoUringServer other = start(new IoUringServer(ServerConfig.defaults().port(0).workers(1), routes()));
        var connection = new FixedBytesConnection(get("/big", true));
        connect(at(other.port()), connection);

        connection.closed.get(20, TimeUnit.SECONDS);
        String received = connection.received();
        assertThat(received).startsWith("HTTP/1.1 200 ");
        assertThat(received.length() - received.indexOf("\r\n\r\n") - 4).isEqualTo(BIG);
        assertThat(connection.events).containsExactly("connected", "endOfInput", "closed");
    }

    @Test
    void resumeSendsMoreOnAKeptAliveSocket() throws Exception {
        IoUringServer other = start(new IoUringServer(ServerConfig.defaults().port(0).workers(1), routes()));
        var connection = new FixedBytesConnection(get("/hello", false));
        connect(at(other.port()), connection);
        connection.awaitReceived("Hello");
        assertThat(connection.closed).isNotDone();

        // from this thread, as a handler finishing elsewhere would: the ring writes what resume() hands out
        connection.sendLater(get("/gated/2", true));
        gate.complete(null);
        loop.resume(connection);

        connection.closed.get(10, TimeUnit.SECONDS);
        String received = connection.received();
        assertThat(received.indexOf("HTTP/1.1 200 ")).isZero();
        assertThat(received.indexOf("HTTP/1.1 200 ", 1)).isPositive();
        assertThat(received).endsWith("answer 2");
        assertThat(connection.events).containsExactly("connected", "resume", "endOfInput", "closed");
        assertThat(connection.threads).containsExactly(loopThread);
    }

    @Test
    void manyOutboundSocketsAtOnceBesideTheRingsInboundTraffic() throws Exception {
        int count = 8;
        List<FixedBytesConnection> connections = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            var connection = new FixedBytesConnection(get("/gated/" + i, true));
            connections.add(connection);
            // to the ring's own listening socket: it serves the inbound halves too
            connect(at(server.port()), connection);
        }
        Await.until(() -> gatedArrived.get() == count, "all gated requests arrived");

        // the ring serves other clients while its outbound sockets wait for their answers
        try (RawConnection c = new RawConnection(server.port())) {
            for (int i = 0; i < 3; i++) {
                var r = c.send(get("/hello", false)).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.bodyText()).isEqualTo("Hello");
            }
            // the accepted halves and this client; the outbound sockets are not counted
            Await.until(() -> server.connectionCount() == count + 1, "the server counts " + (count + 1) + " connections");
        }
        assertThat(connections).allSatisfy(c -> assertThat(c.closed).isNotDone());

        gate.complete(null);
        for (int i = 0; i < count; i++) {
            FixedBytesConnection connection = connections.get(i);
            connection.closed.get(10, TimeUnit.SECONDS);
            assertThat(connection.received()).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\nanswer " + i);
            assertThat(connection.events).containsExactly("connected", "endOfInput", "closed");
            assertThat(connection.threads).containsExactly(loopThread);
        }
    }

    @Test
    void refusedConnectIsReportedThenClosedAndTheRingServesOn() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            closedPort = s.getLocalPort();
        }
        var connection = new FixedBytesConnection(get("/hello", true));
        connect(at(closedPort), connection);

        connection.closed.get(10, TimeUnit.SECONDS);
        assertThat(connection.events).containsExactly("connectFailed", "closed");
        assertThat(connection.failure).isInstanceOf(ConnectException.class).hasMessageContaining(":" + closedPort);
        assertThat(connection.threads).containsExactly(loopThread);
        try (RawConnection c = new RawConnection(server.port())) {
            assertThat(c.send(get("/hello", false)).read().status()).isEqualTo(200);
        }
    }

    @Test
    void unresolvedAddressFailsWithoutBlockingTheRing() throws Exception {
        var connection = new FixedBytesConnection(get("/hello", true));
        connect(InetSocketAddress.createUnresolved("spindle.invalid", 80), connection);

        connection.closed.get(10, TimeUnit.SECONDS);
        assertThat(connection.events).containsExactly("connectFailed", "closed");
        assertThat(connection.failure).isInstanceOf(UnknownHostException.class);
    }

    /**
     * A listening socket with a full accept queue drops further SYNs on Linux, so a connect to it
     * stays pending: the connection's own deadline ends it through tick, and the ring cancels the
     * connect, whose address it keeps until the cancelled operation completes.
     */
    @Test
    void connectThatNeverCompletesIsClosedWhenTheConnectionsTickSaysSo() throws Exception {
        ServerSocket full = new ServerSocket(0, 1, LOOPBACK);
        sockets.add(full);
        sockets.addAll(FullAcceptQueue.fill(full));

        var connection = new FixedBytesConnection(get("/hello", true), Duration.ofMillis(400));
        long started = System.nanoTime();
        connect(at(full.getLocalPort()), connection);

        connection.closed.get(10, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(400).toNanos());
        assertThat(connection.events).containsExactly("timeout", "closed");
        assertThat(connection.ticks.get()).isPositive();
        assertThat(connection.threads).containsExactly(loopThread);
        // the kernel would retry the SYN for minutes: the slot comes back because the connect was cancelled
        Await.until(() -> slotsInUse() == 0, "the ring holds no slot");

        // the ring connects on after the cancel
        IoUringServer other = start(new IoUringServer(ServerConfig.defaults().port(0).workers(1), routes()));
        var next = new FixedBytesConnection(get("/hello", true));
        connect(at(other.port()), next);
        next.closed.get(10, TimeUnit.SECONDS);
        assertThat(next.events).containsExactly("connected", "endOfInput", "closed");
        assertThat(next.received()).endsWith("Hello");
        assertThat(connection.events).containsExactly("timeout", "closed");
    }

    @Test
    void closingTheServerWhileAConnectIsPendingClosesItWithoutACallback() throws Exception {
        ServerSocket full = new ServerSocket(0, 1, LOOPBACK);
        sockets.add(full);
        sockets.addAll(FullAcceptQueue.fill(full));
        var connection = new FixedBytesConnection(get("/hello", true));
        connect(at(full.getLocalPort()), connection);
        // the ring asks when to tick it once it submitted the connect
        Await.until(() -> !connection.threads.isEmpty(), "the connect was submitted");

        server.close();
        assertThat(connection.closed).isDone();
        assertThat(connection.events).containsExactly("closed");
    }

    /** The slots the ring holds (sockets whose operations the kernel may still complete), read on its thread. */
    private int slotsInUse() {
        var slots = new CompletableFuture<Integer>();
        loop.execute(() -> slots.complete(((RingWorker) loop).slotsInUse()));
        return slots.join();
    }

    @Test
    void peerClosingEndsTheInputAndTheRingClosesTheSocket() throws Exception {
        ServerSocket peer = new ServerSocket(0, 1, LOOPBACK);
        sockets.add(peer);
        var connection = new FixedBytesConnection(get("/hello", false));
        connect(at(peer.getLocalPort()), connection);
        try (Socket accepted = peer.accept()) {
            InputStream in = accepted.getInputStream();
            byte[] request = in.readNBytes(get("/hello", false).length());
            assertThat(new String(request, StandardCharsets.US_ASCII)).isEqualTo(get("/hello", false));
            accepted.getOutputStream().write("partial".getBytes(StandardCharsets.US_ASCII));
        }
        connection.closed.get(10, TimeUnit.SECONDS);
        assertThat(connection.received()).isEqualTo("partial");
        assertThat(connection.events).containsExactly("connected", "endOfInput", "closed");
        assertThat(connection.threads).containsExactly(loopThread);
    }

    @Test
    void closingTheServerClosesOutboundSocketsWithoutWaitingForThem() throws Exception {
        ServerSocket peer = new ServerSocket(0, 1, LOOPBACK);
        sockets.add(peer);
        var connection = new FixedBytesConnection(get("/hello", false));
        connect(at(peer.getLocalPort()), connection);
        Socket accepted = peer.accept();
        sockets.add(accepted);
        connection.connected.get(10, TimeUnit.SECONDS);

        long started = System.nanoTime();
        server.close();
        // the drain timeout is 20 s: a drain that waited for the outbound socket would take that long
        assertThat(System.nanoTime() - started).isLessThan(Duration.ofSeconds(10).toNanos());
        assertThat(connection.closed).isDone();
        assertThat(connection.events).containsExactly("connected", "closed");
        accepted.setSoTimeout(10_000);
        InputStream in = accepted.getInputStream();
        in.readNBytes(get("/hello", false).length());
        assertThat(in.read()).isEqualTo(-1);
        assertThatThrownBy(() -> loop.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void outboundSocketsStayOpenWhileAcceptedConnectionsDrain() throws Exception {
        ServerSocket peer = new ServerSocket(0, 1, LOOPBACK);
        sockets.add(peer);
        var connection = new FixedBytesConnection(get("/hello", false));
        connect(at(peer.getLocalPort()), connection);
        Socket accepted = peer.accept();
        sockets.add(accepted);
        connection.connected.get(10, TimeUnit.SECONDS);

        try (RawConnection busy = new RawConnection(server.port())) {
            busy.send(get("/gated/1", false));
            Await.until(() -> gatedArrived.get() == 1, "the gated request arrived");
            var closing = CompletableFuture.runAsync(server::close);
            // the ring drains its busy accepted connection; its handler may still need the outbound socket
            Thread.sleep(500);
            assertThat(closing).isNotDone();
            assertThat(connection.closed).isNotDone();

            gate.complete(null);
            var r = busy.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.closes()).isTrue();
            closing.get(15, TimeUnit.SECONDS);
        }
        assertThat(connection.events).containsExactly("connected", "closed");
    }
}
